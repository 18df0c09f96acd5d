"""The report's Test conditions: what the runs were given, from their manifests; for several
labels, what they share and, a row per label, what differs."""

from __future__ import annotations

from analysis import report
from analysis.figures.metrics import Settings
from analysis.outputs import markdown
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, markdown_table, write_run

SETTINGS = Settings(bootstrap_resamples=0)
MANIFEST = {
    "model": "qwen3.6-27b-fp8",
    "ladder": [1],
    "requests_per_user": 10,
    "warmup_requests_per_level": 1,
    "workload": {"name": "chat", "max_tokens": 128, "ignore_eos": False},
    "prompts": {"count": 100, "path": "/somewhere/prompts.txt", "sha256": "ab" * 32},
    "sampling": {
        "max_tokens": 128,
        "temperature": 0.6,
        "top_p": 0.95,
        "chat_template_kwargs": {"enable_thinking": False},
    },
    "servers": {"http://127.0.0.1:8000": {"headers": {}, "version": "0.22.0"}},
    "versions": {"sparkload": "0.1.0", "locust": "2.47.0", "python": "3.11"},
}


def run(root, label, **fields):
    records = closed_loop_level(1, 0, 1_700_000_000.0, ttft=0.1, itl=0.01, tps=50, latency=1)
    return write_run(root, label, records, manifest_fields={**MANIFEST, **fields})


def report_md(runs) -> str:
    return markdown.render(report.build(load(runs), SETTINGS), with_images=False)


def conditions(text: str, title: str) -> dict[str, str]:
    return dict(row[:2] for row in markdown_table(text, title)[1:])


def test_the_report_opens_with_the_conditions_a_run_was_given(tmp_path):
    text = report_md([run(tmp_path, "fp8")])
    assert text.index("## 1. Test conditions") < text.index("## 3. Runs and method")
    said = conditions(text, "Conditions")
    assert said["Model"] == "qwen3.6-27b-fp8"
    assert said["Load"] == "concurrency 1"
    assert said["Requests"].startswith("10 per user per level")
    assert said["Warm-up"] == "1 request(s) per level, not measured"
    assert said["Max tokens"] == "128"
    assert said["Prompts"] == "100 prompts from `prompts.txt` (sha256 abababababab…); reused"
    assert said["Temperature"] == "0.6"
    assert said["Thinking"] == "off (chat_template_kwargs.enable_thinking: False)"
    assert said["Other sampling"] == "top_p=0.95"
    assert said["Server"] == "version 0.22.0"
    assert said["Client"] == "sparkload 0.1.0, Locust 2.47.0"


def test_a_run_that_set_no_thinking_says_what_its_replies_did(tmp_path):
    text = report_md([run(tmp_path, "fp8", sampling={"max_tokens": 128})])
    said = conditions(text, "Conditions")
    assert said["Thinking"] == "server default; no reply reasoned"
    assert said["Temperature"] == "server default"


def test_several_labels_share_one_table_and_list_what_differs_per_label(tmp_path):
    runs = [
        run(tmp_path, "fp8"),
        run(tmp_path, "fp8-long", sampling={**MANIFEST["sampling"], "max_tokens": 1024}),
    ]
    text = report_md(runs)
    shared = conditions(text, "Conditions of every label")
    assert shared["Model"] == "qwen3.6-27b-fp8" and "Max tokens" not in shared
    assert markdown_table(text, "Conditions that differ between labels") == [
        ["Label", "Max tokens"],
        ["fp8", "128"],
        ["fp8-long", "1024"],
    ]
