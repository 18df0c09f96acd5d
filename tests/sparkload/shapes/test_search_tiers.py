"""--tier: one capacity search per tier over the same levels, driven tick by tick against a fake
conductor (no Locust, no analysis process); the option's rules; the analysis judging one level
under several sets of bounds."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from sparkload.capacity import CONCURRENCY, CapacitySearch
from sparkload.config import from_namespace
from sparkload.errors import ConfigError
from sparkload.records import EXIT_BAD_INPUT
from sparkload.run.report_process import judge_level
from sparkload.run.setup import check_search
from sparkload.shapes.progress import progress_line
from tests.analysis_synthetic import closed_loop_level, write_run
from tests.conftest import ROOT
from tests.sparkload.shapes.test_progress import collector, options, tally
from tests.sparkload.shapes.test_search import TierConductor, run_search, search_shape
from tests.sparkload.test_capacity import search_until_done

FAST, OK = "tps_p10>=30,ttfo_p90_ms<=2000", "tps_p10>=15"


def tier_search(fast: int, ok: int) -> tuple[list[int], TierConductor]:
    """Tiers fast and ok whose bounds hold up to ``fast`` and ``ok`` sessions: the
    concurrencies run, and the conductor holding each tier's last result."""
    shape = search_shape(fast=FAST, ok=OK)
    conductor = TierConductor(capacity=0, capacities={FAST: fast, OK: ok})
    return run_search(shape, conductor), conductor


def alone(capacity: int) -> list[float]:
    """The probes of one search by itself against the same oracle."""
    return search_until_done(CapacitySearch(CONCURRENCY, 1, 256), lambda c: c <= capacity)


def test_each_tier_finds_what_a_search_of_its_own_would_find():
    _, conductor = tier_search(fast=3, ok=11)
    fast, ok = conductor.results
    assert (fast.tier, fast.capacity, ok.tier, ok.capacity) == ("fast", 3, "ok", 11)
    assert [p.value for p in fast.probes] == alone(3)
    assert [p.value for p in ok.probes] == alone(11)


def test_each_tier_holds_the_probe_that_met_it_and_the_one_session_more_that_broke_it():
    _, conductor = tier_search(fast=3, ok=11)
    for result, capacity in zip(conductor.results, (3, 11), strict=True):
        assert result.found is not None and result.found.verdict.meets
        assert result.limit is not None and result.limit.value == capacity + 1
        assert not result.limit.verdict.meets


def test_a_concurrency_measured_once_answers_every_tier_so_none_runs_twice():
    run, _ = tier_search(fast=3, ok=11)
    assert sorted(run) == sorted(set(alone(3)) | set(alone(11)))
    assert len(run) == len(set(run)) < len(alone(3)) + len(alone(11))


def test_every_level_is_judged_under_the_bounds_of_each_tier_still_searching():
    run, conductor = tier_search(fast=3, ok=11)
    assert conductor.judged[0] == (0, [FAST, OK])
    settled = next(i for i, (_, bounds) in enumerate(conductor.judged) if bounds == [OK])
    assert all(bounds == [OK] for _, bounds in conductor.judged[settled:])
    assert len(conductor.judged) == len(run)


def test_the_lower_concurrency_asked_for_runs_first():
    run, _ = tier_search(fast=3, ok=11)
    assert run[:5] == [1, 2, 4, 3, 8]  # after 4 breaks fast, its 3 runs before ok's 8


def test_a_tier_met_at_no_level_has_no_capacity_and_its_line_says_not_met():
    _, conductor = tier_search(fast=0, ok=2)
    fast, ok = conductor.results
    assert fast.capacity is None and fast.complete and ok.capacity == 2
    assert fast.line().startswith(f"capacity fast: 0, not met: no probe met {FAST};")


def test_a_tier_settled_first_is_complete_while_the_other_still_searches():
    shape = search_shape(fast=FAST, ok=OK)
    conductor = TierConductor(capacity=0, capacities={FAST: 1, OK: 64})
    results = []
    conductor.record_capacity = lambda found: results.append(list(found))
    run_search(shape, conductor)
    first = next(found for found in results if found[0].complete)
    assert not first[1].complete and first[0].capacity == 1


def test_the_progress_line_bounds_the_levels_of_every_tier_still_searching():
    one = progress_line(search_shape(), collector(tally(0, 1, 3, 1, 2.0)), options())
    two = progress_line(
        search_shape(fast=FAST, ok=OK), collector(tally(0, 1, 3, 1, 2.0)), options()
    )
    assert "at most 15 more" in one and "at most 31 more" in two


def tier_options(**given: object):
    return from_namespace(SimpleNamespace(**{"workload": "agent", **given}))


@pytest.mark.parametrize(
    ("tiers", "said"),
    [
        (["fast"], "--tier 'fast': give NAME:BOUNDS"),
        (["fast:"], "--tier 'fast:': give NAME:BOUNDS"),
        ([":tps_p10>=30"], "give NAME:BOUNDS"),
        (["fast:tps_p10>=30", "fast:tps_p10>=20"], "--tier fast: the tier is given twice"),
        (["fa st:tps_p10>=30"], "--tier fa st: a tier's name is letters"),
    ],
)
def test_a_tier_that_cannot_be_read_is_one_line_naming_the_option(tiers, said):
    with pytest.raises(ConfigError, match=said):
        tier_options(tier=tiers)


def test_tiers_are_read_in_the_order_given():
    plan = tier_options(tier=[f"fast:{FAST}", f"ok:{OK}"]).plan
    assert [(t.name, t.bounds) for t in plan.searches] == [("fast", FAST), ("ok", OK)]


def test_a_tier_beside_find_capacity_is_refused():
    with pytest.raises(ConfigError, match="--tier runs a capacity search per tier: drop"):
        tier_options(tier=[f"fast:{FAST}"], find_capacity=OK)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"workload": "chat"}, "--tier counts concurrent agent sessions: give --workload agent"),
        ({"arrival_rate": "2"}, "a closed loop: drop --arrival-rate"),
        ({"ladder": "1,4"}, "--tier chooses its own levels and judges each one: drop --ladder"),
        ({"check": "ttft_p90_ms<=1"}, "drop --check"),
    ],
)
def test_a_tier_search_refuses_what_it_cannot_run_by_name(given, said):
    with pytest.raises(ConfigError, match=said):
        check_search(tier_options(tier=[f"fast:{FAST}"], **given))


def one_level_run(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.04, tps=20, latency=2.0)
    levels = [{"index": 0, "concurrency": 1, "expected": 10, "started_at": ""}]
    return write_run(tmp_path, "x", records, manifest_fields={"levels": levels})


def test_one_analysis_process_judges_a_level_under_each_tiers_bounds_in_order(tmp_path):
    run = one_level_run(tmp_path)
    strict, loose = judge_level(["tps_p10>=25", "tps_p10>=15"], str(run), 0)
    assert (strict.meets, loose.meets) == (False, True)
    assert list(strict.figures) == ["tps_p10>=25"] and list(loose.figures) == ["tps_p10>=15"]


def test_several_checks_without_a_level_are_one_line_and_exit_2(tmp_path):
    run = one_level_run(tmp_path)
    args = ["--check", "tps_p10>=25", "--check", "tps_p10>=15", str(run)]
    done = subprocess.run(
        [sys.executable, "-m", "analysis", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr.strip().count("\n") == 0 and "--check: give it once" in done.stderr
