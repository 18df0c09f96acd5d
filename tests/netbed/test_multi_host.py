"""A distributed run across hosts, on one machine: the namespace test bed (tests.netbed).

The master, two client hosts with two worker processes each (the remote one 2 ms away, with
0.5 % loss on its link, and its wall clock 2 s ahead under faketime), a simulated TP2 head and
its second node (``sparkload node-exporter`` with a stand-in nvidia-smi), each in its own
network namespace. The ladder runs; when the second level's first record from the remote host
reaches the master, that host's workers are killed; the master must stop with exit code 3,
keeping every record that reached it.
"""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from sparkload.records.requests_files import read_records
from sparkload.run.simulator_process import READY_PREFIX
from tests.conftest import locust_command
from tests.netbed import Host, NetBed, require
from tests.processes import FAKETIME, faked_clock
from tests.sparkload.test_node_exporter_process import READY as EXPORTER_READY
from tests.sparkload.test_node_exporter_process import STAND_IN

pytestmark = [
    pytest.mark.e2e,  # makes namespaces and starts a dozen processes
    pytest.mark.skipif(
        FAKETIME is None, reason="needs Debian's faketime (apt-get install faketime)"
    ),
]

HOSTS = [
    Host("master", delay_ms=0.1),
    Host("client-a", delay_ms=0.1),  # 0.2 ms from the Sparks and the master, one way
    Host("client-b", delay_ms=1.9, loss=0.005),  # the remote client: 2 ms, and a lossy link
    Host("head", delay_ms=0.1),
    Host("node2", delay_ms=0.1),
]
REQUESTS_PER_USER = 20
SPARKLOAD = str(Path(sys.executable).with_name("sparkload"))
DEADLINE = 240  # seconds the whole bed may live


@dataclass
class BedRun:
    code: int
    output: str
    manifest: dict
    records: list[dict]
    nodes_scraped: set[str]
    killed_at_records: int


def remote_indices(manifest: dict) -> set[str]:
    return {str(w["index"]) for w in manifest["workers"] if w["hostname"] == "client-b"}


def wait_for_remote_record(results: Path, level_index: int, timeout: float) -> int:
    """Until a record of ``level_index`` from client-b is in the run directory (bounded); how
    many records were there."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for manifest_path in results.glob("*/manifest.json"):
            remote = remote_indices(json.loads(manifest_path.read_text()))
            # the master may be writing: the reader skips a half-written last line
            records = read_records(manifest_path.parent)
            if any(r["level_index"] == level_index and r["worker"] in remote for r in records):
                return len(records)
        time.sleep(0.1)
    raise AssertionError(f"no record of level {level_index + 1} from client-b in {timeout} s")


@pytest.fixture(scope="module")
def bed_run(tmp_path_factory) -> BedRun:
    require()
    directory = tmp_path_factory.mktemp("bed")
    results = directory / "results"
    nvidia_smi = directory / "nvidia-smi"
    nvidia_smi.write_text(STAND_IN)
    nvidia_smi.chmod(0o755)
    with NetBed(HOSTS, directory, DEADLINE) as bed:
        at = bed.addresses
        api = bed.serve(
            "head",
            [sys.executable, "-m", "sparkload.sim", "--tp", "2", "--time-scale", "10"]
            + ["--host", at["head"], "--port", "8000"],
            READY_PREFIX,
            "the simulated TP2 head",
        )
        node2 = bed.serve(
            "node2",
            [SPARKLOAD, "node-exporter", "--host", at["node2"], "--port", "9401"]
            + ["--nvidia-smi", str(nvidia_smi)],
            EXPORTER_READY,
            "the second node's exporter",
        )
        master = bed.start(
            "master",
            "master",
            locust_command(
                *("--headless", "--master", "--expect-workers", "4"),
                *("--master-bind-host", at["master"], "--master-bind-port", "5557"),
                *("-H", api, "--tp", "2", "--nodes", "2"),
                *("--scrape", f"spark-1={api}/node/1/metrics", "--scrape", f"spark-2={node2}"),
                *("--ladder", "4,8", "--requests-per-user", str(REQUESTS_PER_USER)),
                *("--max-tokens", "64", "--results-dir", str(results)),
            ),
        )
        worker = locust_command("--worker", "--master-host", at["master"], "--master-port", "5557")
        for i in (1, 2):
            bed.start("client-a", f"client-a-{i}", worker)
            bed.start("client-b", f"client-b-{i}", [*faked_clock("+2s"), *worker])
        seen = wait_for_remote_record(results, level_index=1, timeout=150)
        for i in (1, 2):
            bed.kill(f"client-b-{i}")
        code = master.wait(timeout=120)
        output = bed.output("master")
    (run_dir,) = results.iterdir()
    snapshots = (run_dir / "server_metrics.jsonl").read_text().splitlines()
    return BedRun(
        code,
        output,
        json.loads((run_dir / "manifest.json").read_text()),
        read_records(run_dir),
        {json.loads(line)["node"] for line in snapshots},
        seen,
    )


def test_losing_a_host_mid_run_stops_the_run_with_exit_code_3(bed_run):
    assert bed_run.code == 3, bed_run.output
    assert bed_run.manifest["status"] == "aborted"
    lost = re.search(r"worker (.*) stopped responding", bed_run.manifest["abort_reason"]).group(1)
    # one or both of its workers, as the heartbeats ran out: only the lost host's
    assert set(re.findall(r"\((client-[ab])_", lost)) == {"client-b"}


def test_every_record_that_reached_the_master_is_kept_once(bed_run):
    said = re.search(r"The (\d+) records received are kept", bed_run.manifest["abort_reason"])
    assert int(said.group(1)) == len(bed_run.records) >= bed_run.killed_at_records
    ids = [r["request_id"] for r in bed_run.records]
    assert len(ids) == len(set(ids))


def test_the_lost_hosts_records_of_both_levels_are_kept(bed_run):
    remote = remote_indices(bed_run.manifest)
    for level in (0, 1):
        assert [r for r in bed_run.records if r["level_index"] == level and r["worker"] in remote]


def test_the_level_before_the_loss_has_its_exact_count(bed_run):
    first = [r for r in bed_run.records if r["level_index"] == 0]
    assert len([r for r in first if r["phase"] == "measure"]) == 4 * REQUESTS_PER_USER
    assert len([r for r in first if r["phase"] == "warmup"]) == 1
    assert bed_run.manifest["levels"][0]["received"] == 4 * REQUESTS_PER_USER


def test_each_worker_is_named_by_its_host(bed_run):
    hosts = sorted(w["hostname"] for w in bed_run.manifest["workers"])
    assert hosts == ["client-a", "client-a", "client-b", "client-b"]
    assert all(w["node"].startswith(w["hostname"] + "_") for w in bed_run.manifest["workers"])


def test_clock_offsets_are_measured_across_the_links(bed_run):
    for worker in bed_run.manifest["workers"]:
        remote = worker["hostname"] == "client-b"
        assert worker["clock_offset"] == pytest.approx(2.0 if remote else 0.0, abs=0.05)
        # a round trip crosses the master's link and the worker's twice: 4 ms, or 0.4 ms
        assert worker["clock_rtt"] >= (0.004 if remote else 0.0004)


def test_the_head_and_the_second_node_were_scraped(bed_run):
    assert {"api", "spark-1", "spark-2"} <= bed_run.nodes_scraped
