"""The capacity search, pure: doubling brackets the answer, bisection narrows it."""

from __future__ import annotations

import pytest

from sparkload.capacity import CONCURRENCY, RATE, RATE_TOLERANCE, CapacityResult, CapacitySearch
from sparkload.records import CapacityEntry, CapacityProbe, ProbeVerdict


def search_until_done(search: CapacitySearch, meets) -> list[float]:
    """Run ``search`` against the oracle ``meets(value)``; the values probed, in order."""
    probed = []
    for _ in range(100):  # bounded: a search that never ends fails the test
        value = search.next_value()
        if value is None:
            return probed
        probed.append(value)
        search.record(value, meets(value))
    raise AssertionError(f"the search did not end: {probed}")


@pytest.mark.parametrize("answer", range(8, 16))
def test_a_capacity_between_8_and_16_is_found_exactly_in_at_most_9_probes(answer):
    search = CapacitySearch(CONCURRENCY, 1, 256)
    probed = search_until_done(search, lambda c: c <= answer)
    assert search.capacity == answer
    assert answer + 1 in probed  # the probe that broke it is the next concurrency up
    assert len(probed) <= 9


def test_concurrency_doubles_from_the_start_until_a_probe_breaks():
    search = CapacitySearch(CONCURRENCY, 1, 256)
    probed = search_until_done(search, lambda c: c <= 11)
    assert probed[:5] == [1, 2, 4, 8, 16]


def test_the_bisection_never_probes_a_value_twice():
    search = CapacitySearch(CONCURRENCY, 3, 256)
    probed = search_until_done(search, lambda c: c <= 37)
    assert len(probed) == len(set(probed)) and search.capacity == 37


def test_no_probe_meeting_leaves_no_capacity_after_probing_down_to_1():
    search = CapacitySearch(CONCURRENCY, 4, 256)
    probed = search_until_done(search, lambda c: False)
    assert search.capacity is None
    assert probed == [4, 2, 1]


def test_every_probe_meeting_stops_at_the_cap_with_the_cap_as_capacity():
    search = CapacitySearch(CONCURRENCY, 1, 20)
    probed = search_until_done(search, lambda c: True)
    assert probed == [1, 2, 4, 8, 16, 20] and search.capacity == 20


def test_a_rate_search_ends_with_a_bracket_within_5_percent():
    search = CapacitySearch(RATE, 1.0, 256.0)
    search_until_done(search, lambda r: r <= 6.3)
    assert search.capacity is not None and search.breaking is not None
    assert search.capacity <= 6.3 < search.breaking <= search.capacity * (1 + RATE_TOLERANCE)


def test_a_rate_search_whose_start_breaks_halves_a_few_times_then_gives_up():
    search = CapacitySearch(RATE, 8.0, 256.0)
    probed = search_until_done(search, lambda r: False)
    assert probed == [8.0, 4.0, 2.0, 1.0, 0.5] and search.capacity is None


def test_a_rate_search_whose_start_breaks_finds_a_lower_rate():
    search = CapacitySearch(RATE, 8.0, 256.0)
    search_until_done(search, lambda r: r <= 3.0)
    assert search.capacity is not None and 3.0 / (1 + RATE_TOLERANCE) <= search.capacity <= 3.0


def test_recording_a_value_that_was_not_asked_is_refused():
    search = CapacitySearch(CONCURRENCY, 1, 256)
    with pytest.raises(ValueError, match="not the one asked"):
        search.record(5, True)


@pytest.mark.parametrize(("start", "maximum"), [(0, 10), (20, 10)])
def test_a_start_outside_1_to_the_cap_is_refused(start, maximum):
    with pytest.raises(ValueError, match="start"):
        CapacitySearch(CONCURRENCY, start, maximum)


@pytest.mark.parametrize("answer", [0, 1, 5, 11, 100, 256])
def test_the_probes_left_at_most_bound_every_search_as_it_goes(answer):
    search = CapacitySearch(CONCURRENCY, 1, 256)
    bounds = []
    while search.next_value() is not None:
        bounds.append(search.probes_left_at_most())
        value = search.next_value()
        assert value is not None
        search.record(value, value <= answer)
    assert all(bound >= len(bounds) - 1 - i for i, bound in enumerate(bounds))
    assert bounds[0] == 15  # 1..256 doubling (9), then bisecting 128..256 (7): 16 in all


def test_after_a_break_at_16_at_most_two_probes_follow_12():
    search = CapacitySearch(CONCURRENCY, 1, 256)
    for value in (1, 2, 4, 8):
        search.record(value, True)
    search.record(16, False)
    assert (search.next_value(), search.probes_left_at_most()) == (12, 2)


def result(capacity: float | None, *probes: CapacityProbe) -> CapacityResult:
    return CapacityResult("ttft_p90_ms<=800", CONCURRENCY, list(probes), capacity, True)


def probe(index: int, value: float, meets: bool, *breaches: str) -> CapacityProbe:
    return CapacityProbe(value, ProbeVerdict(index, meets, breaches=list(breaches)))


BROKE_12 = probe(4, 12, False, "ttft_p90_ms = 913.4 > 800")


def test_the_line_names_capacity_bounds_and_the_probe_that_broke_them():
    found = result(11, probe(3, 8, True), probe(5, 11, True), BROKE_12, probe(2, 16, False))
    assert found.line() == (
        "capacity: C=11 at ttft_p90_ms<=800; first failing probe C=12 "
        "(ttft_p90_ms = 913.4 > 800); 4 probes"
    )


def test_a_tenants_line_names_the_classes_that_broke_their_slo_first():
    broke = CapacityProbe(
        3,
        ProbeVerdict(
            2, False, breaches=["class chat: ttft_p90_ms = 913.4 > 800"], failing_classes=["chat"]
        ),
    )
    found = CapacityResult("tenants", CONCURRENCY, [probe(1, 2, True), broke], 2, True)
    assert found.line() == (
        "capacity: C=2 at tenants; first failing probe C=3 (class chat: ttft_p90_ms = 913.4 > "
        "800); first to fail: chat; 2 probes"
    )


def test_the_manifest_entry_names_the_smallest_breaking_probe_as_the_limit():
    entry = result(11, probe(2, 16, False), probe(5, 11, True), BROKE_12).manifest_entry()
    assert entry.capacity == 11 and entry.limit == BROKE_12
    assert [p.value for p in entry.probes] == [16, 11, 12]


def test_the_manifest_entry_keeps_each_probe_flat_as_the_manifest_always_did():
    verdict = ProbeVerdict(4, False, {"ttft_p90_ms<=800": 913.4}, ["too slow"], level="C=12")
    written = CapacityEntry("b", CONCURRENCY, 11, [CapacityProbe(12, verdict)]).to_dict()
    assert written["probes"] == [
        {
            "value": 12,
            "level_index": 4,
            "level": "C=12",
            "meets": False,
            "figures": {"ttft_p90_ms<=800": 913.4},
            "breaches": ["too slow"],
        }
    ]


def test_a_probe_of_a_manifest_written_before_verdicts_named_their_level_reads():
    written = {"level_index": 2, "value": 4, "meets": True, "figures": {}, "breaches": []}
    assert CapacityProbe.from_dict(written) == CapacityProbe(4, ProbeVerdict(2, True))


def test_no_capacity_is_said_in_one_line():
    line = result(None, probe(0, 1, False, "ttft_p90_ms = 900 > 800")).line()
    assert line.startswith("capacity: no probe met ttft_p90_ms<=800; first failing probe C=1")


def test_a_capacity_at_the_cap_says_no_probe_broke_the_bounds():
    assert "no probe broke the bounds" in result(20, probe(0, 20, True)).line()
