"""A capacity probe's verdict says what it rests on: its requests, the interval of each
percentile bound's statistic, and a plain warning where the sample cannot settle a bound."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.figures import slo
from analysis.figures.probe import sample_verdict
from sparkload.capacity import CapacityResult
from sparkload.records import CapacityProbe, ProbeVerdict, order_statistic_interval

P90 = slo.parse("ttft_p90_ms<=800")[0]


def test_three_requests_are_too_few_to_bound_a_p90_and_the_verdict_says_so():
    interval, caveat = sample_verdict(np.array([500.0, 600.0, 700.0]), P90)
    assert interval is None
    assert caveat == (
        "ttft_p90_ms<=800: 3 requests are too few to bound a p90 (a 90 % interval needs 29)"
    )


def test_an_interval_clear_of_the_threshold_settles_the_bound():
    interval, caveat = sample_verdict(np.linspace(100.0, 500.0, 60), P90)
    assert interval is not None and interval[1] < 800 and caveat is None


def test_an_interval_that_holds_the_threshold_does_not_settle_it():
    interval, caveat = sample_verdict(np.linspace(300.0, 870.0, 60), P90)
    assert interval is not None and interval[0] < 800 < interval[1]
    assert caveat is not None and "holds the threshold 800: the sample does not settle it" in caveat


def probe(value: float, meets: bool, requests: int, caveats: list[str]) -> CapacityProbe:
    breaches = [] if meets else ["ttft_p90_ms = 913 > 800"]
    verdict = ProbeVerdict(
        int(value), meets=meets, breaches=breaches, requests=requests, caveats=caveats
    )
    return CapacityProbe(value, verdict)


def test_the_capacity_line_states_each_deciding_probes_requests_and_warns_when_too_few():
    few = "ttft_p90_ms<=800: 3 requests are too few to bound a p90 (a 90 % interval needs 29)"
    probes = [probe(1, True, 3, [few]), probe(2, False, 6, [few.replace("3 req", "6 req")])]
    line = CapacityResult("ttft_p90_ms<=800", "concurrency", probes, 1.0, True).line()
    assert line == (
        "capacity: C=1 at ttft_p90_ms<=800 (3 requests); first failing probe C=2 (ttft_p90_ms = "
        "913 > 800; 6 requests); 2 probes; warning: C=1: "
        + few
        + "; C=2: "
        + few.replace("3 req", "6 req")
    )


def test_a_verdict_from_before_requests_were_counted_leaves_the_line_as_it_was():
    probes = [CapacityProbe(1, ProbeVerdict(1, meets=True))]
    line = CapacityResult("ttft_p90_ms<=800", "concurrency", probes, 1.0, True).line()
    assert line == (
        "capacity: C=1 at ttft_p90_ms<=800 (the cap, --capacity-max: no probe broke the "
        "bounds); 1 probe"
    )


@pytest.mark.parametrize("n", [29, 1000])
def test_an_interval_is_two_of_the_values_themselves(n):
    values = np.sort(np.random.default_rng(n).normal(size=n))
    low, high = order_statistic_interval(values, 0.9)
    assert low in values and high in values and low < high


def test_the_capacity_line_gives_the_interval_of_a_probe_with_enough_requests():
    verdict = ProbeVerdict(
        6, meets=True, requests=40, intervals={"ttft_p90_ms<=800": [650.0, 790.0]}, caveats=[]
    )
    line = CapacityResult("ttft_p90_ms<=800", "concurrency", [CapacityProbe(6, verdict)], 6.0, True)
    assert line.line() == (
        "capacity: C=6 at ttft_p90_ms<=800 (40 requests; ttft_p90_ms<=800 in 650–790 at 90 %; "
        "the cap, --capacity-max: no probe broke the bounds); 1 probe"
    )


def test_the_report_states_the_deciding_probes_requests_and_the_warning(tmp_path):
    from analysis.figures.operating_points import capacity_findings
    from analysis.reading.load import load
    from tests.analysis.figures.test_operating_points import CAPACITY, ladder_run

    few = "ttft_p90_ms<=800: 16 requests are too few to bound a p90 (a 90 % interval needs 29)"
    probes = [dict(p, requests=4 * p["value"], caveats=[]) for p in CAPACITY["probes"]]
    probes[2]["caveats"] = [few]
    limit = dict(probes[3], breaches=["ttft_p90_ms = 900 > 800"])
    run = ladder_run(tmp_path, "b", {**CAPACITY, "probes": probes, "limit": limit})
    (finding,) = capacity_findings(load([run]).runs[0])
    assert (finding.requests, finding.limit_requests) == (16, 32)
    assert finding.describe() == (
        "**b**: capacity search (`ttft_p90_ms<=800`, over concurrency): capacity **C=4** (16 "
        "requests); first failing probe: C=8 (ttft_p90_ms = 900 > 800; 32 requests). "
        f"**Warning**: C=4: {few}"
    )
