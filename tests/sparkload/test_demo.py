"""``sparkload demo``: the five variants of the quantization report on the simulator, one report."""

from __future__ import annotations

import pytest

from sparkload.demo import VARIANTS
from sparkload.matrix import spec
from tests.matrix_helpers import run_dirs, run_sparkload, summary
from tests.report_files import section_number

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "results"
    return run_sparkload(
        "demo", "--quick", "--time-scale", "50", "--out", str(out), timeout=240
    ), out


def test_the_demo_finishes_by_itself_with_every_variant_complete(demo):
    finished, out = demo
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert {row["variant"]: row["status"] for row in summary(out).values()} == dict.fromkeys(
        VARIANTS, "complete"
    )
    assert len(run_dirs(out)) == 5


def test_the_demo_report_shows_all_five_variants(demo):
    _, out = demo
    report = (out / "report" / "report.md").read_text()
    number = section_number(report, "Performance per variant")
    for variant in VARIANTS:
        assert f"### {number}.{VARIANTS.index(variant) + 1} {variant}-tp1" in report
    assert "MTP speed-up ratio" in report  # the MTP twins (fp8 / fp8-mtp, nvfp4 / nvfp4-mtp) met
    assert (out / "report" / "index.html").is_file() and any((out / "report").rglob("*.png"))


def test_the_demo_says_its_figures_are_simulated_and_reduced(demo):
    finished, out = demo
    assert (
        "demo: simulated time (50x faster than real time), 1 request(s) per user" in finished.stdout
    )
    assert "demo: simulated time" in (out / "matrix-summary.txt").read_text()


def test_the_demo_leaves_its_matrix_file_for_a_newcomer_to_edit_and_rerun(demo):
    _, out = demo
    matrix = spec.load(out / "matrix.yaml")
    assert [t.simulator.profile for t in matrix.targets] == list(VARIANTS)
