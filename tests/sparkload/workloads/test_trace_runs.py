"""Issue 18's must-shows, end to end: a Mooncake-style trace replayed at its timestamps with its
prefix structure, each line sent once across workers; a bad trace line stops before the load.
(Synthetic prompts' prefixes and lengths: test_fitting_synthetic_pool_runs.py; the arrival
processes: tests/sparkload/shapes/test_arrival_runs.py.)"""

from __future__ import annotations

import json

import pytest

from benchmarks.mooncake_trace import generate, write
from tests.conftest import locust_workers, run_locust
from tests.servers import running_sim
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure

pytestmark = pytest.mark.e2e  # starts Locust and simulator processes

BLOCK = 512


def reused_whole_blocks(lines: list[dict]) -> list[int]:
    """Per line (in time order): leading blocks that an earlier line sent whole."""
    sent: set[tuple[int, ...]] = set()
    out = []
    for line in lines:
        whole = line["hash_ids"][: line["input_length"] // BLOCK]
        prefixes = [tuple(whole[: i + 1]) for i in range(len(whole))]
        out.append(next((i for i, p in enumerate(prefixes) if p not in sent), len(prefixes)))
        sent.update(prefixes)
    return out


def test_a_mooncake_trace_is_replayed_at_its_timestamps_with_its_prefix_structure(tmp_path):
    lines = generate(seed=1)
    path = tmp_path / "trace.jsonl"
    write(path, lines)
    with running_sim("--time-scale", "1") as url:
        run = run_locust(
            ["--headless", "-H", url, "--trace", str(path), "--arrival-users", "256"],
            tmp_path / "results",
            timeout=240,
        )
    assert run.returncode == 0, run.output
    records = run.records
    assert len(records) == 200
    assert sorted(r["extra"]["trace_line"] for r in records) == list(range(1, 201))
    by_line = {r["extra"]["trace_line"]: r for r in records}
    # every line went at its timestamp (the schedule), with its lengths
    first = min(r["scheduled_time"] for r in records)
    for number, line in enumerate(lines, 1):
        record = by_line[number]
        assert record["scheduled_time"] - first == pytest.approx(
            (line["timestamp"] - lines[0]["timestamp"]) / 1000, abs=1e-3
        )
        assert record["prompt_tokens"] == line["input_length"]
        assert record["output_tokens"] == line["output_length"]
    # the trace's prefix structure reached the simulator's prefix cache
    expected = reused_whole_blocks(lines)
    served = sum(
        by_line[n]["cached_tokens"] >= BLOCK * reused - 16 for n, reused in enumerate(expected, 1)
    )
    assert served >= 0.9 * 200
    # no request waited for a client (256 users, 200 lines: a wait for a user would be seconds);
    # how late the loop sent them on a quiet machine is benchmarks/trace_replay.py's figure, not
    # a bound for a shared one (a load of 8 on 2 cores made the third-latest 0.43 s)
    lateness = sorted(r["queue_wait"] for r in records)
    assert lateness[len(lateness) // 2] < 0.05 and lateness[-3] < 1.0
    assert run.manifest["arrival"]["trace"]["lines"] == 200


def test_workers_each_send_their_own_lines_of_a_trace_once(tmp_path):
    lines = generate(sessions=4, turns=3, singles=48, span_s=6.0, seed=2)
    path = tmp_path / "trace.jsonl"
    write(path, lines)
    with locust_workers(2) as port:
        run = run_locust(
            [
                "--headless",
                "--trace",
                str(path),
                "--trace-speedup",
                "2",
                "--sim-profile",
                "fixed",
                "--master",
                "--expect-workers",
                "2",
                "--master-bind-port",
                port,
            ],
            tmp_path / "results",
            timeout=180,
        )
    assert run.returncode == 0, run.output
    numbers = sorted(r["extra"]["trace_line"] for r in run.records)
    assert numbers == list(range(1, len(lines) + 1))
    assert {r["worker"] for r in run.records} == {"0", "1"}


def test_a_trace_line_without_its_fields_stops_before_the_load(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text(
        json.dumps({"timestamp": 0, "input_length": 9, "output_length": 4})
        + "\n"
        + json.dumps({"timestamp": 5, "output_length": 4})
        + "\n"
    )
    run = run_locust(["--headless", "--trace", str(path)], tmp_path / "r")
    assert_clean_failure(run, f"--trace: {path} line 2: no input_length")
