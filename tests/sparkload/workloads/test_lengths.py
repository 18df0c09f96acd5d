"""Length distributions of synthetic prompts: --seq-dist as aiperf writes it, and the pool of
stratified lengths that stands for a normal or a mix."""

from __future__ import annotations

import statistics

import pytest

from sparkload.config.parsers import Component
from sparkload.config.parsers import seq_dist as parse_seq_dist
from sparkload.errors import ConfigError
from sparkload.workloads.lengths import (
    DISTRIBUTION_POOL,
    SINGLE_POOL,
    normal_lengths,
    plan,
    pool_size,
    shares,
)

FLAG = "--seq-dist"


def test_a_mix_is_parsed_with_its_weights_made_shares():
    mix = parse_seq_dist(FLAG, "256,16:0.75;2048,16:0.25")
    assert mix == (Component(256, 16, 0.75), Component(2048, 16, 0.25))


def test_weights_are_relative_as_in_aiperfs_percent_form():
    mix = parse_seq_dist(FLAG, "64|10,32|8:70; 256|40,128|20:20; 1024|100,512|50:10")
    assert [c.weight for c in mix] == pytest.approx([0.7, 0.2, 0.1])
    assert (mix[0].input_stddev, mix[0].output_stddev, mix[2].output_tokens) == (10, 8, 512)


def test_a_pair_of_weight_zero_is_never_sent():
    assert [c.input_tokens for c in parse_seq_dist(FLAG, "256,16:1;512,16:0")] == [256]


def test_nothing_given_is_no_mix():
    assert parse_seq_dist(FLAG, "") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("256,16", "has no weight"),
        ("256,16:heavy", "the weight 'heavy' is not a number"),
        ("256,16:-1", "must be a finite number >= 0"),
        ("256,16:0;512,8:0", "the weights sum to 0"),
        ("256:1", "give ISL,OSL:WEIGHT"),
        ("big,16:1", "'big' is not LENGTH or LENGTH|STDDEV"),
        ("0,16:1", "lengths are whole numbers >= 1"),
    ],
)
def test_a_mix_that_does_not_parse_is_one_line_naming_the_part(text, message):
    with pytest.raises(ConfigError, match=message) as caught:
        parse_seq_dist(FLAG, text)
    assert str(caught.value).startswith(FLAG) and "\n" not in str(caught.value)


def test_shares_follow_the_weights_by_largest_remainder_and_give_each_pair_one():
    assert shares([0.75, 0.25], 64) == [48, 16]
    assert shares([1 / 3, 1 / 3, 1 / 3], 64) == [21, 21, 22]
    assert shares([0.999, 0.001], 64) == [63, 1]


def test_stratified_normal_lengths_have_exactly_the_asked_mean_and_deviation():
    lengths = normal_lengths(1000, 200, DISTRIBUTION_POOL)
    assert statistics.fmean(lengths) == pytest.approx(1000, abs=0.5)
    assert statistics.pstdev(lengths) == pytest.approx(200, abs=0.5)
    assert lengths == sorted(lengths)


def test_normal_lengths_are_clamped_to_one_token():
    assert min(normal_lengths(10, 50, DISTRIBUTION_POOL)) == 1


def test_without_a_deviation_every_length_is_the_mean():
    assert normal_lengths(300, 0, 5) == [300] * 5


def test_a_plan_pairs_inputs_and_outputs_independently():
    entries = plan((Component(1000, 64, 1.0, 200, 16),), DISTRIBUTION_POOL, seed=3)
    inputs = [e.input_tokens for e in entries]
    outputs = [e.output_tokens for e in entries]
    assert inputs == sorted(inputs) and outputs != sorted(outputs)
    assert sorted(outputs) == normal_lengths(64, 16, DISTRIBUTION_POOL)
    assert plan((Component(1000, 64, 1.0, 200, 16),), DISTRIBUTION_POOL, seed=3) == entries


def test_a_mix_plan_holds_each_pair_in_its_share():
    entries = plan(parse_seq_dist(FLAG, "256,16:0.75;2048,16:0.25"), DISTRIBUTION_POOL, seed=0)
    assert sum(e.input_tokens == 2048 for e in entries) == 16
    assert {e.output_tokens for e in entries} == {16}


def test_one_length_without_an_output_leaves_the_runs_output_length():
    assert {e.output_tokens for e in plan((Component(512, None),), SINGLE_POOL, 0)} == {None}


@pytest.mark.parametrize(
    ("components", "prefixes", "size"),
    [
        ((Component(512, None),), 0, SINGLE_POOL),
        ((Component(512, None, 1.0, 50),), 0, DISTRIBUTION_POOL),
        ((Component(256, 16, 0.5), Component(2048, 16, 0.5)), 0, DISTRIBUTION_POOL),
        ((Component(512, None),), 5, 20),  # whole rounds over the prefixes
    ],
)
def test_the_pool_size_is_16_for_one_length_64_for_a_spread(components, prefixes, size):
    assert pool_size(components, prefixes) == size
