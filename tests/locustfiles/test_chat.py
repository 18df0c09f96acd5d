"""The main job end to end: locust headless on the built-in simulator, locally and distributed."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.conftest import locust_workers, run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

LADDER = ["--headless", "--ladder", "1,2", "--requests-per-user", "2"]


def phase_counts(records: list[dict]) -> Counter:
    return Counter((r["level"], r["phase"]) for r in records)


EXPECTED = Counter({(1, "measure"): 2, (2, "measure"): 4, (1, "warmup"): 1, (2, "warmup"): 1})


def test_headless_run_without_host_uses_the_simulator_and_writes_exact_counts(tmp_path):
    run = run_locust(LADDER, tmp_path)
    assert run.returncode == 0, run.output
    assert "started the built-in DGX Spark simulator" in run.output
    assert phase_counts(run.records) == EXPECTED
    assert all(r["status"] == "ok" for r in run.records)
    # a complete run's records are all in one part, no pending lines left
    assert [p.name for p in (run.run_dir / "requests.parquet").iterdir()] == ["part-000000.parquet"]
    manifest = run.manifest
    assert manifest["status"] == "complete"
    assert manifest["simulator"]["profile"] == "awq-mtp"
    assert manifest["time_scale"] == 10
    assert [level["received"] for level in manifest["levels"]] == [2, 4]


def test_headless_run_prints_the_per_level_table_and_the_results_path(tmp_path):
    run = run_locust(LADDER, tmp_path)
    table = run.output[run.output.index("sparkload per-level results") :]
    rows = [line.split() for line in table.splitlines() if line.split()[:1] in (["1"], ["2"])]
    assert [row[:3] for row in rows] == [["1", "2", "0"], ["2", "4", "0"]]
    assert f"results: {run.run_dir}" in run.output


def test_records_are_complete_json_lines_with_the_contract_fields(tmp_path):
    run = run_locust(LADDER, tmp_path)
    for record in run.records:
        assert record["schema"] == 1
        assert 0 < record["ttfb"] <= record["ttft"] <= record["t_last_token"] <= record["latency"]
        assert record["output_tokens"] == 128 and record["tokens_counted_by"] == "usage"
        assert record["itl"] > 0 and record["tps"] > 0


def test_processes_2_gives_the_same_counts_as_a_local_run(tmp_path):
    run = run_locust([*LADDER, "--processes", "2"], tmp_path)
    assert run.returncode == 0, run.output
    assert phase_counts(run.records) == EXPECTED
    assert run.manifest["client"]["workers"] == 2


def test_master_and_two_workers_give_the_same_counts_as_a_local_run(tmp_path):
    with locust_workers(2) as port:
        run = run_locust(
            [*LADDER, "--master", "--expect-workers", "2", "--master-bind-port", port], tmp_path
        )
    assert run.returncode == 0, run.output
    assert phase_counts(run.records) == EXPECTED
    assert {r["worker"] for r in run.records if r["level"] == 2} == {"0", "1"}


def test_options_can_come_from_environment_variables(tmp_path):
    run = run_locust(
        ["--headless"],
        tmp_path,
        env={
            "SPARKLOAD_LADDER": "2",
            "SPARKLOAD_REQUESTS_PER_USER": "1",
            "SPARKLOAD_LABEL": "from-env",
        },
    )
    assert run.returncode == 0, run.output
    assert phase_counts(run.records) == Counter({(2, "measure"): 2, (2, "warmup"): 1})
    assert run.manifest["label"] == "from-env"


def test_options_can_come_from_locust_conf(tmp_path):
    (tmp_path / "locust.conf").write_text("ladder = 1\nrequests-per-user = 3\nlabel = from-conf\n")
    run = run_locust(["--headless"], tmp_path / "results", cwd=tmp_path)
    assert run.returncode == 0, run.output
    assert phase_counts(run.records) == Counter({(1, "measure"): 3, (1, "warmup"): 1})
    assert run.manifest["label"] == "from-conf"
