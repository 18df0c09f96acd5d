"""A scenario run's figures: phases kept apart by level index, and each scenario's own rule
(recovery time, settling, the ramp's growth, churn's connect cost, soak's steady windows)."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.figures import scenario
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def requests(level: int, index: int, starts, ttfts, latency: float = 1.0, **fields) -> list[dict]:
    return [
        make_record(
            level, index, ttft=t, itl=0.01, tps=100.0, latency=latency, start_time=s, **fields
        )
        for s, t in zip(starts, ttfts, strict=True)
    ]


def phase_entry(name: str, c: int, duration: float, churn: bool = False) -> dict:
    return {"name": name, "concurrency": c, "duration": duration, "churn": churn}


def scenario_run(tmp_path, name: str, phases: list[dict], records: list[dict]):
    levels = [
        {"index": i, "concurrency": p["concurrency"], "expected": None, "started_at": "",
         "phase": p["name"]}
        for i, p in enumerate(phases)
    ]  # fmt: skip
    fields = {"mode": "scenario", "scenario": {"name": name, "phases": phases}, "levels": levels}
    write_run(tmp_path, "scn", records, manifest_fields=fields)
    return load([tmp_path])


RECOVERY = [phase_entry("baseline", 2, 20), phase_entry("overload", 16, 10),
            phase_entry("after", 2, 40)]  # fmt: skip


def recovery_records(after_ttfts) -> list[dict]:
    base = requests(2, 0, np.arange(20) + 1000.0, [0.1] * 20)
    high = requests(16, 1, np.linspace(1020, 1029, 40), [0.8] * 40)
    after = requests(2, 2, 1030.0 + np.arange(len(after_ttfts)), after_ttfts)
    return base + high + after


def test_recovery_is_timed_from_the_overloads_last_send_until_ttft_stays_within_ten_percent(
    tmp_path,
):
    after = [0.5] * 10 + [0.105] * 20  # recovered from the 11th request, sent 10 s in
    (result,) = scenario.of_dataset(scenario_run(tmp_path, "recovery", RECOVERY,
                                                  recovery_records(after)))  # fmt: skip
    figures = result.figures
    assert figures["recovered"] is True
    assert figures["recovery_s"] == pytest.approx(40.0 - 29.0)
    assert figures["baseline_ttft_ms_p50"] == pytest.approx(100.0)
    assert figures["high_ttft_ms_p90"] == pytest.approx(800.0)


def test_a_recovery_that_never_comes_is_none_and_said(tmp_path):
    (result,) = scenario.of_dataset(scenario_run(tmp_path, "recovery", RECOVERY,
                                                  recovery_records([0.5] * 30)))  # fmt: skip
    assert result.figures["recovery_s"] is None and result.figures["recovered"] is False
    assert scenario.summary_entries(load([tmp_path]))["scenario"][0]["recovery_s"] is None


def test_a_late_relapse_moves_the_recovery_past_it(tmp_path):
    after = [0.105] * 10 + [0.5] * 5 + [0.105] * 15  # within, out again, back for good
    (result,) = scenario.of_dataset(scenario_run(tmp_path, "recovery", RECOVERY,
                                                  recovery_records(after)))  # fmt: skip
    assert result.figures["recovery_s"] == pytest.approx(45.0 - 29.0)


def test_phases_of_one_c_stay_apart_in_the_scenario_and_add_their_walls_in_the_summary(
    tmp_path,
):
    dataset = scenario_run(tmp_path, "recovery", RECOVERY, recovery_records([0.105] * 30))
    (result,) = scenario.of_dataset(dataset)
    assert [(p.name, len(p.starts)) for p in result.phases] == [
        ("baseline", 20), ("overload", 40), ("after", 30),
    ]  # fmt: skip
    row = summarize(dataset, SETTINGS).set_index("concurrency").loc[2]
    # each phase from its first send to its last completion: 20 s and 30 s, not the 60 s between
    assert row["wall_s"] == pytest.approx(20.0 + 30.0) and row["n"] == 50


def test_the_ramp_names_the_first_step_whose_ttft_p90_grew_past_its_limit(tmp_path):
    phases = [phase_entry(f"step{i}", c, 10) for i, c in enumerate((1, 2, 4, 8), 1)]
    records = []
    for i, (c, ttft) in enumerate(zip((1, 2, 4, 8), (0.1, 0.12, 0.3, 0.9), strict=True)):
        records += requests(c, i, 100.0 * i + np.arange(10), [ttft] * 10)
    (result,) = scenario.of_dataset(scenario_run(tmp_path, "ramp", phases, records))
    assert result.figures["first_growth"]["phase"] == "step3"


def test_churn_reports_the_connections_it_opened_beside_the_kept_phase(tmp_path):
    phases = [phase_entry("kept", 4, 10), phase_entry("churn", 4, 10, churn=True)]
    kept = requests(4, 0, np.arange(10.0), [0.1] * 10)
    churn = requests(4, 1, 20 + np.arange(10.0), [0.104] * 10, connect_time=0.004)
    (result,) = scenario.of_dataset(scenario_run(tmp_path, "churn", phases, kept + churn))
    figures = result.figures
    assert figures["connections_opened"] == 10
    assert figures["connect_ms_mean"] == pytest.approx(4.0)
    assert figures["churn_minus_kept_ttft_ms_p50"] == pytest.approx(4.0)


def test_a_soaks_steady_share_counts_the_windows_within_ten_percent_of_the_median(tmp_path):
    ttfts = [0.1] * 90 + [0.5] * 10  # the last tenth slows down
    records = requests(2, 0, np.arange(100.0), ttfts)
    (result,) = scenario.of_dataset(
        scenario_run(tmp_path, "soak", [phase_entry("soak", 2, 100)], records)
    )
    assert result.figures["steady_share"] == pytest.approx(0.9)  # all but the slow last window
