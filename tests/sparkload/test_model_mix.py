"""--model's mix of models: its forms, its refusals, and each user's near-exact seeded deal."""

from __future__ import annotations

import pytest

from sparkload.errors import ConfigError
from sparkload.model_mix import ModelMix


def test_a_plain_name_is_one_model_even_with_colons():
    mix = ModelMix.parse("llama3:8b")
    assert (mix.names, mix.weights, mix.mixed) == (("llama3:8b",), (1.0,), False)


def test_weights_name_each_model_after_its_last_colon():
    mix = ModelMix.parse("org/base:v2:0.5, tenant-a:0.3,tenant-b:0.2")
    assert mix.names == ("org/base:v2", "tenant-a", "tenant-b")
    assert mix.weights == (0.5, 0.3, 0.2)


def test_zipf_weighs_the_kth_name_one_over_k_to_the_s():
    mix = ModelMix.parse("zipf:1:a,b,c")
    assert mix.names == ("a", "b", "c")
    assert mix.weights == pytest.approx((6 / 11, 3 / 11, 2 / 11))


def test_a_mix_written_back_parses_to_the_same_mix():
    mix = ModelMix.parse("zipf:1.2:a,b,c")
    again = ModelMix.parse(mix.spec)
    assert again.names == mix.names
    assert again.weights == pytest.approx(mix.weights, abs=1e-9)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("a:0.7,b:0.2", "--model: the weights of 'a:0.7,b:0.2' sum to 0.9, not 1"),
        ("a:0.7,b", "--model: 'b' has no weight: give NAME:WEIGHT"),
        ("a:0.7,b:x", "--model: 'b:x': 'x' is not a weight"),
        ("a:1.2,b:-0.2", "--model: 'a:1.2': a weight is above 0 and at most 1"),
        ("a:0.5,a:0.5", "--model: 'a' is listed twice"),
        ("zipf:0:a,b", "--model: 'zipf:0:a,b': give zipf:S:NAME,NAME,... with S above 0"),
        ("zipf:s:a,b", "--model: 'zipf:s:a,b': 's' is not Zipf's exponent"),
    ],
)
def test_a_bad_mix_is_one_line_naming_the_option(value, said):
    with pytest.raises(ConfigError) as refused:
        ModelMix.parse(value)
    assert str(refused.value) == said


def test_weights_within_a_millionth_of_one_are_taken():
    assert ModelMix.parse("a:0.3333333,b:0.6666666").weights == (0.3333333, 0.6666666)


@pytest.mark.parametrize("spec", ["a:0.7,b:0.3", "a:0.9,b:0.05,c:0.05", "zipf:1.2:a,b,c,d"])
def test_every_users_counts_stay_within_about_one_of_their_shares_at_every_point(spec):
    mix = ModelMix.parse(spec)
    worst = 0.0
    for user in range(100):
        deal = mix.deal(f"0:local:{user}")
        counts = dict.fromkeys(mix.names, 0)
        for n in range(1, 201):
            counts[deal.next()] += 1
            worst = max(
                worst,
                *(abs(counts[m] - n * w) for m, w in zip(mix.names, mix.weights, strict=True)),
            )
    assert worst < 1.5


def test_two_models_deal_a_users_25_requests_the_floor_or_ceiling_of_their_share():
    mix = ModelMix.parse("tenant-a:0.7,tenant-b:0.3")
    for user in range(200):
        deal = mix.deal(f"7:local:{user}")
        assert [deal.next() for _ in range(25)].count("tenant-a") in (17, 18)


def test_four_users_of_25_requests_land_within_two_hundredths_of_the_share():
    mix = ModelMix.parse("tenant-a:0.7,tenant-b:0.3")
    for seed in range(50):
        deals = [mix.deal(f"{seed}:local:{user}") for user in range(4)]
        dealt = [deal.next() for deal in deals for _ in range(25)]
        assert 68 <= dealt.count("tenant-a") <= 72


def test_the_same_key_deals_the_same_models_and_users_differ():
    mix = ModelMix.parse("a:0.7,b:0.3")

    def dealt(key: str) -> list[str]:
        deal = mix.deal(key)
        return [deal.next() for _ in range(30)]

    assert dealt("1:local:0") == dealt("1:local:0")
    assert len({tuple(dealt(f"1:local:{user}")) for user in range(8)}) > 1
