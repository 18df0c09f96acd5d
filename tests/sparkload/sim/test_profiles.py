"""Profiles: the variants, their served names, MTP arithmetic and TP derivation."""

import pytest

from sparkload.sim.profiles import PROFILES, SpecDecode, get_profile, with_tp


def test_the_report_variants_are_profiles_with_served_model_names():
    assert {name: p.model_name for name, p in PROFILES.items()} == {
        "fp8": "qwen3.6-27b-fp8",
        "fp8-mtp": "qwen3.6-27b-fp8-mtp",
        "awq-mtp": "qwen3.6-27b-awq-mtp",
        "nvfp4": "qwen3.6-27b-nvfp4",
        "nvfp4-mtp": "qwen3.6-27b-nvfp4-mtp",
    }


def test_only_mtp_variants_speculate():
    assert {n for n, p in PROFILES.items() if p.spec} == {"fp8-mtp", "awq-mtp", "nvfp4-mtp"}


def test_expected_tokens_per_step_is_one_plus_reach_probabilities():
    spec = SpecDecode((0.5, 0.5))
    assert spec.reach_probabilities() == (0.5, 0.25)
    assert spec.expected_tokens_per_step() == 1.75
    assert spec.acceptance_rate() == 0.375


def test_constant_acceptance_matches_the_geometric_formula():
    alpha, k = 0.7, 3
    spec = SpecDecode((alpha,) * k)
    assert spec.expected_tokens_per_step() == pytest.approx((1 - alpha ** (k + 1)) / (1 - alpha))


def test_tp_profiles_keep_the_variant_and_change_the_cluster():
    tp4 = get_profile("awq-mtp", tp=4)
    assert tp4.tp == 4 and tp4.model_name == "qwen3.6-27b-awq-mtp"
    assert tp4.kv_capacity_tokens() > get_profile("awq-mtp").kv_capacity_tokens()


def test_unsupported_tp_size_is_refused():
    with pytest.raises(ValueError, match="tensor parallel"):
        with_tp(PROFILES["fp8"], 3)


def test_unknown_profile_names_the_known_ones():
    with pytest.raises(KeyError, match="fp8-mtp"):
        get_profile("int8")
