"""What the server saw, per level: the TTFT split's arithmetic, the histograms pooled, the
drafting figures per level and per category, TPOT by acceptance length."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.figures import server_timing
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def record(level: int, i: int, **fields) -> dict:
    base = {"ttft": 0.1, "itl": 0.01, "tps": 50, "latency": 1.0}
    return make_record(level, 0 if level == 1 else 1, start_time=100.0 + i, **{**base, **fields})


def records_of(tmp_path, rows: list[dict]):
    return load([write_run(tmp_path, "run", rows)]).records


def test_rest_is_the_client_ttft_less_the_servers_queue_and_ttft():
    rest = server_timing.rest(np.array([0.1, 0.2]), np.array([0.01, np.nan]), np.array([0.05, 0.1]))
    assert rest[0] == pytest.approx(0.04)
    assert np.isnan(rest[1])


def test_histograms_pool_index_by_index_a_shorter_one_padded_with_zeros():
    assert server_timing.pool([[1, 2, 3], [4, 5], [0, 0, 0, 6]]) == [5, 7, 3, 6]
    assert server_timing.pool([]) == []


def test_a_pooled_histograms_acceptance_length_counts_the_bonus_token():
    assert server_timing.pooled_length([1, 1, 0, 2]) == pytest.approx(1 + (1 + 6) / 4)
    assert server_timing.pooled_length([0, 0]) is None


def test_a_levels_split_adds_up_to_the_clients_mean_ttft(tmp_path):
    rows = [
        record(1, 0, ttft=0.100, server_queue=0.010, server_ttft=0.060),
        record(1, 1, ttft=0.140, server_queue=0.030, server_ttft=0.080),
        record(1, 2, ttft=0.500),  # no server figures: not in the split
    ]
    (split,) = server_timing.ttft_splits(records_of(tmp_path, rows), SETTINGS)
    assert (split.label, split.concurrency, split.n) == ("run", 1, 2)
    assert split.client_ttft_ms == pytest.approx(120.0)
    assert (split.queue_ms, split.server_ttft_ms) == (pytest.approx(20.0), pytest.approx(70.0))
    assert split.rest_ms == pytest.approx(30.0)


def test_the_servers_itl_stands_beside_the_clients_each_over_the_requests_that_have_one(tmp_path):
    rows = [
        record(1, 0, itl=0.012, server_queue=0.0, server_ttft=0.05, server_itl=0.010),
        record(1, 1, itl=0.020, server_queue=0.0, server_ttft=0.05),
    ]
    (split,) = server_timing.ttft_splits(records_of(tmp_path, rows), SETTINGS)
    assert (split.client_itl_ms, split.server_itl_ms) == (pytest.approx(16.0), pytest.approx(10.0))


def test_a_level_without_server_figures_has_no_split(tmp_path):
    rows = [record(1, 0, server_queue=0.01, server_ttft=0.02), record(2, 1)]
    splits = server_timing.ttft_splits(records_of(tmp_path, rows), SETTINGS)
    assert [s.concurrency for s in splits] == [1]


def spec(length: float, histogram: list[int], **fields) -> dict:
    steps = sum(histogram)
    accepted = sum(j * c for j, c in enumerate(histogram))
    return {
        "acceptance_length": length,
        "acceptance_rate": accepted / (3 * steps),
        "spec_histogram": histogram,
        "spec_steps": steps,
        "spec_accepted": accepted,
        "spec_drafts": 3 * steps,
        **fields,
    }


def test_a_levels_drafting_pools_its_requests_histograms(tmp_path):
    rows = [
        record(1, 0, **spec(2.0, [1, 1, 1, 1])),
        record(1, 1, **spec(4.0, [0, 0, 0, 5])),
        record(1, 2),  # drafted nothing it reported
    ]
    (level,) = server_timing.drafting(records_of(tmp_path, rows), SETTINGS)
    assert level.n == 2
    assert level.histogram == [1, 1, 1, 6]
    assert (level.steps, level.accepted, level.drafts) == (9, 21, 27)
    assert level.acceptance_length_mean == pytest.approx(3.0)
    assert level.pooled_acceptance_length == pytest.approx(1 + 21 / 9)


def test_drafting_by_category_pools_each_categorys_levels(tmp_path):
    rows = [
        record(1, 0, category="code", **spec(4.0, [0, 0, 0, 4])),
        record(2, 1, category="code", **spec(3.0, [0, 0, 4, 0])),
        record(1, 2, category="chat", **spec(1.5, [2, 2, 0, 0])),
        record(1, 3, **spec(2.0, [1, 1, 1, 1])),  # no category: in no category's row
    ]
    found = server_timing.drafting_by_category(records_of(tmp_path, rows), SETTINGS)
    by = {d.category: d for d in found}
    assert set(by) == {"code", "chat"}
    assert by["code"].acceptance_length_mean == pytest.approx(3.5)
    assert by["code"].histogram == [0, 0, 4, 4]
    assert by["chat"].n == 1


def test_tpot_is_binned_by_acceptance_length(tmp_path):
    rows = [
        record(1, 0, itl=0.020, **spec(1.2, [4, 1, 0, 0])),
        record(1, 1, itl=0.010, **spec(3.6, [0, 0, 2, 3])),
        record(1, 2, itl=0.012, **spec(3.8, [0, 0, 1, 4])),
    ]
    frame = server_timing.tpot_by_acceptance(records_of(tmp_path, rows), SETTINGS)
    assert list(frame["acceptance_length"]) == ["[1, 1.5)", "[3, 4)"]
    assert list(frame["n"]) == [1, 2]
    assert frame["tpot_ms_mean"].tolist() == pytest.approx([20.0, 11.0])


def test_summary_entries_leave_out_what_no_record_has(tmp_path):
    plain = server_timing.summary_entries(records_of(tmp_path, [record(1, 0)]), SETTINGS)
    assert plain == {}
