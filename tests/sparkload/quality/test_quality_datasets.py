"""The user's dataset files: GSM8K, multiple choice in MMLU's layouts, a generic file; and every
bad file refused with one line that names the file and the line."""

from __future__ import annotations

import json

import pytest

from sparkload.errors import ConfigError
from sparkload.quality.datasets import read_dataset
from sparkload.quality.items import (
    KIND_CHOICE,
    KIND_GENERIC,
    KIND_GSM8K,
    MATCH_CHOICE,
    MATCH_EXACT,
    MATCH_NUMERIC,
    MATCH_REGEX,
)

GSM8K_LINE = {
    "question": "Natalia sold clips to 48 of her friends in April, and then she sold half as many "
    "clips in May. How many clips did Natalia sell altogether in April and May?",
    "answer": "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n"
    "Natalia sold 48+24 = <<48+24=72>>72 clips altogether in April and May.\n#### 72",
}


def jsonl(path, rows) -> object:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_gsm8k_file_asks_each_question_and_keeps_the_final_number(tmp_path):
    rows = [GSM8K_LINE, {"question": "How much?", "answer": "2 * 500 = 1000\n#### 1,000"}]
    items = read_dataset(jsonl(tmp_path / "gsm8k.jsonl", rows))
    assert (items.kind, items.name, len(items.items)) == (KIND_GSM8K, "gsm8k.jsonl", 2)
    first, second = items.items
    assert (first.id, first.expected, first.match) == ("1", "72", MATCH_NUMERIC)
    assert second.expected == "1000"
    assert first.prompt.startswith(GSM8K_LINE["question"])
    assert "<<48/2=24>>" not in first.prompt  # the worked solution is never shown
    assert "####" in first.prompt  # the model is asked to mark its final answer
    assert len(items.sha256 or "") == 64


def test_ids_are_the_items_own_or_their_line_numbers(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(
        json.dumps({**GSM8K_LINE, "id": "q-17"}) + "\n\n" + json.dumps(GSM8K_LINE) + "\n"
    )
    assert [item.id for item in read_dataset(path).items] == ["q-17", "3"]


def test_mmlu_jsonl_with_an_index_answer(tmp_path):
    row = {
        "question": "What is the capital of France?",
        "subject": "geography",
        "choices": ["London", "Berlin", "Paris", "Rome"],
        "answer": 2,  # cais/mmlu: a 0-based index
    }
    (item,) = read_dataset(jsonl(tmp_path / "mmlu.jsonl", [row])).items
    assert (item.expected, item.match, item.letters) == ("C", MATCH_CHOICE, "ABCD")
    assert "C) Paris" in item.prompt and "Answer: X" in item.prompt


@pytest.mark.parametrize(
    "row",
    [
        {"question": "q?", "A": "w", "B": "x", "C": "y", "D": "z", "answer": "B"},
        {"question": "q?", "choices": ["w", "x", "y", "z"], "answer": "B"},
        {"question": "q?", "choices": ["w", "x", "y", "z"], "answer": "(b)"},
        {"question": "q?", "choices": ["w", "x", "y", "z"], "answer": "1"},
        {"question": "q?", "options": ["w", "x", "y", "z", "v"], "answer_index": 1},  # MMLU-Pro
    ],
)
def test_every_documented_multiple_choice_layout_reads(tmp_path, row):
    items = read_dataset(jsonl(tmp_path / "mc.jsonl", [row]))
    assert items.kind == KIND_CHOICE
    assert items.items[0].expected == "B"


def test_a_json_array_of_items(tmp_path):
    path = tmp_path / "mc.json"
    rows = [{"question": f"q{i}?", "choices": ["a", "b"], "answer": i % 2} for i in range(3)]
    path.write_text(json.dumps(rows))
    items = read_dataset(path)
    assert [(i.id, i.expected) for i in items.items] == [("1", "A"), ("2", "B"), ("3", "A")]


def test_json_lines_under_a_json_name(tmp_path):  # what Hugging Face's to_json writes
    items = read_dataset(jsonl(tmp_path / "gsm8k.json", [GSM8K_LINE, GSM8K_LINE]))
    assert [item.id for item in items.items] == ["1", "2"]


def test_hendrycks_csv_without_a_header(tmp_path):
    path = tmp_path / "abstract_algebra_test.csv"
    path.write_text(
        '"Find the degree of Q(sqrt(2)) over Q.",0,4,2,6,C\n'
        '"Let p = (1, 2, 5, 4)(2, 3) in S_5, find the index of <p>.",8,2,24,120,C\n'
    )
    items = read_dataset(path)
    assert [(i.id, i.expected, i.choices) for i in items.items] == [
        ("1", "C", ("0", "4", "2", "6")),
        ("2", "C", ("8", "2", "24", "120")),
    ]


def test_simple_evals_csv_with_a_header(tmp_path):
    path = tmp_path / "mmlu.csv"
    path.write_text(
        ",Question,A,B,C,D,Answer,Subject\n"
        '0,"A line\nthat breaks",w,x,y,z,D,anatomy\n'
        "1,Another?,w,x,y,z,A,anatomy\n"
    )
    items = read_dataset(path)
    assert [(i.id, i.expected) for i in items.items] == [("3", "D"), ("4", "A")]
    assert "A line\nthat breaks" in items.items[0].prompt


def test_a_generic_file_matches_per_line_or_per_file(tmp_path):
    rows = [
        {"prompt": "Capital of France?", "expected": "Paris"},
        {"prompt": "2+2?", "expected": 4, "match": "numeric"},
        {"prompt": "pi?", "expected": "3.14", "match": "numeric", "tolerance": 0.01},
        {"prompt": "A date?", "expected": r"\d{4}-\d{2}-\d{2}", "match": "regex"},
    ]
    items = read_dataset(jsonl(tmp_path / "mine.jsonl", rows))
    assert items.kind == KIND_GENERIC
    assert [(i.match, i.expected, i.tolerance) for i in items.items] == [
        (MATCH_EXACT, "Paris", 1e-6),
        (MATCH_NUMERIC, "4", 1e-6),
        (MATCH_NUMERIC, "3.14", 0.01),
        (MATCH_REGEX, r"\d{4}-\d{2}-\d{2}", 1e-6),
    ]
    numbers = jsonl(tmp_path / "numbers.jsonl", [{"prompt": "2+2?", "expected": "4"}])
    (item,) = read_dataset(numbers, match="numeric", tolerance=0.5).items
    assert (item.match, item.tolerance) == (MATCH_NUMERIC, 0.5)
    with pytest.raises(ConfigError, match=r"mine.jsonl line 1: expected 'Paris' is not a number"):
        read_dataset(tmp_path / "mine.jsonl", match="numeric")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("g.jsonl", "", r"--dataset: .*g.jsonl: no items in it"),
        ("g.jsonl", "\n  \n", r"g.jsonl: no items in it"),
        (
            "g.jsonl",
            '{"question": "q", "answer": "#### 1"}\nnot json\n',
            r"g.jsonl line 2: not JSON",
        ),
        ("g.jsonl", "[1, 2]\n", r"g.jsonl line 1: not a JSON object"),
        (
            "g.jsonl",
            '{"question": "q", "answer": "72"}\n',
            r"g.jsonl line 1: answer has no '#### N'",
        ),
        (
            "g.jsonl",
            '{"question": "q", "answer": "#### 1"}\n{"question": "q", "answer": "#### many"}\n',
            r"g.jsonl line 2: answer ends '#### many'",
        ),
        (
            "g.jsonl",
            '{"question": "q", "answer": "#### 1"}\n{"question": "", "answer": "#### 1"}\n',
            r"g.jsonl line 2: no question",
        ),
        ("g.jsonl", '{"text": "hello"}\n', r"g.jsonl line 1: not an item sparkload grades"),
        (
            "mc.jsonl",
            '{"question": "q", "choices": ["a", "b"], "answer": "C"}\n',
            r"mc.jsonl line 1: answer 'C' is not one of the options",
        ),
        (
            "mc.jsonl",
            '{"question": "q", "choices": ["a", "b"], "answer": 2}\n',
            r"mc.jsonl line 1: answer 2 is not one of the options",
        ),
        (
            "mc.jsonl",
            '{"question": "q", "choices": ["a", "b"]}\n',
            r"mc.jsonl line 1: answer none is not one of the options",
        ),
        (
            "mc.jsonl",
            '{"question": "q", "choices": ["a"], "answer": 0}\n',
            r"mc.jsonl line 1: only 1 option \(give 2 to 10\)",
        ),
        ("p.jsonl", '{"prompt": "q"}\n', r"p.jsonl line 1: no expected"),
        (
            "p.jsonl",
            '{"prompt": "q", "expected": "x", "match": "fuzzy"}\n',
            r"p.jsonl line 1: match",
        ),
        (
            "p.jsonl",
            '{"prompt": "q", "expected": "(", "match": "regex"}\n',
            r"p.jsonl line 1: expected is not a regular expression",
        ),
        (
            "p.jsonl",
            '{"prompt": "q", "expected": "1", "match": "numeric", "tolerance": -1}\n',
            r"p.jsonl line 1: tolerance must be a number >= 0",
        ),
        (
            "p.jsonl",
            '{"prompt": "q", "expected": "1", "id": 7}\n'
            '{"prompt": "q", "expected": "1", "id": "7"}\n',
            r"p.jsonl line 2: id '7' given twice \(first on line 1\)",
        ),
        ("mc.csv", "question,answer\nq,\n", r"mc.csv line 2: no answer"),
        ("mc.csv", "q,a,b\n", r"mc.csv line 1: give question, two or more options"),
        (
            "mc.csv",
            "question,A,B,answer\nq,a,b\n",
            r"mc.csv line 2: 3 cells where the header has 4",
        ),
        ("a.json", '"items"', r"a.json: neither a JSON array of items nor JSON lines"),
        ("a.json", '[{"question": "q", "answer": "#### 1"}, 3]', r"a.json item 2: not"),
    ],
)
def test_a_bad_file_is_one_line_naming_the_file_and_line(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        read_dataset(path)
    assert "\n" not in str(caught.value)


def test_a_missing_or_binary_file(tmp_path):
    with pytest.raises(ConfigError, match=r"--dataset: no such file: .*nowhere.jsonl"):
        read_dataset(tmp_path / "nowhere.jsonl")
    (tmp_path / "b.jsonl").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ConfigError, match=r"b.jsonl is not UTF-8 text"):
        read_dataset(tmp_path / "b.jsonl")


def test_a_form_named_holds_every_line_to_it(tmp_path):
    path = jsonl(tmp_path / "g.jsonl", [{"question": "q", "choices": ["a", "b"], "answer": 0}])
    with pytest.raises(ConfigError, match=r"g.jsonl line 1: no answer \(GSM8K"):
        read_dataset(path, form=KIND_GSM8K)


def test_limited_keeps_the_first_items(tmp_path):
    items = read_dataset(jsonl(tmp_path / "g.jsonl", [GSM8K_LINE] * 5)).limited(2)
    assert [item.id for item in items.items] == ["1", "2"]
    assert items.parameters["limit"] == 2
