"""The built-in probes: generated from a seed, item by item, with exact answers; the retrieval
key at the asked depth of a context of the asked length."""

from __future__ import annotations

import re

import pytest

from sparkload.errors import ConfigError
from sparkload.quality import probes
from sparkload.quality.graders import grade
from sparkload.quality.items import MATCH_CONTAINS, MATCH_NUMERIC
from sparkload.workloads.fitting import Estimate

SENTENCE = re.compile(r"[^.?]*[.?]")


def solve(story: str) -> tuple[int, int]:
    """(operations, answer) of an arithmetic problem, read from its words alone (not from the
    generator)."""
    sentences = [s.strip() for s in SENTENCE.findall(story.split("\n\n")[0])]
    total = int(re.search(r"starts the week with (\d+)", sentences[0]).group(1))
    operations = 0
    for sentence in sentences[1:-1]:
        operations += 1
        if found := re.fullmatch(r"Then (\d+) more \w+ arrive\.", sentence):
            total += int(found.group(1))
        elif found := re.fullmatch(r"Then (\d+) boxes of (\d+) \w+ each arrive\.", sentence):
            total += int(found.group(1)) * int(found.group(2))
        elif found := re.fullmatch(r"Then (\d+) \w+ are taken away\.", sentence):
            total -= int(found.group(1))
        elif "doubles" in sentence:
            total *= 2
        elif "triples" in sentence:
            total *= 3
        elif "four times as large" in sentence:
            total *= 4
        elif found := re.search(r"shared equally among (\d+)", sentence):
            assert total % int(found.group(1)) == 0, sentence
            total //= int(found.group(1))
        else:
            raise AssertionError(f"an operation the test does not know: {sentence!r}")
        assert 0 < total < probes.MAX_VALUE
    assert sentences[-1].startswith("How many")
    return operations, total


@pytest.mark.parametrize("steps", [1, 4, 9])
def test_every_arithmetic_answer_is_what_its_words_say(steps):
    items = probes.arithmetic(60, seed=3, steps=steps)
    for item in items.items:
        assert item.match == MATCH_NUMERIC
        assert solve(item.prompt) == (steps, int(item.expected)), item.prompt
        assert "#### N" in item.prompt
        assert grade(item, f"step by step...\n#### {item.expected}").correct


def test_arithmetic_is_the_same_for_a_seed_and_an_item_does_not_depend_on_the_count():
    fifty = probes.arithmetic(50, seed=7, steps=4)
    assert fifty == probes.arithmetic(50, seed=7, steps=4)
    assert probes.arithmetic(20, seed=7, steps=4).items == fifty.items[:20]
    assert probes.arithmetic_item(33, 7, 4) == fifty.items[33]
    other = probes.arithmetic(50, seed=8, steps=4)
    assert sum(a.prompt == b.prompt for a, b in zip(fifty.items, other.items, strict=True)) < 3
    assert [item.id for item in fifty.items[:2]] == ["arithmetic-1", "arithmetic-2"]
    assert fifty.parameters == {"seed": 7, "steps": 4}


def test_arithmetic_difficulty_is_bounded():
    with pytest.raises(ConfigError, match="--steps: give 1 to 20"):
        probes.arithmetic(5, steps=0)
    with pytest.raises(ConfigError, match="--limit: give 1 or more"):
        probes.arithmetic(0)


def key_at(item) -> tuple[str, int]:
    context = item.prompt.split("\n\n")[1]
    return context, context.find(f" is {item.expected}.")


@pytest.mark.parametrize("depth", [0.0, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("tokens", [500, 4000])
def test_the_retrieval_key_sits_at_the_asked_depth_of_the_asked_length(depth, tokens):
    counter = Estimate()  # 4 characters a token: depth in characters is depth in tokens
    items = probes.retrieval(5, counter, seed=1, context_tokens=tokens, depth=depth)
    for item in items.items:
        context, at = key_at(item)
        assert item.match == MATCH_CONTAINS
        assert context.count(item.expected) == 1
        assert abs(counter.count(context) - tokens) <= 2
        assert item.details["context_tokens"] == counter.count(context)
        sentence = 30 / tokens  # the key goes in at a sentence end: about 30 tokens apart
        assert abs(at / len(context) - depth) <= sentence + 0.01, (at, len(context))
        assert abs(item.details["depth"] - depth) <= sentence + 0.01
        assert grade(item, f"The code is {item.expected}.").correct
        assert not grade(item, "The code is 1234567.").correct
    if depth == 0:
        assert all(key_at(item)[0].startswith("Note: the access code") for item in items.items)
    if depth == 1:
        assert all(key_at(item)[0].endswith(f"{item.expected}.") for item in items.items)


def test_retrieval_is_the_same_for_a_seed_and_its_parameters_are_kept():
    counter = Estimate()
    ten = probes.retrieval(10, counter, seed=2, context_tokens=300, depth=0.25)
    assert ten == probes.retrieval(10, counter, seed=2, context_tokens=300, depth=0.25)
    three = probes.retrieval(3, counter, seed=2, context_tokens=300, depth=0.25)
    assert three.items == ten.items[:3]
    assert len({item.expected for item in ten.items}) == 10
    other = probes.retrieval(10, counter, seed=3, context_tokens=300, depth=0.25)
    assert not {item.expected for item in ten.items} & {item.expected for item in other.items}
    assert ten.parameters["token_count"] == "estimate:4-chars"
    assert ten.parameters["context_tokens"] == 300
    low, high = ten.parameters["depth_counted"]
    assert low <= high and abs(low - 0.25) < 0.15


def test_retrieval_parameters_are_checked():
    with pytest.raises(ConfigError, match="--context-tokens: give 32 or more"):
        probes.check_retrieval(10, 0.5)
    with pytest.raises(ConfigError, match="--depth: give a share of the context from 0 to 1"):
        probes.check_retrieval(1000, 1.5)
