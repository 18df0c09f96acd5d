"""Traffic classes across a master and two workers (issue 45, must-show 5): each worker numbers
its users in the run by Locust's dispatch order, so the classes' shares of every level are
exact over both workers together, as in a local run."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from sparkload.workloads.tenants import Dealer
from tests.conftest import locust_workers, run_locust

pytestmark = pytest.mark.e2e  # starts Locust's master, two workers and the simulator

SHARES = (0.6, 0.3, 0.1)
NAMES = ("a", "b", "c")


@pytest.mark.parametrize("ladder", ["5,20", "20,5"])  # 20,5: the users above 5 idle
def test_a_master_and_two_workers_deal_the_classes_exactly(tmp_path, ladder):
    path = tmp_path / "tenants.json"
    classes = [
        {"name": name, "share": share, "workload": "chat"}
        for name, share in zip(NAMES, SHARES, strict=True)
    ]
    path.write_text(json.dumps({"classes": classes}))
    with locust_workers(2) as port:
        run = run_locust(
            [
                "--headless",
                "--tenants",
                str(path),
                "--ladder",
                ladder,  # 5 users: 3 on one worker, 2 on the other
                "--requests-per-user",
                "1",
                "--max-tokens",
                "8",
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
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert {r["worker"] for r in measured} == {"0", "1"}
    for level in (5, 20):
        users = {(r["tenant"], r["worker"], r["user"]) for r in measured if r["level"] == level}
        dealt = Counter(tenant for tenant, *_ in users)
        assert [dealt[name] for name in NAMES] == Dealer(SHARES).counts(level)
    at_twenty = {(r["tenant"], r["worker"], r["user"]) for r in measured if r["level"] == 20}
    assert Counter(tenant for tenant, *_ in at_twenty) == {"a": 12, "b": 6, "c": 2}
