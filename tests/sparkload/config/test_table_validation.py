"""Option validation: every bad value is one clear ConfigError line."""

import pytest

from sparkload import config as options
from sparkload.errors import ConfigError
from sparkload.workloads import registry
from tests.option_namespace import namespace


def test_defaults_are_the_reports_method():
    opts = registry.settle(options.from_namespace(namespace()))
    assert opts.plan.ladder == (1, 2, 4, 8, 16)
    assert opts.plan.requests_per_user == 10
    assert registry.load(opts).max_tokens == 128
    assert opts.plan.mode == "ladder"


def test_ladder_is_parsed_from_a_comma_separated_string():
    assert options.from_namespace(namespace(ladder="1, 3,9")).plan.ladder == (1, 3, 9)


@pytest.mark.parametrize(
    "ladder, message",
    [
        ("1,x", "'x' is not a whole number"),
        ("1,0", "must be 1 or more"),
        ("", "give at least one level"),
        ("1,,2", "'' is not a whole number"),
    ],
)
def test_bad_ladders_are_rejected_with_the_offending_part(ladder, message):
    with pytest.raises(ConfigError, match=message):
        options.from_namespace(namespace(ladder=ladder))


@pytest.mark.parametrize(
    "field, value",
    [
        ("requests_per_user", "ten"),
        ("max_tokens", "0"),
        ("request_timeout", "0"),
        ("request_timeout", "-3"),
        ("arrival_rate", "fast"),
        ("sim_time_scale", "0"),
        ("tp", "1.5"),
        ("seed", "abc"),
        ("sim_profile", "fp16"),
    ],
)
def test_bad_values_name_their_option(field, value):
    with pytest.raises(ConfigError, match="--" + field.replace("_", "-")):
        options.from_namespace(namespace(**{field: value}))


def test_web_form_strings_are_accepted():
    opts = options.from_namespace(
        namespace(requests_per_user="3", keep_chunk_gaps="true", arrival_rate="2.5")
    )
    assert opts.plan.requests_per_user == 3
    assert opts.results.keep_chunk_gaps is True
    assert opts.plan.mode == "arrival"


def test_step_duration_selects_time_based_steps():
    assert options.from_namespace(namespace(step_duration="30")).plan.mode == "steps"


def test_slice_duration_is_off_by_default_and_takes_seconds():
    assert options.from_namespace(namespace()).results.slice_duration == 0.0
    assert options.from_namespace(namespace(slice_duration="2.5")).results.slice_duration == 2.5


def test_a_negative_slice_duration_is_one_clear_line():
    with pytest.raises(ConfigError, match="--slice-duration: '-1' must be a finite number >= 0"):
        options.from_namespace(namespace(slice_duration="-1"))
