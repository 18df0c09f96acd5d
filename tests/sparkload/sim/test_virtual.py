"""The closed-loop ladder in virtual time: the mechanism behind TTFT rising with load."""

import pytest

from sparkload.sim.profiles import PROFILES
from sparkload.sim.virtual import ladder_prompts, run_ladder


@pytest.mark.parametrize("name", list(PROFILES))
def test_ttft_rises_with_concurrency(name):
    levels = run_ladder(PROFILES[name], levels=(1, 16), rounds=3)
    assert levels[1].ttft > 1.3 * levels[0].ttft


def test_itl_grows_mildly_with_concurrency():
    one, sixteen = run_ladder(PROFILES["nvfp4"], levels=(1, 16), rounds=3)
    assert one.itl < sixteen.itl < 1.5 * one.itl


def test_report_tool_reuses_the_first_prompts_at_every_level():
    assert ladder_prompts((1, 2), rounds=2, prompt_pool=3) == [[0, 1], [0, 1, 2, 0]]


def test_distinct_prompts_never_repeat_across_levels():
    flat = [i for level in ladder_prompts((1, 2, 4), rounds=3, prompt_pool=None) for i in level]
    assert len(flat) == len(set(flat)) == 21
