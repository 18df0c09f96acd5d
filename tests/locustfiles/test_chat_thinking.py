"""A thinking model end to end (issue 26, must-show 1): against the simulator streaming 64
reasoning tokens before every answer, every level reports its time to answer (TTFO) at least
64 tokens' time after its TTFT, 64 reasoning tokens per request counted apart from the answer,
and a TTFO bound fails the run where the same bound on TTFT passes it."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from sparkload.records import EXIT_CHECK_FAILED
from tests.conftest import ROOT, run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

REASONING = 64
ANSWER = 32
ITL_MS = 8.0  # the simulator's fixed gap between tokens (one token a chunk)
TTFT_MS = 30.0
BOUND_MS = 300  # between TTFT (~30 ms) and TTFO (~30 + 64 x 8 = 542 ms)


def summary(run_dir, tmp_path) -> list[dict]:
    out = tmp_path / "report"
    subprocess.run(
        [sys.executable, "-m", "analysis", str(run_dir), "--out", str(out), "--no-charts"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with (out / "summary.csv").open() as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_a_thinking_models_time_to_answer_per_level_and_its_bound(simulator, tmp_path, field):
    host = simulator(
        "fixed",
        1.0,
        "--fixed-ttft-ms",
        f"{TTFT_MS:g}",
        "--fixed-itl-ms",
        f"{ITL_MS:g}",
        "--reasoning-tokens",
        str(REASONING),
        "--reasoning-field",
        field,
    )
    run = run_locust(
        [
            "--headless",
            "-H",
            host,
            "--ladder",
            "1,2",
            "--requests-per-user",
            "2",
            "--max-tokens",
            str(REASONING + ANSWER),
            "--check",
            f"ttfo_p90_ms<={BOUND_MS}",
        ],
        tmp_path / "results",
    )
    # the TTFO bound fails every level: one line each, exit 4; nothing failed
    assert run.returncode == EXIT_CHECK_FAILED, run.output
    breaches = [line for line in run.output.splitlines() if line.startswith("check failed")]
    assert len(breaches) == 2 and all("ttfo_p90_ms" in line for line in breaches), run.output
    assert run.manifest["status"] == "complete"
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert len(measured) == 6 and all(r["status"] == "ok" for r in measured)
    # per request: the reasoning counted apart from the answer, TTFO after the reasoning
    for record in measured:
        assert (record["reasoning_tokens"], record["answer_tokens"]) == (REASONING, ANSWER)
        assert record["output_tokens"] == REASONING + ANSWER
        # (the last reasoning and the first answer chunk share a time when one read took both)
        assert record["ttft"] < record["t_last_reasoning"] <= record["ttfo"]
    # per level: TTFO later than TTFT by at least the time of 64 tokens at the level's ITL
    # (the simulator's gaps are fixed: TTFO - TTFT is 64 of them; 2 % for a busy machine)
    levels = summary(run.run_dir, tmp_path)
    assert [int(level["concurrency"]) for level in levels] == [1, 2]
    for level in levels:
        ttft, ttfo, itl = (float(level[k]) for k in ("ttft_ms_mean", "ttfo_ms_mean", "itl_ms_mean"))
        assert ttfo - ttft >= 0.98 * REASONING * itl, level
        assert float(level["ttfo_ms_p50"]) - float(level["ttft_ms_p50"]) >= 0.98 * REASONING * itl
        assert float(level["reasoning_tokens_mean"]) == REASONING
        assert float(level["answer_tokens_mean"]) == ANSWER
        assert float(level["ttft_ms_p90"]) <= BOUND_MS < float(level["ttfo_ms_p90"])
        assert int(level["no_answer"]) == 0
    # the same bound on TTFT alone passes the run
    check = subprocess.run(
        [sys.executable, "-m", "analysis", str(run.run_dir), "--check", f"ttft_p90_ms<={BOUND_MS}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0 and "check passed" in check.stdout, check.stdout + check.stderr
    # the live table at the end of the run shows the time to answer beside TTFT
    assert "TTFO ms mean" in run.output and "no answer" in run.output


def test_a_reply_that_never_leaves_its_reasoning_is_ok_and_counted_per_level(simulator, tmp_path):
    host = simulator("fixed", 1.0, "--fixed-itl-ms", "2", "--reasoning-tokens", str(REASONING))
    run = run_locust(
        ["--headless", "-H", host, "--ladder", "1", "--requests-per-user", "3"]
        + ["--max-tokens", "16"],
        tmp_path / "results",
    )
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert all(r["status"] == "ok" and r["finish_reason"] == "length" for r in measured)
    assert all("ttfo" not in r and r["reasoning_tokens"] == 16 for r in measured)
    (level,) = summary(run.run_dir, tmp_path)
    assert (level["n"], level["no_answer"], level["failures"]) == ("3", "3", "0")
    assert level["ttfo_ms_mean"] == ""  # never a made-up TTFO
