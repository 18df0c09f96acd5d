"""Reading results directories: what counts, what is skipped, what is flagged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

import analysis
from analysis.cli import main
from analysis.errors import InputError
from analysis.figures.metrics import METRIC_BY_FIELD
from analysis.reading import per_request
from analysis.reading.load import discover, load
from analysis.reading.record_fields import NUMERIC_FIELDS, THINKING_FIELDS
from sparkload.records import MANIFEST_FILE, Manifest
from tests.analysis_synthetic import DATA, closed_loop_level, make_record, write_run


def _report(tmp_path, *runs, extra=()):
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet", *extra]) == 0
    return pd.read_csv(out / "summary.csv"), (out / "report.md").read_text()


def test_warmup_requests_are_excluded_from_every_metric(tmp_path):
    records = closed_loop_level(
        2,
        0,
        1000.0,
        ttft=0.2,
        itl=0.05,
        tps=20,
        latency=6.5,
        warmup=dict(ttft=30.0, itl=9.0, tps=0.1, latency=900.0),
    )
    summary, report = _report(tmp_path, write_run(tmp_path / "r", "x", records))
    row = summary.iloc[0]
    assert (row["n"], row["warmup_excluded"]) == (20, 1)
    assert (row["ttft_ms_mean"], row["latency_s_p90"]) == (pytest.approx(200.0), pytest.approx(6.5))
    assert "1 warm-up request(s) excluded" in report


def test_failures_are_counted_by_kind_and_not_used(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5)
    records += [
        make_record(
            1,
            0,
            ttft=None,
            itl=None,
            tps=None,
            latency=None,
            start_time=1001.0,
            status="error",
            error_kind=kind,
        )
        for kind in ("timeout", "timeout", "http_500")
    ]
    summary, _ = _report(tmp_path, write_run(tmp_path / "r", "x", records))
    row = summary.iloc[0]
    assert (row["n"], row["failures"]) == (10, 3)
    assert row["error_kinds"] == "http_500: 1; timeout: 2"
    assert row["tps_mean"] == pytest.approx(20.0)
    assert row["measured_rps"] == pytest.approx(10 / 65.0)  # completed (ok) requests / wall time


def test_an_unfinished_run_is_marked_incomplete_but_analysed(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5)
    summary, report = _report(tmp_path, write_run(tmp_path / "r", "x", records, status="running"))
    assert bool(summary.iloc[0]["incomplete"]) and summary.iloc[0]["n"] == 10
    assert "**INCOMPLETE run**" in report and 'status "running"' in report


def test_a_torn_last_line_is_skipped_and_counted(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5)
    run = write_run(tmp_path / "r", "x", records, tail=b'{"request_id": "r9", "level": 1, "ph')
    dataset = load([run])
    assert (dataset.runs[0].records, dataset.runs[0].skipped_lines) == (10, 1)
    _, report = _report(tmp_path, run)
    assert "1 unparsable line(s) in requests.jsonl skipped" in report


def test_time_scale_turns_wall_clock_into_simulated_time(tmp_path):
    # A simulator 10x faster than real time: 0.65 s measured is 6.5 s simulated.
    records = closed_loop_level(4, 0, 1000.0, ttft=0.02, itl=0.005, tps=200.0, latency=0.65)
    summary, report = _report(tmp_path, write_run(tmp_path / "r", "x", records, time_scale=10.0))
    row = summary.iloc[0]
    assert row["ttft_ms_mean"] == pytest.approx(200.0)
    assert row["itl_ms_p50"] == pytest.approx(50.0)
    assert row["tps_mean"] == pytest.approx(20.0)
    assert row["latency_s_mean"] == pytest.approx(6.5)
    assert row["system_rps"] == pytest.approx(4 / 6.5)
    assert row["measured_rps"] == pytest.approx(40 / 65.0)  # wall time scaled as well
    assert "Figures are in simulated time (time scale 10)" in report


def test_runs_of_one_label_are_pooled(tmp_path):
    first = closed_loop_level(1, 0, 1000.0, ttft=0.1, itl=0.05, tps=20, latency=6.0)
    second = closed_loop_level(1, 0, 9000.0, ttft=0.3, itl=0.05, tps=20, latency=6.0)
    a = write_run(tmp_path / "r", "x", first, stamp="20260101T000000Z")
    b = write_run(tmp_path / "r", "x", second, stamp="20260102T000000Z")
    summary, _ = _report(tmp_path, a, b)
    row = summary.iloc[0]
    assert (len(summary), row["n"], row["runs"]) == (1, 20, 2)
    assert row["ttft_ms_mean"] == pytest.approx(200.0)
    assert row["wall_s"] == pytest.approx(
        120.0
    )  # the two runs' wall times add, the gap between them does not


def test_a_folder_of_runs_stands_for_all_of_them(tmp_path):
    for label in ("a", "b"):
        write_run(
            tmp_path / "results",
            label,
            closed_loop_level(1, 0, 1000.0, ttft=0.1, itl=0.05, tps=20, latency=6.0),
        )
    assert [run.label for run in load([tmp_path / "results"]).runs] == ["a", "b"]


def test_a_run_named_as_dot_keeps_its_directory_name(tmp_path, monkeypatch):
    run_dir = write_run(
        tmp_path, "a", closed_loop_level(1, 0, 1000.0, ttft=0.1, itl=0.05, tps=20, latency=6.0)
    )
    monkeypatch.chdir(run_dir)
    assert load(["."]).runs[0].path.name == run_dir.name


def test_a_folder_of_runs_is_their_parent_even_beside_locust_csvs(tmp_path):
    """``--csv results/loc`` writes Locust's CSVs into the folder that holds the run dirs."""
    results = tmp_path / "results"
    run = write_run(
        results, "x", closed_loop_level(1, 0, 1000.0, ttft=0.29446, itl=0.05, tps=20, latency=6.0)
    )
    (results / "loc_stats.csv").write_text("Type,Name\nTTFT,c=1 warmup\n")
    dataset = load([results])
    assert [r.path for r in dataset.runs] == [run]
    assert dataset.csv_levels.empty
    assert dataset.records["ttft"].mean() == pytest.approx(0.29446)


def test_a_folder_with_only_locust_csvs_is_a_run(tmp_path):
    (tmp_path / "loc").mkdir()
    (tmp_path / "loc" / "loc_stats.csv").write_text("x")
    (tmp_path / "loc" / "charts").mkdir()  # a subfolder that is not a run changes nothing
    assert discover([tmp_path / "loc"]) == [tmp_path / "loc"]


def test_a_directory_without_records_is_an_input_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError):
        load([tmp_path / "empty"])


def test_single_token_responses_have_no_itl_unless_the_compatibility_switch_says_zero(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.4, per_user=3)
    records.append(
        make_record(
            1, 0, ttft=0.2, itl=None, tps=5.0, latency=0.2, start_time=1100.0, output_tokens=1
        )
    )
    run = write_run(tmp_path / "r", "x", records)
    default, _ = _report(tmp_path, run)
    assert (default.iloc[0]["itl_ms_mean"], default.iloc[0]["itl_n"]) == (pytest.approx(50.0), 3)
    compat, report = _report(tmp_path, run, extra=["--itl-null-as-zero"])
    assert compat.iloc[0]["itl_ms_mean"] == pytest.approx(37.5)  # (3 × 50 + 0) / 4
    assert "`--itl-null-as-zero`" in report


def test_cached_prompt_share_is_reported_per_level(tmp_path):
    records = [
        make_record(
            1,
            0,
            ttft=0.2,
            itl=0.05,
            tps=20,
            latency=6.4,
            start_time=1000.0 + 7 * i,
            prompt_tokens=100,
            cached_tokens=80 if i else 0,
        )
        for i in range(5)
    ]
    summary, _ = _report(tmp_path, write_run(tmp_path / "r", "x", records))
    assert summary.iloc[0]["cached_prompt_pct"] == pytest.approx(320 / 500 * 100)


def test_a_file_that_is_not_a_locust_stats_csv_is_an_input_error(tmp_path):
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "x_stats.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not a Locust stats CSV"):
        load([tmp_path / "odd"])


def test_a_manifest_written_before_the_typed_contract_still_loads(tmp_path):
    """The first load side wrote ``workload`` as a plain name and levels without checks."""
    run = write_run(
        tmp_path / "r",
        "x",
        closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5),
    )
    (run / MANIFEST_FILE).write_text((DATA / "manifest_v0.json").read_text())
    (loaded,) = load([run]).runs
    assert isinstance(loaded.manifest, Manifest)
    assert (loaded.label, loaded.variant, loaded.tp, loaded.status) == (
        "fp8-tp1",
        "FP8",
        1,
        "complete",
    )
    assert loaded.manifest.workload_name == "chat"
    assert [level.concurrency for level in loaded.manifest.levels] == [1, 2]
    assert "level C=2: 18 of 20 records received" in loaded.notes
    summary, report = _report(tmp_path, run)
    assert list(summary["label"]) == ["fp8-tp1"]
    assert "level C=2: 18 of 20 records received" in report


def test_a_run_without_a_manifest_gets_a_default_one_and_a_note(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5)
    run = write_run(tmp_path / "r", "x", records, stamp="20260101T000000Z")
    (run / MANIFEST_FILE).unlink()
    (loaded,) = load([run]).runs
    assert loaded.manifest == Manifest(label="x")
    assert (loaded.status, loaded.incomplete) == ("unknown (no manifest)", False)
    assert loaded.notes == ["no manifest.json: label taken from the directory name"]


def test_an_unreadable_manifest_is_noted_and_ignored(tmp_path):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=0.05, tps=20, latency=6.5)
    run = write_run(tmp_path / "r", "x", records)
    (run / MANIFEST_FILE).write_text('{"label": "x", "levels": [{"index": 0}')  # cut short
    (loaded,) = load([run]).runs
    assert loaded.manifest == Manifest(label="x")
    assert loaded.notes == ["unreadable manifest.json (JSONDecodeError): ignored"]


def prefill_records(prefill_seconds: list[float]) -> list[dict]:
    """Measured prefill-probe records of 2,000 prompt tokens, one per prefill time."""
    return [
        make_record(
            1,
            0,
            ttft=0.01,
            itl=None,
            tps=None,
            latency=0.01,
            start_time=1000.0 + i,
            output_tokens=1,
            prompt_tokens=2000,
            extra={"target_tokens": 2000, "prefill_s": seconds, "identical": False},
        )
        for i, seconds in enumerate(prefill_seconds)
    ]


def test_workload_fields_of_the_records_are_loaded_once_in_simulated_time(tmp_path):
    records = prefill_records([0.01, 0.01])
    loaded = load([write_run(tmp_path / "r", "x", records, time_scale=10.0)]).records
    assert list(loaded["extra_prefill_s"]) == pytest.approx([0.1, 0.1])  # 0.01 s × 10
    assert list(loaded["extra_target_tokens"]) == [2000, 2000]
    assert list(loaded["extra_identical"]) == [0, 0]


def test_an_agents_session_fields_are_loaded_as_text_and_numbers(tmp_path):
    def agent(start: float, **fields) -> dict:
        return make_record(
            1, 0, ttft=0.1, itl=0.01, tps=50.0, latency=1.0, start_time=start, **fields
        )

    records = [
        agent(1.0, agent_session="s", depth=0, extra={"compacted": 2, "compacted_from": 2600}),
        agent(2.0, agent_session="s1", parent_session="s", depth=1, extra={"subagent": "fork"}),
        agent(3.0),  # a record of another workload: empty text, NaN numbers
    ]
    loaded = load([write_run(tmp_path / "r", "agent", records)]).records
    assert list(loaded["agent_session"]) == ["s", "s1", ""]
    assert list(loaded["parent_session"]) == ["", "s", ""]
    assert list(loaded["extra_subagent"]) == ["", "fork", ""]
    assert list(loaded["depth"][:2]) == [0, 1] and pd.isna(loaded["depth"][2])
    assert list(loaded["extra_compacted"][:1]) == [2] and pd.isna(loaded["extra_compacted"][1])
    assert loaded["extra_compacted_from"][0] == 2600


def test_prefill_throughput_uses_the_loaders_simulated_prefill_time(tmp_path):
    records = prefill_records([0.01, 0.02])
    run = write_run(tmp_path / "r", "probe", records, time_scale=10.0)
    manifest = json.loads((run / MANIFEST_FILE).read_text())
    (run / MANIFEST_FILE).write_text(json.dumps({**manifest, "workload": {"name": "prefill"}}))
    out = tmp_path / "out"
    assert main([str(run), "--out", str(out), "--no-charts", "--quiet"]) == 0
    (table,) = (out / "tables").glob("*_probe_prefill.csv")
    row = pd.read_csv(table).iloc[0]
    assert (row["Run 1 tok/s"], row["Run 2 tok/s"]) == (
        pytest.approx(2000 / 0.1),  # 0.01 s measured = 0.1 s simulated
        pytest.approx(2000 / 0.2),
    )


def test_only_the_loader_reads_the_results_files():
    """One reader of requests.jsonl and manifest.json: every table sees the same records."""
    readers = [
        path.name
        for path in Path(analysis.__file__).parent.rglob("*.py")
        if re.search(r"REQUESTS_FILE|MANIFEST_FILE|read_manifest|requests\.jsonl", path.read_text())
    ]
    assert readers == ["load.py"]


def test_every_summary_metric_is_read_from_the_records():
    assert set(METRIC_BY_FIELD) <= {*NUMERIC_FIELDS, *THINKING_FIELDS, *per_request.SERVER_FIELDS}
