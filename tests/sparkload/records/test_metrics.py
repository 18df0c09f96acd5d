"""The per-request metrics are declared once: every field's time scaling, unit and surfaces
come from its one declaration, and the declarations agree with the records they read."""

from dataclasses import fields

import pytest

from sparkload.records import (
    DURATION_FIELDS,
    QUANTILES,
    RATE_FIELDS,
    REQUEST_METRICS,
    SCALED_DURATION,
    SCALED_RATE,
    RequestRecord,
    scale_to_simulated_time,
)


def test_each_metric_is_declared_once_by_field_and_by_summary_column():
    names = [m.field for m in REQUEST_METRICS]
    columns = [m.column for m in REQUEST_METRICS if m.summary]
    assert (len(set(names)), len(set(columns))) == (len(names), len(columns))


def test_every_declared_metric_is_a_field_of_the_record():
    record_fields = {f.name for f in fields(RequestRecord)}
    assert {m.field for m in REQUEST_METRICS} <= record_fields


def test_the_time_scaled_fields_are_the_declared_durations_and_rates():
    assert set(DURATION_FIELDS) == {m.field for m in REQUEST_METRICS if m.time == SCALED_DURATION}
    assert set(RATE_FIELDS) == {m.field for m in REQUEST_METRICS if m.time == SCALED_RATE}


def test_a_simulated_record_scales_each_metric_as_declared():
    record = {m.field: 2.0 for m in REQUEST_METRICS}
    scaled = scale_to_simulated_time(record, 10.0)
    expected = {SCALED_DURATION: 20.0, SCALED_RATE: 0.2, "": 2.0}
    assert scaled == {m.field: pytest.approx(expected[m.time]) for m in REQUEST_METRICS}


def test_a_live_metric_shows_the_mean_or_a_known_percentile():
    for metric in REQUEST_METRICS:
        if metric.live is not None:
            assert set(metric.live.stats) <= {"mean", *QUANTILES}, metric.field


def test_a_bound_names_a_summary_metric_in_a_unit_a_threshold_can_take():
    for metric in REQUEST_METRICS:
        if metric.bound:  # "": a count or a ratio (acceptance length, rate), given bare
            assert metric.summary and metric.unit in ("ms", "s", "tok/s", ""), metric.field


def test_prometheus_histograms_observe_seconds_of_durations():
    for metric in REQUEST_METRICS:
        if metric.histogram is not None:
            assert metric.time == SCALED_DURATION and metric.histogram.name.endswith("_seconds")
            assert list(metric.histogram.buckets) == sorted(set(metric.histogram.buckets))
