"""A worker whose wall clock is 2 s ahead (faketime): the master measures the offset, keeps it
per worker in the manifest and puts every record on its own clock."""

from __future__ import annotations

import json
import statistics

import pytest

from sparkload.records.requests_files import read_records
from tests.conftest import free_port
from tests.processes import FAKETIME, faked_clock, processes

pytestmark = [
    pytest.mark.e2e,  # a master and two worker processes
    pytest.mark.skipif(
        FAKETIME is None, reason="needs Debian's faketime (apt-get install faketime)"
    ),
]


@pytest.fixture(scope="module")
def skewed_run(tmp_path_factory):
    """The issue's run: --expect-workers 2 --ladder 4,8 --requests-per-user 3, one worker
    under faketime -f +2s; its manifest and records."""
    directory = tmp_path_factory.mktemp("skewed")
    port = str(free_port())
    with processes(directory) as started:
        started.start(
            "master",
            [
                "--headless",
                "--master",
                "--expect-workers",
                "2",
                "--master-bind-host",
                "127.0.0.1",
                "--master-bind-port",
                port,
                "--ladder",
                "4,8",
                "--requests-per-user",
                "3",
                "--results-dir",
                str(directory / "results"),
            ],
        )
        started.start("worker", ["--worker", "--master-port", port])
        started.start("ahead", ["--worker", "--master-port", port], prefix=faked_clock("+2s"))
        code = started.wait("master")
        output = started.output("master")
    assert code == 0, output
    (run_dir,) = (directory / "results").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    records = read_records(run_dir)
    return manifest, records


def ahead_and_other(manifest: dict) -> tuple[dict, dict]:
    """The faked worker is the one whose receive stamps had to be translated."""
    (ahead,) = [w for w in manifest["workers"] if w["receive_stamps"]["method"] == "translated"]
    (other,) = [w for w in manifest["workers"] if w is not ahead]
    return ahead, other


def test_the_manifest_holds_the_skewed_workers_offset_as_two_seconds(skewed_run):
    manifest, _records = skewed_run
    ahead, other = ahead_and_other(manifest)
    assert ahead["clock_offset"] == pytest.approx(2.0, abs=0.05)
    assert other["clock_offset"] == pytest.approx(0.0, abs=0.05)
    assert [r["at"] for r in ahead["clock_readings"]] == ["start", 0, 1]  # start, every level
    assert ahead["clock_flags"] == other["clock_flags"] == []


def test_in_every_level_the_workers_median_start_times_are_within_half_a_second(skewed_run):
    manifest, records = skewed_run
    for level in (0, 1):
        medians = [
            statistics.median(
                r["start_time"]
                for r in records
                if r["level_index"] == level and r["worker"] == str(w["index"])
            )
            for w in manifest["workers"]
        ]
        assert abs(medians[0] - medians[1]) < 0.5, (level, medians)


def test_each_record_says_by_how_much_it_was_shifted(skewed_run):
    manifest, records = skewed_run
    ahead, _other = ahead_and_other(manifest)
    shifted = {r["clock_offset"] for r in records if r["worker"] == str(ahead["index"])}
    assert shifted and all(offset == pytest.approx(2.0, abs=0.05) for offset in shifted)


def test_the_skewed_worker_measures_durations_as_well_as_the_other(skewed_run):
    manifest, records = skewed_run
    ahead, other = ahead_and_other(manifest)

    def ttfts(worker: dict) -> list[float]:
        return [r["ttft"] for r in records if r["worker"] == str(worker["index"])]

    assert not any(r["clock_adjusted"] for r in records)
    assert statistics.median(ttfts(ahead)) == pytest.approx(
        statistics.median(ttfts(other)), rel=0.5
    )
    assert min(ttfts(ahead)) > 0.01  # not clamped to the send: the stamps were translated


def test_the_counts_are_exact(skewed_run):
    manifest, records = skewed_run
    assert [level["received"] for level in manifest["levels"]] == [12, 24]
    assert len(records) == 12 + 24 + 2  # one warm-up per level
