"""The engine setup a simulator runs with (sim.options.effective_setup), which manifests record,
and the records' legacy table held to it for manifests written before they did."""

from __future__ import annotations

import pytest

from sparkload.records import LEGACY_SIMULATOR_SETUP
from sparkload.sim.options import FIXED, EngineSetup, effective_setup


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
