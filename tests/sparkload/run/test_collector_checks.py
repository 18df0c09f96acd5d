"""The collector's verdicts on a level: each check says "no data" where there was nothing to judge,
the live table abbreviates a long client check (the manifest keeps it whole), and a burst is
blamed on what the run identified: an intermediary, the client, else the server."""

from __future__ import annotations

from sparkload.records import Manifest, ServerEntry
from sparkload.run.collector import RunCollector
from sparkload.run.livetable import NO_DATA, format_table
from sparkload.run.results import ResultsWriter

STARVED = {"samples": 30, "lagging": 12, "lag_max_ms": 150.0, "cpu_s": 2.9, "wall_s": 3.0,
           "runqueue_s": 1.0}  # fmt: skip
IDLE = {"samples": 30, "lagging": 0, "lag_max_ms": 1.0, "cpu_s": 0.3, "wall_s": 3.0,
        "runqueue_s": 0.0}  # fmt: skip


def collector(tmp_path, manifest: Manifest | None = None) -> RunCollector:
    manifest = manifest or Manifest(label="run")
    return RunCollector(lambda run: ResultsWriter(tmp_path, manifest), 1.0)


def failed() -> dict:
    return {"level_index": 0, "level": 2, "phase": "measure", "status": "error", "ttft": None,
            "error_kind": "http_500"}  # fmt: skip


def bursty(burst: int = 40) -> dict:
    """An answered request of 64 tokens 10 ms apart, ``burst`` of them released together."""
    return {"level_index": 0, "level": 2, "phase": "measure", "status": "ok", "ttfb": 0.05,
            "ttft": 0.1, "t_last_token": 0.73, "latency": 0.7302, "chunk_gap_p50": 0.01,
            "itl": 0.01, "chunks": 64, "output_tokens": 64, "burst_chunks": burst}  # fmt: skip


def one_level(master: RunCollector, records: list[dict], load: dict = IDLE) -> dict:
    master.begin_level(0, 2, len(records))
    master.take({"node": "local", "issued": len(records), "records": records,
                 "monitor": {"0": load}})  # fmt: skip
    master.end_level(0)
    (row,) = master.rows()
    return row


def test_a_level_where_every_request_failed_has_no_data_for_either_check(tmp_path):
    row = one_level(collector(tmp_path), [failed(), failed()])
    assert (row["n"], row["client"], row["stream"]) == (0, NO_DATA, NO_DATA)


def test_a_level_with_answers_and_a_clean_path_is_ok_on_both(tmp_path):
    row = one_level(collector(tmp_path), [bursty(burst=1), bursty(burst=1)])
    assert (row["client"], row["stream"]) == ("ok", "ok")


def test_the_live_table_abbreviates_a_starved_clients_check_and_the_manifest_keeps_it_whole(
    tmp_path,
):
    master = collector(tmp_path)
    row = one_level(master, [bursty(burst=1)] * 2, STARVED)
    assert row["client"] == "lag 12/30 worst 150 ms; CPU 97 %; starved 33 %"
    (level,) = master.manifest.levels
    assert level.client_flags[2] == (
        "client starved of CPU: waited for a free core 33 % of the time"
    )
    assert max(len(line) for line in format_table(master.rows()).splitlines()) < 200


def test_bursts_on_a_direct_path_with_an_idle_client_are_the_servers(tmp_path):
    master = collector(tmp_path)
    row = one_level(master, [bursty()] * 3)
    (level,) = master.manifest.levels
    assert row["stream"] == "partial burst 40/64 from server"
    assert "arrived in bursts from the server" in level.stream_flags[0]
    assert "intermediary" not in level.stream_flags[0].replace("no intermediary identified", "")


def test_bursts_behind_a_proxy_the_responses_named_are_the_intermediarys(tmp_path):
    manifest = Manifest(label="run")
    manifest.servers["http://h"] = ServerEntry({"server": "uvicorn", "via": "1.1 gateway"})
    master = collector(tmp_path, manifest)
    row = one_level(master, [bursty()] * 3)
    assert row["stream"] == "partial burst 40/64 from intermediary"
    assert "(via: 1.1 gateway)" in master.manifest.levels[0].stream_flags[0]


def test_bursts_on_a_level_whose_client_was_starved_are_the_clients(tmp_path):
    master = collector(tmp_path)
    row = one_level(master, [bursty()] * 3, STARVED)
    assert row["stream"] == "partial burst 40/64 from client"
    assert "the client read late (" in master.manifest.levels[0].stream_flags[0]
