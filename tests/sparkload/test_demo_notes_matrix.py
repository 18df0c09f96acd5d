"""The single-Spark notes' matrix: the example file parses, and the demo generates the same."""

from __future__ import annotations

from sparkload import demo
from sparkload.matrix import spec
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "matrix-single-spark-notes.yaml"


def test_the_example_file_parses_with_every_target_on_a_qwen38_build():
    matrix = spec.load(EXAMPLE)
    assert len(matrix.targets) == len(demo.NOTES_TARGETS)
    assert {t.simulator.profile for t in matrix.targets if t.simulator} == {
        "qwen3.8-fp8",
        "qwen3.8-int4",
        "qwen3.8-nvfp4",
    }


def test_every_target_says_its_setup_in_metadata_for_real_spark_runs():
    matrix = spec.load(EXAMPLE)
    for target in matrix.targets:
        assert set(matrix.option("metadata", target)) == {
            "build",
            "spec",
            "budget",
            "prefix_caching",
        }, target.label


def test_the_demo_generates_the_example_files_targets():
    generated = spec.parse(demo.notes_matrix_data(demo.NOTES_TIME_SCALE, quick=False), "demo")
    example = spec.load(EXAMPLE)
    assert generated.targets == example.targets
    assert generated.run_options == example.run_options


def test_quick_keeps_the_quantization_gain_targets_only():
    quick = spec.parse(demo.notes_matrix_data(demo.NOTES_TIME_SCALE, quick=True), "demo")
    assert [t.label for t in quick.targets] == list(demo.QUICK_NOTES_TARGETS)
    assert quick.option("requests_per_user") == demo.QUICK_NOTES_REQUESTS_PER_USER
