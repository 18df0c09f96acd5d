"""TraceLab prompts synthesized to the recorded counts: exact unit counts (one token each on the
simulator), the recorded prefix byte-identical to the round before's, new text unique to the
session and round, a description whose size does not grow with the tokens, and the answer asked
at the recorded length."""

from __future__ import annotations

import sys

import pytest

from sparkload.inputs.tracelab import LabRound
from sparkload.sim.textlength import estimate_tokens
from sparkload.workloads import labtext


def lab_round(total: int, prefix: int, output: int = 100, pause: float = 0.0) -> LabRound:
    return LabRound(0, 1, total, prefix, total - prefix, output, None, None, None, (), 0, pause)


def session_prompts(rounds: list[LabRound], own: str = "run1:s1") -> list[labtext.Prompt]:
    prompts = [labtext.first_prompt(rounds[0], "run1:opening", f"{own}:0")]
    for position, one in enumerate(rounds[1:], 1):
        prompts.append(labtext.next_prompt(prompts[-1], one, f"{own}:{position}"))
    return prompts


ROUNDS = [lab_round(3000, 1200), lab_round(4100, 2990), lab_round(4700, 4100), lab_round(900, 0)]


def test_every_prompt_is_its_recorded_input_tokens_on_the_simulators_count():
    texts = [labtext.text(p) for p in session_prompts(ROUNDS)]
    assert [estimate_tokens(t) for t in texts] == [3000, 4100, 4700, 900]
    assert [len(t) for t in texts] == [4 * 3000, 4 * 4100, 4 * 4700, 4 * 900]


def test_a_rounds_recorded_prefix_is_byte_identical_to_the_round_before_and_no_more():
    texts = [labtext.text(p) for p in session_prompts(ROUNDS)]
    for before, now, one in zip(texts, texts[1:], ROUNDS[1:], strict=False):
        keep = 4 * one.prefix_tokens
        assert now[:keep] == before[:keep]
        if len(before) > keep:  # the next unit differs: the reuse stops at the recorded prefix
            assert now[keep : keep + 4 * 8] != before[keep : keep + 4 * 8]


def test_a_prefix_longer_than_the_round_before_keeps_all_of_it_then_new_text():
    first, second = session_prompts([lab_round(1000, 0), lab_round(2000, 1500)])
    one, two = labtext.text(first), labtext.text(second)
    assert two.startswith(one) and len(two) == 4 * 2000


def test_first_rounds_share_the_opening_their_prefix_asks_for_and_nothing_else():
    mine = labtext.text(labtext.first_prompt(lab_round(2000, 800), "run1:opening", "run1:s1:0"))
    other = labtext.text(labtext.first_prompt(lab_round(2000, 500), "run1:opening", "run1:s2:0"))
    fresh = labtext.text(labtext.first_prompt(lab_round(2000, 0), "run1:opening", "run1:s3:0"))
    assert mine[: 4 * 500] == other[: 4 * 500]
    assert mine[4 * 500 : 4 * 520] != other[4 * 500 : 4 * 520]
    assert fresh[:80] != mine[:80]  # a first round with no recorded prefix starts fresh


def test_the_runs_salt_in_the_keys_makes_another_runs_text():
    ours = labtext.text(labtext.first_prompt(lab_round(600, 600), "run1:opening", "run1:s:0"))
    theirs = labtext.text(labtext.first_prompt(lab_round(600, 600), "run2:opening", "run2:s:0"))
    assert ours[:80] != theirs[:80]


def test_the_description_does_not_grow_with_the_tokens():
    small = session_prompts([lab_round(100 * n, 100 * n - 40) for n in range(1, 40)])
    large = session_prompts([lab_round(100_000 * n, 100_000 * n - 40) for n in range(1, 40)])
    assert [len(p) for p in small] == [len(p) for p in large]
    assert sys.getsizeof(small[-1]) == sys.getsizeof(large[-1])
    assert labtext.units(large[-1]) == 3_900_000  # never made into text here


def test_the_answer_is_asked_at_the_recorded_output_reasoning_included_at_least_one():
    assert labtext.max_tokens(lab_round(10, 0, output=931)) == 931
    assert labtext.max_tokens(lab_round(10, 0, output=0)) == 1


@pytest.mark.parametrize(("cap", "waited"), [(None, 42.5), (10.0, 10.0), (0.0, 0.0)])
def test_a_pause_is_replayed_as_recorded_or_at_most_the_cap(cap, waited):
    assert labtext.pause(lab_round(10, 0, pause=42.5), cap) == waited


def test_a_target_counting_other_than_a_token_a_unit_gets_the_units_of_the_recorded_tokens():
    first = labtext.first_prompt(lab_round(3000, 1200), "o", "s:0", scale=1 / 3)
    second = labtext.next_prompt(first, lab_round(4500, 2990), "s:1", scale=1 / 3)
    assert [labtext.units(p) for p in (first, second)] == [1000, 1500]
    assert second[:2] == (("o", 400), ("s:0", 597))  # the prefix: 2,990 tokens, 997 units
