"""The simulator's --accuracy: these are the simulator's settings, not a claim about a model."""

from __future__ import annotations

import pytest

from sparkload.quality import probes
from sparkload.quality.graders import grade
from sparkload.sim.accuracy import AccuracyReplier, arithmetic_answer, retrieval_key
from sparkload.workloads.fitting import Estimate


@pytest.mark.parametrize("steps", [1, 4, 9, 20])
def test_arithmetic_answer_computes_every_problem_the_probe_writes(steps: int) -> None:
    items = probes.arithmetic(60, seed=3, steps=steps).items
    assert [arithmetic_answer(item.prompt) for item in items] == [int(i.expected) for i in items]


def test_retrieval_key_finds_the_planted_key() -> None:
    items = probes.retrieval(20, Estimate(), seed=5, context_tokens=300).items
    assert [retrieval_key(item.prompt) for item in items] == [item.expected for item in items]


def test_a_prompt_of_no_probe_is_not_answered() -> None:
    replier = AccuracyReplier(1.0)
    assert replier.plan("Tell me about the sea. Then write a poem.") is None


def test_without_accuracy_no_probe_is_answered() -> None:
    item = probes.arithmetic(1).items[0]
    assert AccuracyReplier(None).plan(item.prompt) is None


def _share_right(accuracy: float, seed: int = 0) -> float:
    replier = AccuracyReplier(accuracy, seed)
    items = probes.arithmetic(400, seed=1).items
    right = 0
    for item in items:
        planned = replier.plan(item.prompt)
        assert planned is not None
        right += grade(item, planned.text).correct
    return right / len(items)


@pytest.mark.parametrize("accuracy", [0.0, 0.8, 0.95, 1.0])
def test_the_share_answered_right_is_the_setting_within_the_binomial_spread(
    accuracy: float,
) -> None:
    spread = 3 * (accuracy * (1 - accuracy) / 400) ** 0.5
    assert abs(_share_right(accuracy) - accuracy) <= spread + 1e-9


def test_an_item_gets_the_same_answer_every_time() -> None:
    item = probes.retrieval(1, Estimate(), context_tokens=200).items[0]
    first, second = AccuracyReplier(0.5, 7), AccuracyReplier(0.5, 7)
    assert first.plan(item.prompt) == second.plan(item.prompt)


def test_a_wrong_retrieval_answer_is_another_seven_digit_code() -> None:
    item = probes.retrieval(1, Estimate(), context_tokens=200).items[0]
    planned = AccuracyReplier(0.0).plan(item.prompt)
    assert planned is not None
    said = planned.text.removeprefix("The access code is ").rstrip(".")
    assert len(said) == 7 and said.isdigit() and said != item.expected


def test_the_simulator_reads_the_item_header_the_load_side_sends() -> None:
    from sparkload.quality.items import ITEM_HEADER as SENT
    from sparkload.sim.accuracy import ITEM_HEADER as READ

    assert SENT == READ


@pytest.mark.parametrize("accuracy", [0.8, 0.95])
def test_numbered_items_hit_the_setting_within_one_item_in_any_run_of_them(
    accuracy: float,
) -> None:
    replier = AccuracyReplier(accuracy, seed=4)
    items = probes.arithmetic(260, seed=2).items
    right = []
    for item in items:
        planned = replier.plan(item.prompt, item.id)
        assert planned is not None
        right.append(grade(item, planned.text).correct)
    for start, length in ((0, 200), (37, 50), (200, 60)):
        share = sum(right[start : start + length])
        assert abs(share - accuracy * length) <= 1
