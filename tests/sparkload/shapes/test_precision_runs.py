"""--target-precision end to end on the built-in simulator: levels sent past the ladder's count
and stopped at the cap, marked capped in the manifest, summary.json and the report, whose
figures are the stop rule's own; distributed, the workers' users follow the raised quota; bad
targets exit 2 with one line."""

from __future__ import annotations

import pytest

from sparkload.records import EXIT_BAD_INPUT
from tests.conftest import LocustRun, locust_workers, run_locust
from tests.report_files import report_summary

pytestmark = pytest.mark.e2e  # starts Locust and the simulator

# a p90 within 5 % (met on the simulator within about 30 requests at C=1) and a p50 of the
# latency within 0.1 %, which 40 requests a level cannot reach: every level is capped
TARGETS = ["--target-precision", "ttft_p90:5%", "--target-precision", "latency_p50:0.1%"]
CAP = ["--max-requests-per-level", "40", "--ladder", "1,4", "--max-tokens", "16"]


@pytest.fixture(scope="module")
def capped(tmp_path_factory) -> tuple[LocustRun, dict]:
    results = tmp_path_factory.mktemp("precision")
    run = run_locust(["--headless", *TARGETS, *CAP], results, timeout=240)
    assert run.returncode == 0 and run.run_dir is not None, run.output
    return run, report_summary(run.run_dir)


def test_each_level_sends_up_to_the_cap_not_the_ladders_ten_per_user(capped):
    run, _ = capped
    assert [level["received"] for level in run.manifest["levels"]] == [40, 40]


def test_a_level_stopped_at_the_cap_with_a_target_unmet_is_marked_capped(capped):
    run, _ = capped
    for level in run.manifest["levels"]:
        assert level["capped"] is True
        entries = {entry["target"]: entry for entry in level["precision"]}
        assert set(entries) == {"ttft_p90:5%", "latency_p50:0.1%"}
        assert entries["latency_p50:0.1%"]["half_width"] > 0.001


def test_summary_json_says_per_level_and_target_what_the_stop_rule_saw(capped):
    run, summary = capped
    rows = {(row["concurrency"], row["target"]): row for row in summary["precision"]}
    for level in run.manifest["levels"]:
        for entry in level["precision"]:
            row = rows[(level["concurrency"], entry["target"])]
            assert row["requests"] == entry["requests"] == 40
            assert row["half_width_pct"] == pytest.approx(100 * entry["half_width"], rel=1e-12)
            assert row["met"] == (entry["half_width"] <= row["target_pct"] / 100)
            assert row["capped"] is True


def test_the_report_has_a_precision_section_naming_capped_levels(capped):
    run, _ = capped
    report = (run.run_dir / "report" / "report.md").read_text()
    section = report.split(". Precision", 1)[1].split("\n## ", 1)[0]
    assert "| 4 | latency_p50:0.1% |" in section and "capped" in section


def test_distributed_the_workers_users_follow_the_raised_quota(tmp_path):
    """C=4 over two workers, from 4 requests (one each) to a p90 interval (29 at least)."""
    args = ["--ladder", "4", "--target-precision", "ttft_p90:10%", "--min-requests-per-level", "4"]
    args += ["--max-tokens", "16"]
    with locust_workers(2) as port:
        run = run_locust(
            ["--headless", *args, "--master", "--expect-workers", "2", "--master-bind-port", port],
            tmp_path,
            timeout=240,
        )
    assert run.returncode == 0, run.output
    (level,) = run.manifest["levels"]
    assert level["received"] >= 29 and level["precision"][0]["half_width"] <= 0.10
    assert {r["worker"] for r in run.records if r["phase"] == "measure"} == {"0", "1"}


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("ttft_p90:0%", "the precision 0% must be more than 0 %"),
        ("bogus:5%", "'bogus' is not a statistic"),
    ],
)
def test_a_bad_target_exits_2_before_the_load_naming_what_is_wrong(tmp_path, target, said):
    run = run_locust(["--headless", "--target-precision", target], tmp_path, timeout=60)
    assert run.returncode == EXIT_BAD_INPUT
    (line,) = [line for line in run.output.splitlines() if "--target-precision" in line]
    assert said in line and run.run_dir is None
