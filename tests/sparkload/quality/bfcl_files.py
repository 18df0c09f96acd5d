"""A BFCL-format file written as BFCL ships its data (``BFCL_v3_*.json`` JSON lines, the
simple items' answers in ``possible_answer/`` beside it) and a tool-call server's scripted
replies to it: 40 items, 30 answered right and 10 wrong in four known ways.

The right replies lean on BFCL's leniency (a location in other case and spacing, an int for a
float, an optional argument left out, a dotted function name sent and called as ``math_hypot``,
parallel calls in the other order); the wrong ones are 3 wrong functions, 2 missing arguments,
3 wrong values and 2 calls to an irrelevance item, which wants none."""

from __future__ import annotations

import json
import re
from pathlib import Path

WEATHER = {
    "name": "get_weather",
    "description": "The current weather at a place.",
    "parameters": {
        "type": "dict",
        "properties": {
            "location": {"type": "string", "description": "City and country."},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location"],
    },
}
HYPOT = {
    "name": "math.hypot",
    "description": "The Euclidean norm.",
    "parameters": {
        "type": "dict",
        "properties": {
            "x": {"type": "float"},
            "y": {"type": "float"},
            "z": {"type": "float", "description": "Optional third coordinate."},
        },
        "required": ["x", "y"],
    },
}
FLIGHT = {
    "name": "book_flight",
    "description": "Book a flight.",
    "parameters": {
        "type": "dict",
        "properties": {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string"},
            "passengers": {"type": "tuple", "items": {"type": "any"}},
        },
        "required": ["origin", "destination", "date"],
    },
}
PARIS = {"get_weather": {"location": ["Paris, France", "Paris"], "unit": ["celsius", ""]}}
TOKYO = {"get_weather": {"location": ["Tokyo, Japan", "Tokyo"], "unit": ["celsius", ""]}}
HYPOT_34 = {"math.hypot": {"x": [3.0], "y": [4.0], "z": ["", 0.0]}}
FLIGHT_SFO = {
    "book_flight": {
        "origin": ["SFO", "San Francisco"],
        "destination": ["JFK"],
        "date": ["2024-05-01"],
        "passengers": [[], ""],
    }
}

# what the server calls for each item (name as sent, arguments as JSON text); none: text
RIGHT = {
    "simple_even": [("get_weather", {"location": "paris,france"})],
    "simple_odd": [("math_hypot", {"x": 3, "y": 4})],
    "multiple": [("book_flight", {"origin": "sfo", "destination": "JFK", "date": "2024-05-01"})],
    "parallel": [("get_weather", {"location": "Tokyo"}), ("get_weather", {"location": "PARIS"})],
    "irrelevance": [],
}
WRONG = {
    "multiple_0": [("get_weather", {"location": "SFO"})],  # wrong function
    "multiple_1": [("get_weather", {"location": "JFK"})],
    "multiple_2": [("get_weather", {"location": "San Francisco"})],
    "simple_1": [("math_hypot", {"x": 3})],  # missing argument
    "multiple_3": [("book_flight", {"origin": "SFO", "destination": "JFK"})],
    "simple_2": [("get_weather", {"location": "London"})],  # wrong value
    "simple_3": [("math_hypot", {"x": 3, "y": 5})],
    "parallel_1": [("get_weather", {"location": "Paris"}), ("get_weather", {"location": "Rome"})],
    "irrelevance_0": [("get_weather", {"location": "Oslo"})],  # called when it should not
    "irrelevance_1": [("get_weather", {"location": "Lima"})],
}
BUCKETS = {"wrong_function": 3, "missing_argument": 2, "wrong_value": 3, "unwanted_call": 2}
CATEGORIES = {"simple": (20, 17), "multiple": (8, 4), "parallel": (6, 5), "irrelevance": (6, 4)}
_ID = re.compile(r"^\[(\w+)\]")


def _question(item_id: str, text: str) -> list[list[dict]]:
    return [[{"role": "user", "content": f"[{item_id}] {text}"}]]


def write(folder: Path) -> Path:
    """The 40-item file (and its answer file); its path."""
    lines, answers = [], []
    for i in range(20):
        item_id = f"simple_{i}"
        if i % 2 == 0:
            row = {"question": _question(item_id, "Weather in Paris?"), "function": [WEATHER]}
            answers.append({"id": item_id, "ground_truth": [PARIS]})
        else:
            row = {"question": _question(item_id, "Hypotenuse of 3 and 4?"), "function": [HYPOT]}
            answers.append({"id": item_id, "ground_truth": [HYPOT_34]})
        lines.append({"id": item_id, **row})
    for i in range(8):
        item_id = f"multiple_{i}"
        question = _question(item_id, "Book SFO to JFK on 1 May 2024.")
        functions = [WEATHER, FLIGHT]
        lines.append({"id": item_id, "question": question, "function": functions})
        lines[-1]["ground_truth"] = [FLIGHT_SFO]
    for i in range(6):
        item_id = f"parallel_{i}"
        question = _question(item_id, "Weather in Paris and in Tokyo?")
        lines.append({"id": item_id, "question": question, "function": [WEATHER]})
        lines[-1]["ground_truth"] = [PARIS, TOKYO]
    for i in range(6):
        item_id = f"irrelevance_{i}"
        question = _question(item_id, "Who wrote Hamlet?")
        lines.append({"id": item_id, "question": question, "function": [WEATHER]})
    path = folder / "BFCL_v3_mixed.json"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (folder / "possible_answer").mkdir(exist_ok=True)
    (folder / "possible_answer" / path.name).write_text(
        "".join(json.dumps(answer) + "\n" for answer in answers)
    )
    return path


def calls_for(body: dict) -> list[tuple[str, str]]:
    """The scripted server's calls for a request: the item's (told by its question)."""
    found = _ID.match(body["messages"][-1]["content"])
    assert found is not None, body["messages"]
    item_id = found.group(1)
    if item_id in WRONG:
        planned = WRONG[item_id]
    else:
        category, number = item_id.rsplit("_", 1)
        key = (
            f"simple_{'even' if int(number) % 2 == 0 else 'odd'}"
            if category == "simple"
            else category
        )
        planned = RIGHT[key]
    return [(name, json.dumps(arguments)) for name, arguments in planned]
