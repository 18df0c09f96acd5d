"""Grading tool calls as BFCL's AST checker does: what is right (BFCL's leniency), and each
way of being wrong in its own bucket."""

from __future__ import annotations

import json

import pytest

from sparkload.quality.graders import failure, grade
from sparkload.quality.items import MATCH_TOOL_CALLS, Item, ToolAnswer
from sparkload.quality.toolcalls import among, standardized
from sparkload.records import (
    BAD_ARGUMENTS,
    EXTRA_ARGUMENT,
    MISSING_ARGUMENT,
    NO_CALL,
    UNWANTED_CALL,
    WRONG_COUNT,
    WRONG_FUNCTION,
    WRONG_VALUE,
)
from sparkload.transport.tally import ToolCall
from tests.sparkload.quality.bfcl_files import (
    FLIGHT,
    FLIGHT_SFO,
    HYPOT,
    HYPOT_34,
    PARIS,
    TOKYO,
    WEATHER,
)

HYPOT_34_Z = {"math.hypot": {"x": [3.0], "y": [4.0], "z": [0.0]}}  # z may not be left out
FUNCTIONS = {f["name"]: f["parameters"] for f in (WEATHER, HYPOT, FLIGHT)}


def item(*calls: dict) -> Item:
    wanted = tuple((name, args) for call in calls for name, args in call.items())
    answer = ToolAnswer(FUNCTIONS, wanted, {"math_hypot": "math.hypot"})
    return Item("i", "", "", MATCH_TOOL_CALLS, answer=answer)


def said(*calls: tuple[str, object]) -> list[ToolCall]:
    return [
        ToolCall(i, name=name, arguments=args if isinstance(args, str) else json.dumps(args))
        for i, (name, args) in enumerate(calls)
    ]


@pytest.mark.parametrize(
    ("wanted", "calls"),
    [
        ((PARIS,), [("get_weather", {"location": "  paris, FRANCE"})]),
        ((PARIS,), [("get_weather", {"location": "Paris", "unit": "Celsius"})]),
        ((HYPOT_34,), [("math_hypot", {"x": 3, "y": 4})]),
        ((HYPOT_34,), [("math.hypot", {"x": 3.0, "y": 4.0, "z": 0})]),
        (
            (FLIGHT_SFO,),
            [
                (
                    "book_flight",
                    {"origin": "SFO", "destination": "JFK", "date": "2024-05-01", "passengers": []},
                )
            ],
        ),
        (
            (PARIS, TOKYO),
            [("get_weather", {"location": "Tokyo"}), ("get_weather", {"location": "Paris"})],
        ),
    ],
)
def test_right_calls_as_bfcl_reads_them(wanted, calls):
    graded = grade(item(*wanted), "", said(*calls))
    assert graded.correct and failure(item(*wanted), said(*calls)) is None


@pytest.mark.parametrize(
    ("wanted", "calls", "bucket"),
    [
        ((FLIGHT_SFO,), [("get_weather", {"location": "SFO"})], WRONG_FUNCTION),
        ((PARIS,), [("get_weather", {"unit": "celsius"})], MISSING_ARGUMENT),
        # not required by the function, but the answer allows no leaving it out
        ((HYPOT_34_Z,), [("math_hypot", {"x": 3, "y": 4})], MISSING_ARGUMENT),
        ((PARIS,), [("get_weather", {"location": "London"})], WRONG_VALUE),
        ((PARIS,), [("get_weather", {"location": "Paris", "unit": "kelvin"})], WRONG_VALUE),
        ((HYPOT_34_Z,), [("math_hypot", {"x": "3", "y": 4, "z": 0})], WRONG_VALUE),  # a type
        ((HYPOT_34_Z,), [("math_hypot", {"x": True, "y": 4, "z": 0})], WRONG_VALUE),
        ((PARIS,), [("get_weather", {"location": "Paris", "days": 3})], EXTRA_ARGUMENT),
        ((), [("get_weather", {"location": "Paris"})], UNWANTED_CALL),
        ((PARIS,), [], NO_CALL),
        ((PARIS, TOKYO), [("get_weather", {"location": "Paris"})], WRONG_COUNT),
        ((PARIS,), [("get_weather", '{"location": "Par')], BAD_ARGUMENTS),
        (
            (PARIS, TOKYO),
            [("get_weather", {"location": "Rome"}), ("get_weather", {"location": "Paris"})],
            WRONG_VALUE,
        ),
    ],
)
def test_each_wrong_reply_lands_in_its_bucket(wanted, calls, bucket):
    assert not grade(item(*wanted), "", said(*calls)).correct
    assert failure(item(*wanted), said(*calls)) == bucket


def test_an_irrelevance_item_is_right_when_nothing_is_called():
    assert grade(item(), "I cannot help with that.", []) == (None, True)


def test_a_relevance_item_is_right_when_anything_is_called():
    relevance = Item("r", "", "", MATCH_TOOL_CALLS, answer=ToolAnswer(FUNCTIONS, (), any_call=True))
    made = said(("get_weather", {"location": "Nowhere"}))
    assert grade(relevance, "", made).correct and failure(relevance, made) is None
    assert failure(relevance, []) == NO_CALL


def test_what_was_read_is_the_calls_under_the_item_s_names():
    graded = grade(item(HYPOT_34), "", said(("math_hypot", {"x": 3, "y": 4})))
    assert graded.extracted == 'math.hypot({"x": 3, "y": 4})'


def test_strings_compare_without_case_spaces_and_bfcl_s_punctuation():
    assert (
        standardized("San Francisco, CA") == standardized("san-francisco ca.") == "sanfranciscoca"
    )
    assert standardized("it's") == 'it"s'


def test_lists_compare_in_order_and_dicts_key_by_key():
    assert among(["A", 2], [["a", 2.0]]) and not among([2, "A"], [["a", 2]])
    assert among({"city": "Paris"}, [{"city": ["paris"], "zip": ["", "75001"]}])
    assert not among({"city": "Paris"}, [{"city": ["paris"], "zip": ["75001"]}])
    assert not among({"city": "Paris", "x": 1}, [{"city": ["paris"]}])
