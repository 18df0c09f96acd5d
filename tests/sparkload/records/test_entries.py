"""The manifest's typed entries read every form their writers produce and write it back
unchanged: same keys, same values, nulls and absent keys kept apart."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from sparkload.records import (
    ArrivalEntry,
    CapacityEntry,
    ClientEntry,
    Entry,
    LevelEntry,
    Manifest,
    PromptsEntry,
    RefusedWorker,
    RequestEntry,
    ServerEntry,
    SimulatorEntry,
    WorkerEntry,
    WorkloadEntry,
)
from tests.conftest import ROOT

STAMPS = {"method": "kernel", "split_ms": 0.0, "uncertainty_us": 4.1}
TRACE = {
    "path": "t.jsonl",
    "format": "mooncake",
    "sha256": "ab",
    "lines": 200,
    "span_s": 59.5,
    "block_tokens": 512,
}
STREAM = {
    "requests": 11,
    "chunk_gap_p50_ms": None,
    "ttft_share_of_latency": 0.086,
    "ttft_minus_ttfb_ms": 50.391,
    "ttft_minus_ttfb_share": 0.975,
    "tail_ms": 0.0,
    "itl_ms": None,
    "burst_chunks": None,
    "burst_of_chunks": None,
    "clock_adjusted": 0,
    "resent": 0,
}
CLIENT_CHECK = {
    "processes": 1,
    "samples": 0,
    "lagging_share": None,
    "lag_max_ms": 0.0,
    "cpu_pct_max": 8.0,
    "cpu_s": 0.121,
    "runqueue_pct_max": 2.2,
}


def level(**fields: object) -> dict:
    base = {"index": 0, "concurrency": 4, "expected": None, "started_at": "t", "ended_at": None}
    return {
        **base,
        "received": 0,
        "client": {},
        "client_flags": [],
        "stream": {},
        "stream_flags": [],
        "stream_flag_kinds": [],
        "arrival_rate": None,
        "saturation": None,
        "unsent": 0,
        "schedule": {},
        **fields,
    }


FORMS: list[tuple[type[Entry], dict]] = [
    (LevelEntry, level()),  # begun, not yet ended
    (LevelEntry, level(stream={"requests": 0}, client=CLIENT_CHECK)),  # nothing answered
    (LevelEntry, level(stream=STREAM, schedule={"arrivals": 11, "gap_cv": None})),
    (
        ArrivalEntry,
        {
            "rates": [1.0, 2.0],
            "users": 64,
            "duration": 10.0,
            "process": "gamma",
            "burstiness": 0.5,
            "time": "target",
        },
    ),
    (
        ArrivalEntry,
        {
            "rates": [3.4],
            "users": 8,
            "duration": 59.5,
            "trace": TRACE,
            "speedup": 2.0,
            "time": "target",
        },
    ),
    (ServerEntry, {"headers": {"server": "aiohttp"}}),
    (ServerEntry, {"headers": {}, "version": "0.11.0", "version_source": "/version"}),
    (
        WorkloadEntry,
        {
            "name": "prefill",
            "max_tokens": 1,
            "ignore_eos": False,
            "identical_prompts": False,
            "cache_bust": False,
            "prefill_sizes": [2000, 4000],
        },
    ),
    (
        WorkloadEntry,
        {
            "name": "conversation",
            "max_tokens": 128,
            "ignore_eos": False,
            "turns": 3,
            "turns_stddev": 0.0,
            "requests_per_session": 3,
            "think_time_s": 0.0,
            "history": "model",
            "conversations": "synthetic",
        },
    ),
    (PromptsEntry, {"path": "prompts.txt", "sha256": "e1", "count": 100}),
    (
        PromptsEntry,
        {
            "generator": "filler",
            "seed": 0,
            "count": 16,
            "input_tokens": None,  # a distribution: its lengths say it
            "token_count": {"method": "server:/tokenize", "exact": True, "min": 768},
            "lengths": [
                {
                    "input_tokens": 1000,
                    "input_stddev": 200,
                    "output_tokens": None,
                    "output_stddev": 0.0,
                    "weight": 1.0,
                }
            ],
            "prefix": {"tokens": 512, "count": 2, "counted": [512, 512]},
        },
    ),
    (PromptsEntry, {"generator": "blocks", "salt": "", "block_tokens": 512, "trace": TRACE}),
    (ClientEntry, {"runner": "local", "workers": 1, "processes": None, "receive_stamps": STAMPS}),
    (ClientEntry, {"runner": "master", "workers": 2, "processes": 4}),
    (
        WorkerEntry,
        {
            "node": "host-a_1",
            "index": 0,
            "hostname": "host-a",
            "clock_offset": 2.0,
            "clock_rtt": 0.001,
            "clock_readings": [
                {"at": "start", "offset": 2.0, "rtt": 0.001},
                {"at": 1, "offset": 2.1, "rtt": 0.002},
            ],
            "clock_flags": [],
            "receive_stamps": {**STAMPS, "note": "translated"},
            "secrets": {"api_key": True, "headers": ["x-tenant"]},
        },
    ),
    (
        WorkerEntry,
        {
            "node": "host-b_2",
            "index": 1,
            "hostname": "",
            "clock_offset": None,
            "clock_rtt": None,
            "clock_readings": [],
            "clock_flags": ["offset unknown"],
            "receive_stamps": {},
            "secrets": {},
        },
    ),
    (RefusedWorker, {"node": "x_3", "hostname": "x", "reason": "wrong proof", "at": "t"}),
    (
        CapacityEntry,
        {
            "bounds": "ttft_p90_ms<=800",
            "over": "concurrency",
            "capacity": None,
            "probes": [
                {
                    "value": 1,
                    "level_index": 0,
                    "level": "C=1",
                    "meets": False,
                    "figures": {"ttft_p90_ms<=800": None},
                    "breaches": ["ttft_p90_ms = 900 > 800"],
                }
            ],
            "limit": None,
            "complete": False,
        },
    ),
]


@pytest.mark.parametrize(("kind", "written"), FORMS, ids=lambda x: getattr(x, "__name__", ""))
def test_every_form_a_writer_produces_reads_and_writes_back_unchanged(kind, written):
    assert kind.from_dict(written).to_dict() == written


def test_the_request_settings_keep_the_order_the_report_lists_them_in():
    written = {
        "api": "chat",
        "extra_body": {"top_k": 20, "stop": None},
        "headers": ["x-tenant"],
        "accept_encoding": "identity",
        "cache_bust": False,
    }
    assert json.dumps(RequestEntry.from_dict(written).to_dict()) == json.dumps(written)


def test_the_first_open_loop_manifests_single_rate_reads_with_no_rates_and_real_time():
    entry = ArrivalEntry.from_dict({"rate": 4, "users": 16, "duration": 5})
    assert (entry.rate, entry.rates, entry.time) == (4, [], None)


def test_a_simulator_entry_from_before_the_effective_setup_reads_the_defaults_of_its_time():
    written = {"profile": "qwen3.8-int4", "spec": None, "max_num_batched_tokens": 16384}
    entry = SimulatorEntry.from_dict(written)
    assert (entry.spec, entry.max_num_batched_tokens) == ("dspark:7", 16384)


def test_a_simulator_entry_from_before_the_weights_were_recorded_reads_its_profiles():
    entry = SimulatorEntry.from_dict({"profile": "fp8-mtp", "spec": "mtp:3"})
    assert entry.quantization == "fp8"


def test_fixed_timing_has_no_speculation_or_budget_to_read():
    entry = SimulatorEntry.from_dict({"profile": "fixed", "spec": None})
    assert (entry.spec, entry.max_num_batched_tokens) == (None, None)


def test_a_malformed_capacity_entry_reads_as_none_and_is_kept_as_written():
    manifest = Manifest.from_dict({"capacity": "lots"})
    assert manifest.capacity is None and manifest.to_dict()["capacity"] == "lots"


def test_cache_bust_reads_from_the_workload_where_older_manifests_kept_it():
    manifest = Manifest.from_dict({"workload": {"name": "chat", "cache_bust": True}})
    assert manifest.workload.cache_bust and manifest.request is None


def _loose(annotation: ast.expr) -> bool:
    """``Any`` anywhere in the annotation, or a ``dict`` without its key and value types."""
    names = [n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)]
    typed_dicts = [
        n
        for n in ast.walk(annotation)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == "dict"
    ]
    return "Any" in names or names.count("dict") > len(typed_dicts)


def loose_fields(file: Path, classes: set[str]) -> list[str]:
    """The fields of ``classes`` (defined in ``file``) annotated loosely."""
    return [
        f"{node.name}.{item.target.id}"
        for node in ast.parse(file.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ClassDef) and node.name in classes
        for item in node.body
        if isinstance(item, ast.AnnAssign)
        and isinstance(item.target, ast.Name)
        and _loose(item.annotation)
    ]


def test_the_loose_field_count_sees_any_and_a_bare_dict(tmp_path):
    source = "class A:\n    a: dict\n    b: dict[str, Any] | None\n    c: dict[str, int]\n"
    (tmp_path / "m.py").write_text(source)
    assert loose_fields(tmp_path / "m.py", {"A"}) == ["A.a", "A.b"]


def test_the_manifests_classes_type_every_field_but_the_unknown_keys():
    """Manifest, LevelEntry and WorkerEntry, with the Entry base they share, leave loosely typed
    at most their three ``unknown``s: what this version cannot read (one, inherited, here)."""
    records = ROOT / "sparkload" / "records"
    loose = loose_fields(records / "manifest.py", {"Manifest", "LevelEntry", "WorkerEntry"})
    loose += loose_fields(records / "codec.py", {"Entry"})
    assert len(loose) <= 3 and all(name.endswith(".unknown") for name in loose), loose
