"""The engine setup a simulator runs with (sim.options.effective_setup), which manifests record,
the records' legacy table held to it for manifests written before they did, and the shared
options as the locustfile's --sim-* options hand them to the simulator it starts."""

from __future__ import annotations

import pytest

from sparkload.errors import ConfigError
from sparkload.records import LEGACY_QUANTIZATION, LEGACY_SIMULATOR_SETUP
from sparkload.sim.__main__ import build_parser, build_server
from sparkload.sim.options import FIXED, EngineSetup, effective_setup, quantization
from tests.options import parsed_options


def test_a_qwen38_build_without_options_drafts_dspark_7_at_vllms_budget():
    assert effective_setup("qwen3.8-nvfp4") == EngineSetup("dspark:7", 2048)


def test_a_qwen38_builds_options_are_its_setup_its_spec_in_canonical_form():
    assert effective_setup("qwen3.8-fp8", "DSpark:14", 16384) == EngineSetup("dspark:14", 16384)


def test_a_report_variant_drafts_with_mtp_at_its_own_depth_and_budget():
    assert effective_setup("nvfp4-mtp") == EngineSetup("mtp:3", 2048)
    assert effective_setup("fp8") == EngineSetup("none", 8192)


def test_fixed_timing_has_no_engine_to_set_up():
    assert effective_setup(FIXED) is None


def test_options_a_report_variant_does_not_take_are_refused():
    with pytest.raises(ValueError, match="qwen3.8-\\* builds only, not awq-mtp"):
        effective_setup("awq-mtp", "mtp:5")


@pytest.mark.parametrize("profile", sorted(LEGACY_SIMULATOR_SETUP))
def test_the_records_legacy_table_is_the_simulators_default_setup(profile):
    """Manifests before the effective setup was recorded read their nulls from this table; if
    the simulator's defaults ever change, the table keeps the old ones and this test names the
    profile (new manifests record what ran, so they never need the table)."""
    spec, budget = LEGACY_SIMULATOR_SETUP[profile]
    assert effective_setup(profile) == EngineSetup(spec, budget)
    assert quantization(profile) == LEGACY_QUANTIZATION[profile]


def test_the_locustfiles_sim_options_reach_the_simulator_as_its_own():
    opts = parsed_options(
        "--sim-reasoning-tokens",
        "64",
        "--sim-reasoning-field",
        "reasoning_content",
        "--sim-no-reasoning-usage",
        "--sim-tool-call-rate",
        "0",
        "--sim-tool-call-error-rate",
        "0.25",
        "--sim-tool-parser-holdback",
        "5",
    )
    args = build_parser().parse_args(opts.simulator.args())
    config = build_server(args).config
    assert (config.reasoning_tokens, config.reasoning_field, config.reasoning_usage) == (
        64,
        "reasoning_content",
        False,
    )
    assert (config.tool_call_rate, config.tool_call_error_rate) == (0.0, 0.25)
    assert config.tool_parser_holdback == 5


def test_the_locustfiles_defaults_are_the_simulators_but_its_time_scale():
    args = build_parser().parse_args(parsed_options().simulator.args())
    own = build_server(build_parser().parse_args(["--time-scale", "10"])).config
    assert build_server(args).config == own


def test_a_tool_call_rate_above_1_is_refused_before_the_simulator_starts():
    with pytest.raises(ConfigError, match="--sim-tool-call-rate: '1.5' must be from 0 to 1"):
        parsed_options("--sim-tool-call-rate", "1.5")


@pytest.mark.parametrize("flag", ["--sim-tool-parser-holdback", "--sim-reasoning-tokens"])
def test_a_count_option_takes_0_for_none_as_the_simulator_does(flag):
    args = build_parser().parse_args(parsed_options(flag, "0").simulator.args())
    own = build_server(build_parser().parse_args(["--time-scale", "10"])).config
    assert build_server(args).config == own


def test_a_negative_count_is_refused_before_the_simulator_starts():
    with pytest.raises(ConfigError, match="--sim-tool-parser-holdback: '-1' must be 0 or more"):
        parsed_options("--sim-tool-parser-holdback", "-1")


def test_the_start_up_line_names_only_the_options_a_run_changed():
    assert parsed_options().simulator.args() == ["--profile", "awq-mtp", "--time-scale", "10"]
    changed = parsed_options("--sim-tool-call-rate", "0.5").simulator.args()
    assert changed == ["--profile", "awq-mtp", "--time-scale", "10", "--tool-call-rate", "0.5"]
