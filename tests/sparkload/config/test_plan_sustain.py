"""--sustain's rules: a duration with its unit, held after one capacity search under one set of
bounds; anything else is one ConfigError line naming the option."""

from __future__ import annotations

import pytest

from sparkload import config as options
from sparkload.errors import ConfigError
from tests.option_namespace import namespace


def test_sustain_is_off_by_default():
    assert options.from_namespace(namespace()).plan.sustain == 0.0


def test_sustain_takes_a_duration_in_the_targets_seconds():
    plan = options.from_namespace(namespace(find_capacity="ttft_p90_ms<=1500", sustain="1m30s"))
    assert plan.plan.sustain == 90.0


def test_a_duration_without_units_is_refused_naming_the_option():
    with pytest.raises(ConfigError, match=r"--sustain: '60' is not a duration: give a number"):
        options.from_namespace(namespace(find_capacity="ttft_p90_ms<=1500", sustain="60"))


def test_sustain_without_a_search_is_refused():
    with pytest.raises(ConfigError, match="--sustain holds the load a capacity search found"):
        options.from_namespace(namespace(sustain="60s"))


def test_sustain_beside_tiers_is_refused_as_it_holds_one_capacity():
    with pytest.raises(ConfigError, match="--sustain holds one found capacity: .* not --tier"):
        options.from_namespace(namespace(sustain="60s", tier=["fast:ttft_p90_ms<=800"]))


def test_sustain_beside_a_tenants_search_is_refused():
    with pytest.raises(ConfigError, match="under one set of bounds"):
        options.from_namespace(namespace(sustain="60s", find_capacity="tenants"))
