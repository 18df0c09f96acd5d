"""Each --tenants class's figures and SLO verdict per level, and --check tenants, on synthetic
runs whose classes differ by a known amount."""

from __future__ import annotations

import json

import pytest

from analysis.cli import main
from analysis.figures import tenants
from analysis.figures.metrics import Settings
from analysis.reading import load
from sparkload.records import EXIT_CHECK_FAILED
from tests.analysis_synthetic import make_record, write_run

T0 = 1_700_000_000.0
TTFT = {"fast": 0.1, "slow": 2.0}  # seconds, every request of the class
PROMPT = {"fast": 100, "slow": 300}  # prompt tokens a request; 128 output tokens each


def mixed_level(level: int, index: int, start: float) -> list[dict]:
    """``level`` users, three in four of the fast class, two requests each."""
    records = []
    for user in range(level):
        name = "fast" if user % 4 else "slow"
        for k in range(2):
            records.append(
                make_record(
                    level,
                    index,
                    ttft=TTFT[name],
                    itl=0.01,
                    tps=100.0,
                    latency=TTFT[name] + 1.27,
                    start_time=start + k * 4,
                    user=user,
                    tenant=name,
                    prompt_tokens=PROMPT[name],
                )
            )
    return records


def tenants_run(tmp_path, slow_slo: str = "ttft_p90_ms<=1000", levels=(4, 8)):
    classes = [
        {"name": "fast", "share": 0.75, "workload": "chat", "slo": "ttft_p90_ms<=500"},
        {"name": "slow", "share": 0.25, "workload": "chat", "slo": slow_slo},
    ]
    records = [r for k, c in enumerate(levels) for r in mixed_level(c, k, T0 + 20 * k)]
    workload = {"name": "tenants", "classes": classes}
    levels = [
        {"index": index, "concurrency": c, "expected": 2 * c, "started_at": ""}
        for index, c in enumerate(levels)
    ]
    fields = {"workload": workload, "levels": levels}
    return write_run(tmp_path, "mix", records, manifest_fields=fields)


def verdicts(run):
    return tenants.judge(load.load([run]), Settings(bootstrap_resamples=0))


def test_every_level_has_a_row_per_class_with_its_own_figures(tmp_path):
    frame = tenants.table(verdicts(tenants_run(tmp_path)))
    rows = {(r.concurrency, r.tenant): r for r in frame.itertuples()}
    assert sorted(rows) == [(4, "fast"), (4, "slow"), (8, "fast"), (8, "slow")]
    assert rows[(8, "fast")].n == 12 and rows[(8, "slow")].n == 4
    assert rows[(8, "fast")].ttft_ms_p90 == pytest.approx(100)
    assert rows[(8, "slow")].ttft_ms_p90 == pytest.approx(2000)
    fast_tokens, slow_tokens = 12 * (100 + 128), 4 * (300 + 128)
    share = slow_tokens / (fast_tokens + slow_tokens)
    assert rows[(8, "slow")].token_share == pytest.approx(share)


def test_a_class_is_held_to_its_own_slo(tmp_path):
    by_class = {v.spec.name: v for v in verdicts(tenants_run(tmp_path))}
    fast, slow = by_class["fast"].rows, by_class["slow"].rows
    assert list(fast["meets_slo"]) == [True, True] and list(fast["slo_attainment"]) == [1.0, 1.0]
    assert list(slow["meets_slo"]) == [False, False] and list(slow["slo_attainment"]) == [0, 0]
    assert not by_class["fast"].breaches and len(by_class["slow"].breaches) == 2


def test_check_tenants_fails_naming_only_the_class_that_misses(tmp_path, capsys):
    assert main(["--check", "tenants", "--quiet", str(tenants_run(tmp_path))]) == EXIT_CHECK_FAILED
    said = capsys.readouterr().out
    assert "check failed: class slow: mix C=4: ttft_p90_ms" in said
    assert "classes missing their SLO: slow" in said and "class fast" not in said


def test_check_tenants_passes_when_every_class_meets_its_slo(tmp_path, capsys):
    run = tenants_run(tmp_path, slow_slo="ttft_p90_ms<=3000")
    assert main(["--check", "tenants", "--quiet", str(run)]) == 0
    assert (
        "check passed: every class meets its SLO at every level (fast, slow)"
        in capsys.readouterr().out
    )


def test_a_run_without_classes_has_no_tenant_figures(tmp_path):
    records = [make_record(1, 0, ttft=0.1, itl=0.01, tps=100.0, latency=1.4, start_time=T0)]
    assert verdicts(write_run(tmp_path, "plain", records)) == []


def level_verdict(capsys, run, index: int) -> dict:
    argv = ["--check", "tenants", "--check-level", str(index), "--quiet", str(run)]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_check_level_judges_each_class_on_its_own_records_of_the_level(tmp_path, capsys):
    verdict = level_verdict(capsys, tenants_run(tmp_path), 1)
    assert verdict["meets"] is False and verdict["failing_classes"] == ["slow"]
    assert verdict["figures"]["fast: ttft_p90_ms<=500"] == pytest.approx(100)
    assert verdict["figures"]["slow: ttft_p90_ms<=1000"] == pytest.approx(2000)
    assert [b.split(":")[0] for b in verdict["breaches"]] == ["class slow"]
    assert verdict["requests"] == 16


def test_check_level_meets_when_every_class_meets_its_own(tmp_path, capsys):
    verdict = level_verdict(capsys, tenants_run(tmp_path, "ttft_p90_ms<=3000"), 0)
    assert verdict["meets"] is True and verdict["failing_classes"] == []


def test_check_level_judges_the_classes_that_sent_and_names_those_that_did_not(tmp_path, capsys):
    verdict = level_verdict(capsys, tenants_run(tmp_path, "ttft_p90_ms<=3000", levels=(1,)), 0)
    assert verdict["meets"] is True and verdict["requests"] == 2  # one slow user's two
    assert verdict["caveats"][0] == "class fast: no measured request at this level"
