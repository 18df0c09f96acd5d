"""``--api embeddings`` end to end on the built-in simulator: the ladder with ``--batch-size``,
``--check`` on a latency bound, open loop, and the summary's inputs and input tokens per second."""

from __future__ import annotations

import pytest

from sparkload.records import EXIT_CHECK_FAILED
from tests.conftest import LocustRun, run_locust
from tests.report_files import report_summary

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

EMBED = ["--headless", "--api", "embeddings", "--batch-size", "4"]


def summary_of(run: LocustRun) -> dict:
    return report_summary(run.run_dir)


@pytest.fixture(scope="module")
def ladder(tmp_path_factory) -> tuple[LocustRun, dict]:
    results = tmp_path_factory.mktemp("embeddings")
    run = run_locust([*EMBED, "--ladder", "1,2", "--requests-per-user", "2"], results)
    assert run.returncode == 0 and run.run_dir is not None, run.output
    return run, summary_of(run)


def test_every_request_is_ok_and_carries_its_batch_of_inputs(ladder):
    run, _ = ladder
    assert len(run.records) == 2 + 6  # a warm-up a level, then C x 2
    assert {(r["status"], r["inputs"]) for r in run.records} == {("ok", 4)}


def test_records_have_a_latency_and_prompt_tokens_and_no_stream_figures(ladder):
    run, _ = ladder
    for record in run.records:
        assert record["latency"] > 0 and record["prompt_tokens"] > 0
        assert (record["ttft"], record["itl"], record["output_tokens"]) == (None, None, None)


def test_the_summary_gives_inputs_and_input_tokens_per_second_per_level(ladder):
    run, summary = ladder
    for level in summary["levels"]:
        measured = [
            r for r in run.records if r["level"] == level["concurrency"] and r["phase"] == "measure"
        ]
        tokens = sum(r["prompt_tokens"] for r in measured)
        assert level["inputs_sum"] == 4 * len(measured)
        assert level["inputs_per_s"] == pytest.approx(level["inputs_sum"] / level["wall_s"])
        assert level["input_tokens_per_s"] == pytest.approx(tokens / level["wall_s"])


def test_the_summary_shows_no_ttft_and_no_output_throughput(ladder):
    _, summary = ladder
    for level in summary["levels"]:
        assert level["ttft_ms_mean"] is None and level["measured_total_tps"] is None


def test_the_report_says_why_there_is_no_ttft(ladder):
    run, _ = ladder
    report = (run.run_dir / "report" / "report.md").read_text()
    assert "there is no first token to time, so no TTFT" in report


def test_check_judges_a_latency_bound(tmp_path):
    args = [*EMBED, "--ladder", "1", "--requests-per-user", "2"]
    held = run_locust([*args, "--check", "latency_p90_s<=600"], tmp_path / "held")
    broken = run_locust([*args, "--check", "latency_p90_s<=0.000001"], tmp_path / "broken")
    assert held.returncode == 0, held.output
    assert broken.returncode == EXIT_CHECK_FAILED, broken.output


def test_open_loop_sends_batches_at_the_offered_rate(tmp_path):
    run = run_locust(
        [*EMBED, "--arrival-rate", "4", "--arrival-duration", "2", "--seed", "3"], tmp_path
    )
    assert run.returncode == 0 and run.run_dir is not None, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert measured and all(r["status"] == "ok" and r["inputs"] == 4 for r in measured)
    assert all(r["scheduled_time"] is not None for r in measured)


@pytest.mark.parametrize("flag", ["--check", "--find-capacity"])
def test_a_ttft_bound_is_refused_before_the_load(tmp_path, flag):
    run = run_locust([*EMBED, flag, "ttft_p90_ms<=500"], tmp_path)
    assert run.returncode == 2 and run.run_dir is None, run.output
    assert "--api embeddings answers with one body, not a stream" in run.output
    assert "Traceback" not in run.output


def test_the_capacity_search_judges_a_latency_bound(tmp_path):
    run = run_locust(
        [*EMBED, "--find-capacity", "latency_p90_s<=600", "--capacity-max", "2"]
        + ["--requests-per-user", "1"],
        tmp_path,
    )
    assert run.returncode == 0, run.output
    assert run.manifest["capacity"]["capacity"] == 2  # every probe up to the cap met the bound
