"""The matrix file: what it means, and bad files ending in one clear line before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkload.cli import main
from sparkload.matrix import spec
from tests.conftest import ROOT

GOOD_TARGET = {"label": "a", "variant": "fp8", "simulator": {"profile": "fp8"}}


def parse(**top) -> spec.Matrix:
    return spec.parse({"targets": [GOOD_TARGET], **top}, "m.yaml")


def test_a_target_gets_its_label_variant_and_nodes_from_what_it_names():
    target = spec.parse(
        {"targets": [{"tp": 2, "simulator": {"profile": "nvfp4-mtp"}}]}, "m.yaml"
    ).targets[0]
    assert (target.label, target.variant, target.tp, target.nodes) == (
        "nvfp4-mtp-tp2",
        "nvfp4-mtp",
        2,
        2,
    )


def test_the_ladder_and_workload_default_to_the_benchmark_reports():
    matrix = parse()
    assert tuple(matrix.option(k) for k in ("ladder", "requests_per_user", "max_tokens")) == (
        (1, 2, 4, 8, 16),
        10,
        None,
    )


def test_a_ladder_may_be_written_as_a_comma_separated_string():
    assert parse(ladder="1, 2,4").option("ladder") == (1, 2, 4)


def test_a_single_endpoint_may_be_written_as_a_string():
    target = spec.parse(
        {"targets": [{"variant": "fp8", "endpoints": "http://spark-1:8000"}]}, "m"
    ).targets[0]
    assert target.endpoints == ("http://spark-1:8000",)


def test_a_targets_teardown_command_and_its_timeout_are_read():
    target = spec.parse(
        {"targets": [{"variant": "fp8", "endpoints": "http://a:1", "teardown": "./stop.sh"}]}, "m"
    ).targets[0]
    assert (target.teardown, target.teardown_timeout) == ("./stop.sh", 600.0)


def test_the_example_files_are_valid_matrices():
    for name in ("matrix-sim-tp.yaml", "matrix-spark-cluster.yaml"):
        assert spec.load(ROOT / "examples" / name).targets


def test_the_spark_cluster_example_covers_tp1_tp2_and_tp4_of_one_variant():
    targets = spec.load(ROOT / "examples" / "matrix-spark-cluster.yaml").targets
    by_variant: dict[str, set[int]] = {}
    for target in targets:
        by_variant.setdefault(target.variant, set()).add(target.tp)
    assert {1, 2, 4} in by_variant.values()


BAD_FILES = [
    ("not-yaml", "targets: [a\nb: {", "not valid YAML at line"),
    ("not-a-mapping", "- just a list\n", "must be a mapping of keys"),
    ("missing-targets", "ladder: [1, 2]\n", "targets: give a list of at least one target"),
    ("empty-targets", "targets: []\n", "targets: give a list of at least one target"),
    (
        "unknown-top-key",
        "ladders: [1]\ntargets: [{variant: fp8, simulator: {profile: fp8}}]\n",
        "ladders: unknown key",
    ),
    (
        "unknown-target-key",
        "targets: [{label: x, variant: fp8, endpoint: 'http://a:1'}]\n",
        "targets[1] (x): endpoint: unknown key",
    ),
    (
        "no-endpoint-or-simulator",
        "targets: [{label: x, variant: fp8, tp: 1}]\n",
        "targets[1] (x): give endpoints (URLs of the deployment) or simulator",
    ),
    (
        "both",
        "targets: [{label: x, variant: fp8, endpoints: ['http://a:1'],\n"
        "  simulator: {profile: fp8}}]\n",
        "give endpoints or simulator, not both",
    ),
    (
        "bad-tp",
        "targets: [{label: x, simulator: {profile: fp8}, tp: 3}]\n",
        "targets[1] (x): tp: 3 is not one of 1, 2, 4",
    ),
    (
        "tp-not-a-number",
        "targets: [{label: x, simulator: {profile: fp8}, tp: two}]\n",
        "tp: must be a whole number >= 1, not 'two'",
    ),
    (
        "bad-profile",
        "targets: [{label: x, simulator: {profile: fp16}}]\n",
        "targets[1] (x): simulator: profile: 'fp16' is not one of",
    ),
    (
        "bad-url",
        "targets: [{label: x, variant: fp8, endpoints: ['spark-1:8000']}]\n",
        "targets[1] (x): endpoints: not an http(s) URL",
    ),
    (
        "no-variant",
        "targets: [{label: x, endpoints: ['http://a:1']}]\n",
        "targets[1] (x): variant: give",
    ),
    (
        "duplicate-label",
        "targets: [{simulator: {profile: fp8}}, {simulator: {profile: fp8}}]\n",
        "targets[2]: label: 'fp8-tp1' is used by an earlier target",
    ),
    (
        "bad-ladder",
        "ladder: [1, 0]\ntargets: [{simulator: {profile: fp8}}]\n",
        "ladder: 0 must be 1 or more",
    ),
    (
        "repeated-key",
        "ladder: [1]\ntargets: [{simulator: {profile: fp8}, tp: 2,\n  tp: 4}]\n",
        "line 3: tp: given twice (first at line 2)",
    ),
    (
        "repeated-top-key",
        "ladder: [1]\nladder: [2]\ntargets: [{simulator: {profile: fp8}}]\n",
        "line 2: ladder: given twice (first at line 1)",
    ),
    (
        "managed-locust-arg",
        "locust_args: ['--tp', '2']\ntargets: [{simulator: {profile: fp8}}]\n",
        "locust_args: --tp is set by the matrix",
    ),
    (
        "bad-report-arg",
        "report_args: ['--nope']\ntargets: [{simulator: {profile: fp8}}]\n",
        "report_args: unrecognized arguments: --nope",
    ),
    (
        "health-on-simulator",
        "targets: [{simulator: {profile: fp8}, health: 'true'}]\n",
        "health: a simulator target is started and stopped by the run itself",
    ),
    (
        "teardown-on-simulator",
        "targets: [{simulator: {profile: fp8}, teardown: 'true'}]\n",
        "teardown: a simulator target is started and stopped by the run itself",
    ),
    (
        "teardown-not-a-command",
        "targets: [{variant: fp8, endpoints: ['http://a:1'], teardown: [stop]}]\n",
        "targets[1]: teardown: must be a non-empty string, not list",
    ),
    (
        "bad-teardown-timeout",
        "targets: [{variant: fp8, endpoints: ['http://a:1'], teardown: 'true',\n"
        "  teardown_timeout: 0}]\n",
        "teardown_timeout: must be a number of seconds > 0, not 0",
    ),
    (
        "bad-timeout",
        "targets: [{variant: fp8, endpoints: ['http://a:1'], health_timeout: -1}]\n",
        "health_timeout: must be a number of seconds > 0",
    ),
]


@pytest.mark.parametrize("name, text, expected", BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_a_bad_matrix_file_exits_2_with_one_line_naming_file_target_and_key(
    tmp_path, capsys, name, text, expected
):
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    code = main(["matrix", str(path), "--results-dir", str(tmp_path / "results")])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"sparkload matrix: error: {path}: "), err
    assert expected in err
    assert out == "" and not (tmp_path / "results").exists()


def test_a_missing_matrix_file_exits_2_with_one_line(tmp_path, capsys):
    assert main(["matrix", str(tmp_path / "nope.yaml")]) == 2
    assert (
        capsys.readouterr().err
        == f"sparkload matrix: error: {Path(tmp_path / 'nope.yaml')}: no such file\n"
    )


def test_a_targets_response_format_goes_on_its_command_line_as_the_user_wrote_it():
    matrix = parse(response_format="json_schema:builtin-flat")
    args = matrix.run_args(matrix.targets[0])
    assert args[args.index("--response-format") + 1] == "json_schema:builtin-flat"


def test_reset_prefix_cache_set_in_a_matrix_resets_before_every_cells_levels():
    matrix = parse(reset_prefix_cache=True, server_profile=2)
    args = matrix.run_args(matrix.targets[0])
    assert "--reset-prefix-cache" in args
    assert args[args.index("--server-profile") + 1] == "2"
