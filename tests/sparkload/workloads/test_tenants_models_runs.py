"""A traffic class's own mix of models (issue 45, LoRA): each user of the class deals its
requests over the class's mix as ``--model``'s deal does, another class keeps to its one model,
the report's "By model" table shows every adapter, and a class naming an adapter the server
does not list is one line and exit 2 before the load. On the built-in simulator serving two
adapters (``--sim-lora``)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.conftest import run_locust
from tests.sparkload.run.test_setup_bad_input import assert_clean_failure
from tests.sparkload.workloads.test_tenants_runs import report, tenants_file

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

USERS, REQUESTS = 4, 10


def classes(mixed_model: str) -> dict:
    return {
        "classes": [
            {"name": "mixed", "share": 0.5, "workload": "chat", "model": mixed_model},
            {"name": "solo", "share": 0.5, "workload": "chat", "model": "b"},
        ]
    }


def run_classes(tmp_path, mixed_model: str):
    return run_locust(
        [
            "--headless",
            "--tenants",
            str(tenants_file(tmp_path, classes(mixed_model))),
            "--sim-lora",
            "a,b",
            "--ladder",
            str(USERS),
            "--requests-per-user",
            str(REQUESTS),
            "--max-tokens",
            "8",
        ],
        tmp_path / "results",
        timeout=180,
    )


def test_a_class_mix_is_dealt_per_user_and_the_other_class_keeps_its_model(tmp_path):
    run = run_classes(tmp_path, "a:0.5,b:0.5")
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert all(r["status"] == "ok" for r in measured)
    by_user = Counter((r["tenant"], r["worker"], r["user"], r["model"]) for r in measured)
    mixed = {key: n for key, n in by_user.items() if key[0] == "mixed"}
    # the deal: each user of the class exactly half of its 10 requests on each adapter
    assert sorted(mixed.values()) == [REQUESTS // 2] * 4 and {k[3] for k in mixed} == {"a", "b"}
    assert Counter(r["model"] for r in measured if r["tenant"] == "solo") == {
        "b": USERS // 2 * REQUESTS
    }

    summary = report(run.run_dir, tmp_path / "report")
    by_model = {row["Model"]: row["Requests"] for row in summary["models"]}
    assert by_model == {"a": REQUESTS, "b": 3 * REQUESTS}


def test_a_class_naming_an_adapter_the_server_does_not_list_is_one_line_and_exit_2(tmp_path):
    run = run_classes(tmp_path, "a:0.5,c:0.5")
    assert_clean_failure(run, "class 'mixed': model 'c' is not served by")
