"""The MTP section pairs labels by what ran (drafting from the manifest, the simulator or
/metrics), not by name, and shows each speed-up with the drafting twin's acceptance."""

from __future__ import annotations

import json

import pandas as pd

from analysis.cli import main
from analysis.figures import drafting
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, markdown_table, write_run

RATIO = "MTP speed-up ratio (TPS with MTP / TPS without) per concurrency"


def _run(root, label, tps, stamp, **manifest):
    records = closed_loop_level(1, 0, 1000.0, ttft=0.2, itl=1 / tps, tps=tps, latency=128 / tps)
    return write_run(root, label, records, stamp=stamp, **manifest)


def _simulated(spec: str, quantization: str = "qwen3.8-fp8") -> dict:
    return {
        "manifest_fields": {
            "simulator": {
                "profile": "qwen3.8-fp8",
                "spec": spec,
                "quantization": quantization,
                "max_num_batched_tokens": 2048,
            }
        }
    }


def _report(tmp_path, runs) -> str:
    out = tmp_path / "out"
    assert main([str(r) for r in runs] + ["--out", str(out), "--no-charts", "--quiet"]) == 0
    return (out / "report.md").read_text()


def _metrics(run, drafts: int, draft_tokens: int, accepted: int) -> None:
    """A level's /metrics snapshots: spec-decode counters only where drafts were made."""

    def samples(scale: int) -> list[dict]:
        counters = [("vllm:generation_tokens_total", 1000 * scale)]
        if drafts:
            counters += [
                ("vllm:spec_decode_num_drafts_total", drafts * scale),
                ("vllm:spec_decode_num_draft_tokens_total", draft_tokens * scale),
                ("vllm:spec_decode_num_accepted_tokens_total", accepted * scale),
            ]
        return [{"name": name, "labels": {}, "value": value} for name, value in counters]

    lines = [
        {"level_index": 0, "concurrency": 1, "when": when, "time": t, "samples": samples(k)}
        for when, t, k in (("start", 1000.0, 0), ("end", 1010.0, 1))
    ]
    (run / "server_metrics.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_labels_that_differ_in_the_simulators_drafting_only_pair_whatever_their_names(tmp_path):
    root = tmp_path / "results"
    plain = _run(root, "alpha", 8.0, "1", **_simulated("none"))
    drafted = _run(root, "beta", 20.0, "2", **_simulated("dspark:7"))
    other = _run(root, "gamma", 30.0, "3", **_simulated("dspark:7", "qwen3.8-nvfp4"))
    found = drafting.deployments(load([plain, drafted, other]), pd.DataFrame())
    assert drafting.pairs(found) == [("alpha", "beta")]
    assert found["beta"].drafting == drafting.Drafting("dspark", 7, drafting.FROM_SIMULATOR)


def test_a_drafting_label_named_otherwise_is_not_a_quantization_pair(tmp_path):
    root = tmp_path / "results"
    runs = [
        _run(root, "fp8", 8.0, "1", **_simulated("none")),
        _run(root, "fp8-fast", 20.0, "2", **_simulated("ngram:4")),
    ]
    report = _report(tmp_path, runs)
    assert "**TPS (tok/s): fp8 vs fp8-fast**" not in report
    assert markdown_table(report, RATIO)[1][:2] == ["1", "2.50x"]


def test_a_real_servers_drafting_is_read_from_its_spec_decode_counters(tmp_path):
    root = tmp_path / "results"
    model = {"manifest_fields": {"model": "Qwen/Qwen3.6-27B-FP8"}}
    plain = _run(root, "served", 8.0, "1", **model)
    ngram = _run(root, "served-fast", 16.0, "2", **model)
    _metrics(plain, 0, 0, 0)
    _metrics(ngram, drafts=100, draft_tokens=400, accepted=150)
    report = _report(tmp_path, [plain, ngram])
    rows = markdown_table(report, RATIO)
    assert rows[0] == [
        "Concurrency",
        "served MTP ratio",
        "served-fast acceptance",
        "served-fast tokens/step",
    ]
    assert rows[1] == ["1", "2.00x", "37.5%", "2.50"]  # 150 / 400; 1 + 150 / 100
    table = markdown_table(report, "What each label ran: quantization and drafting")
    assert table[2] == [
        "served-fast",
        "Qwen/Qwen3.6-27B-FP8",
        "served model",
        "drafting k=4",
        "/metrics",
    ]


def test_the_users_metadata_names_drafting_and_quantization_first(tmp_path):
    root = tmp_path / "results"
    runs = [
        _run(root, "a", 8.0, "1", manifest_fields={"metadata": {"quantization": "fp8"}}),
        _run(
            root,
            "b",
            16.0,
            "2",
            manifest_fields={"metadata": {"quantization": "FP8", "spec": "eagle:3"}},
        ),
    ]
    found = drafting.deployments(load(runs), pd.DataFrame())
    assert drafting.pairs(found) == [("a", "b")]
    assert found["b"].drafting.describe() == "eagle k=3"


def test_labels_at_different_tp_sizes_do_not_pair(tmp_path):
    root = tmp_path / "results"
    runs = [
        _run(root, "a", 8.0, "1", **_simulated("none")),
        _run(root, "b", 20.0, "2", tp=2, **_simulated("mtp:3")),
    ]
    assert drafting.pairs(drafting.deployments(load(runs), pd.DataFrame())) == []
