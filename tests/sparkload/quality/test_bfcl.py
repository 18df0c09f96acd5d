"""Reading BFCL's format: the item's messages and tools as sent (BFCL's type names made JSON
Schema's, a dotted name made a tool name), its answer inline or from ``possible_answer/``, its
category; and every bad line one ConfigError naming the file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.errors import ConfigError
from sparkload.quality.bfcl import ANY_CALL, NO_CALL, category_of, schema
from sparkload.quality.datasets import read_dataset
from sparkload.quality.items import KIND_BFCL, MATCH_TOOL_CALLS
from tests.sparkload.quality.bfcl_files import FLIGHT, HYPOT, WEATHER

# BFCL v3's simple_0, as its BFCL_v3_simple.json and possible_answer/ hold it
SIMPLE_0 = {
    "id": "simple_0",
    "question": [[{"role": "user", "content": "Find the area of a triangle with a base of 10."}]],
    "function": [
        {
            "name": "calculate_triangle_area",
            "description": "Calculate the area of a triangle given its base and height.",
            "parameters": {
                "type": "dict",
                "properties": {
                    "base": {"type": "integer", "description": "The base of the triangle."},
                    "height": {"type": "integer", "description": "The height of the triangle."},
                    "unit": {"type": "string", "description": "The unit of measure."},
                },
                "required": ["base", "height"],
            },
        }
    ],
}
SIMPLE_0_ANSWER = {
    "id": "simple_0",
    "ground_truth": [
        {"calculate_triangle_area": {"base": [10], "height": [5], "unit": ["units", ""]}}
    ],
}


def lines(path: Path, *rows: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_an_item_is_sent_as_its_messages_with_its_tools_and_tool_choice_auto(tmp_path):
    path = lines(tmp_path / "BFCL_v3_simple.json", SIMPLE_0)
    lines(tmp_path / "possible_answer" / "BFCL_v3_simple.json", SIMPLE_0_ANSWER)
    items = read_dataset(path)
    assert (items.kind, items.items[0].match, items.items[0].category) == (
        KIND_BFCL,
        MATCH_TOOL_CALLS,
        "simple",
    )
    planned = items.planned(0, 64)
    assert planned.messages == tuple(SIMPLE_0["question"][0])
    assert planned.tool_choice == "auto" and planned.wants_reply
    (tool,) = planned.tools or ()
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "calculate_triangle_area"
    assert tool["function"]["parameters"]["type"] == "object"
    answer = items.items[0].answer
    assert answer is not None
    assert answer.calls == (
        ("calculate_triangle_area", SIMPLE_0_ANSWER["ground_truth"][0]["calculate_triangle_area"]),
    )


def test_bfcl_type_names_become_json_schema_s():
    sent = schema(FLIGHT["parameters"])
    assert sent["type"] == "object"
    assert sent["properties"]["passengers"] == {"type": "array", "items": {}}  # any: no type
    assert schema(HYPOT["parameters"])["properties"]["x"] == {"type": "number"}
    assert schema({"type": "dict", "properties": {"m": {"type": "HashMap"}}})["properties"] == {
        "m": {"type": "string"}  # Java's and JavaScript's names: strings, as BFCL sends them
    }


def test_a_dotted_function_name_is_sent_as_a_tool_name_and_read_back(tmp_path):
    row = {
        "id": "simple_1",
        "question": "Hypotenuse of 3 and 4?",  # BFCL v1's plain question
        "function": HYPOT,  # and its one function, not a list
        "ground_truth": [{"math.hypot": {"x": [3.0], "y": [4.0]}}],
    }
    (item,) = read_dataset(lines(tmp_path / "v1.json", row)).items
    assert [tool["function"]["name"] for tool in item.tools or ()] == ["math_hypot"]
    assert item.answer is not None and item.answer.names == {"math_hypot": "math.hypot"}
    assert item.messages == ({"role": "user", "content": "Hypotenuse of 3 and 4?"},)


def test_an_irrelevance_item_without_ground_truth_wants_no_call(tmp_path):
    row = {"id": "irrelevance_3", "question": [[{"role": "user", "content": "Hi"}]]}
    (item,) = read_dataset(
        lines(tmp_path / "BFCL_v3_irrelevance.json", {**row, "function": [WEATHER]})
    ).items
    assert item.answer is not None and item.answer.calls == ()
    assert (item.expected, item.category) == (NO_CALL, "irrelevance")


def test_an_irrelevance_item_may_offer_no_function_and_then_sends_no_tools(tmp_path):
    row = {"id": "live_irrelevance_120-9-0", "question": "Weather in Boston?", "function": []}
    (item,) = read_dataset(lines(tmp_path / "BFCL_v4_live_irrelevance.json", row)).items
    assert item.tools is None and item.answer is not None and item.answer.calls == ()
    planned = read_dataset(tmp_path / "BFCL_v4_live_irrelevance.json").planned(0, 8)
    assert (planned.tools, planned.tool_choice) == (None, None)


def test_a_relevance_item_without_ground_truth_wants_any_call(tmp_path):
    row = {"id": "live_relevance_0-0-0", "question": "Weather?", "function": [WEATHER]}
    (item,) = read_dataset(lines(tmp_path / "BFCL_v4_live_relevance.json", row)).items
    assert item.answer is not None and item.answer.any_call
    assert item.expected == ANY_CALL


@pytest.mark.parametrize(
    ("item_id", "file", "category"),
    [
        ("simple_12", "x.json", "simple"),
        ("parallel_multiple_7", "x.json", "parallel_multiple"),
        ("live_simple_3-3-0", "x.json", "live_simple"),
        ("7", "BFCL_v3_multiple.json", "multiple"),
        ("7", "tools.jsonl.gz", "tools"),
    ],
)
def test_the_category_is_the_id_s_prefix_else_the_file_s_name(item_id, file, category):
    assert category_of(item_id, Path(file)) == category


def test_the_form_may_be_named(tmp_path):
    path = lines(
        tmp_path / "odd.jsonl", {**SIMPLE_0, "ground_truth": SIMPLE_0_ANSWER["ground_truth"]}
    )
    assert read_dataset(path, form=KIND_BFCL).kind == KIND_BFCL


def error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        read_dataset(path)
    said = str(caught.value)
    assert "\n" not in said
    return said


def test_an_answer_that_names_no_offered_function_is_refused_at_its_line(tmp_path):
    other = {**SIMPLE_0, "id": "simple_1", "ground_truth": [{"area_of": {"base": [1]}}]}
    said = error(lines(tmp_path / "b.json", {**SIMPLE_0, "ground_truth": []}, other))
    assert said == (
        f"--dataset: {tmp_path / 'b.json'} line 2: the answer calls 'area_of', which is not among "
        "the item's functions (calculate_triangle_area)"
    )


def test_a_bad_answer_in_the_answer_file_is_refused_at_that_file_s_line(tmp_path):
    path = lines(tmp_path / "BFCL_v3_simple.json", SIMPLE_0)
    answers = tmp_path / "possible_answer" / "BFCL_v3_simple.json"
    lines(answers, {"id": "simple_0", "ground_truth": [{"nope": {}}]})
    assert error(path).startswith(f"--dataset: {answers} line 1: the answer calls 'nope'")


def test_an_id_missing_from_the_answer_file_is_refused(tmp_path):
    path = lines(tmp_path / "BFCL_v3_simple.json", SIMPLE_0, {**SIMPLE_0, "id": "simple_9"})
    answers = lines(tmp_path / "possible_answer" / "BFCL_v3_simple.json", SIMPLE_0_ANSWER)
    assert error(path) == (
        f"--dataset: {path} line 2: id 'simple_9' is not in the answer file {answers}"
    )


def test_answer_files_may_be_given_and_come_before_bfcl_s_own(tmp_path):
    path = lines(tmp_path / "BFCL_v3_simple.json", SIMPLE_0, {**SIMPLE_0, "id": "simple_9"})
    beside = lines(tmp_path / "possible_answer" / "BFCL_v3_simple.json", SIMPLE_0_ANSWER)
    other = {"calculate_triangle_area": {"base": [7], "height": [1]}}
    given = lines(
        tmp_path / "elsewhere.jsonl",
        {"id": "simple_9", "ground_truth": [other]},
        {"id": "simple_0", "ground_truth": [other]},
    )
    first, ninth = read_dataset(path, answers=(given,)).items
    assert first.answer is not None and ninth.answer is not None
    assert (
        first.answer.calls
        == ninth.answer.calls
        == (("calculate_triangle_area", other["calculate_triangle_area"]),)
    )
    lines(given, {"id": "simple_0", "ground_truth": [other]})
    with pytest.raises(ConfigError) as caught:
        read_dataset(path, answers=(given,))
    assert str(caught.value) == (
        f"--dataset: {path} line 2: id 'simple_9' is not in the answer files {given}, {beside}"
    )


def test_a_given_answer_file_that_is_not_there_is_named_by_its_flag(tmp_path):
    path = lines(tmp_path / "BFCL_v3_simple.json", SIMPLE_0)
    with pytest.raises(ConfigError) as caught:
        read_dataset(path, answers=(tmp_path / "nope.json",))
    assert str(caught.value) == f"--answers: no such file: {tmp_path / 'nope.json'}"


def test_an_item_without_any_answer_names_where_it_could_be(tmp_path):
    path = lines(tmp_path / "BFCL_v3_simple.json", SIMPLE_0)
    assert error(path) == (
        f"--dataset: {path} line 1: no ground_truth for 'simple_0' (give it inline, or in "
        f"BFCL's answer file {tmp_path / 'possible_answer' / 'BFCL_v3_simple.json'})"
    )


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ({"question": [[], []]}, "2 turns: only single-turn items are graded"),
        ({"question": [[{"role": "user"}]]}, "a message is not {role, content}"),
        ({"function": "get_weather"}, "no function"),
        ({"function": [{"description": "x"}]}, "a function has no name"),
        ({"ground_truth": "f(1)"}, "ground_truth is not a list of calls"),
        (
            {"ground_truth": [{"calculate_triangle_area": {"base": 10}}]},
            "'calculate_triangle_area' argument 'base': give its allowed values as a list",
        ),
    ],
)
def test_a_malformed_item_is_refused_at_its_line(tmp_path, row, said):
    path = lines(tmp_path / "b.json", {**SIMPLE_0, "ground_truth": [], **row})
    found = error(path)
    assert found.startswith(f"--dataset: {path} line 1: ") and said in found


def test_an_unparseable_line_is_refused_at_its_line(tmp_path):
    path = tmp_path / "b.json"
    path.write_text(json.dumps({**SIMPLE_0, "ground_truth": []}) + "\n{not json\n")
    assert error(path).startswith(f"--dataset: {path} line 2: not JSON")
