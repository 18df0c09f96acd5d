"""Prompt datasets: JSONL messages and ShareGPT conversations, read into prompts that keep their
messages and their own output length; a bad file is one line naming the file and the line."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from sparkload import config
from sparkload.body import BodyTemplate
from sparkload.errors import ConfigError
from sparkload.inputs import datasets
from sparkload.inputs.files import UserFile
from sparkload.inputs.prompts import load_prompts
from sparkload.paths import PROMPTS_DIR, SPECULATIVE_PROMPTS
from sparkload.workloads.contract import PlannedRequest, Slot, UserState, Workload
from sparkload.workloads.registry import load, settle

SYSTEM = {"role": "system", "content": "Answer in one sentence."}


def jsonl(path: Path, *rows: dict) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def options(**values) -> config.RunOptions:
    defaults = {option.dest: option.value(None) for option in config.OPTIONS}
    return settle(config.from_namespace(type("NS", (), {**defaults, **values})()))


def first_request(workload: Workload) -> PlannedRequest:
    """The first request of a user to whom the seeded order deals prompt 0."""
    return workload.next_request(UserState(0, lambda: 0), Slot(0))


def test_a_jsonl_line_keeps_its_messages_and_its_own_max_tokens(tmp_path):
    path = jsonl(
        tmp_path / "d.jsonl",
        {
            "messages": [SYSTEM, {"role": "user", "content": "Why is the sky blue?"}],
            "max_tokens": 7,
        },
        {"prompt": "Name a prime."},
    )
    found = load_prompts(path)
    first, second = found.dataset
    assert first.messages == (SYSTEM, {"role": "user", "content": "Why is the sky blue?"})
    assert (first.max_tokens, second.max_tokens) == (7, None)
    assert second.messages == ({"role": "user", "content": "Name a prime."},)
    assert found.describe()["format"] == "jsonl" and found.describe()["with_max_tokens"] == 1


def test_sharegpt_takes_the_conversation_up_to_its_first_human_turn(tmp_path):
    conversations = [
        {
            "conversations": [
                {"from": "system", "value": "Be kind."},
                {"from": "human", "value": "Hello?"},
                {"from": "gpt", "value": "x" * 41},
                {"from": "human", "value": "And then?"},
            ]
        },
        {"conversations": [{"from": "gpt", "value": "no question was asked"}]},
    ]
    path = tmp_path / "sg.json"
    path.write_text(json.dumps(conversations, indent=2))
    found = load_prompts(path)
    assert [p.messages for p in found.dataset] == [
        ({"role": "system", "content": "Be kind."}, {"role": "user", "content": "Hello?"})
    ]
    assert found.dataset[0].max_tokens is None  # the reply's length only when asked
    assert found.describe()["skipped"] == 1
    assert load_prompts(path, reply_lengths=True).dataset[0].max_tokens == 11  # ceil(41 / 4)


def test_the_format_comes_from_the_content_when_the_extension_says_nothing(tmp_path):
    path = jsonl(tmp_path / "data.txt", {"prompt": "Hi"})
    assert load_prompts(path).dataset[0].messages == ({"role": "user", "content": "Hi"},)
    plain = tmp_path / "plain.jsonl.txt"
    plain.write_text("one prompt\nanother\n")
    assert load_prompts(plain).dataset == ()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.jsonl", '{"prompt": "ok"}\n{"prompt": "cut\n', "a.jsonl line 2: not JSON"),
        ("b.jsonl", '{"prompt": "ok"}\n\n{"text": "x"}\n', "b.jsonl line 3: no 'messages'"),
        ("c.jsonl", '{"messages": []}\n', "c.jsonl line 1: 'messages' must be a non-empty list"),
        ("d.jsonl", '{"messages": [{"role": "user"}]}', "d.jsonl line 1: message 1 needs a role"),
        ("e.jsonl", '{"prompt": "x", "max_tokens": "9"}', "e.jsonl line 1: max_tokens must be"),
        ("f.jsonl", "\n \n", "f.jsonl holds no prompts"),
        ("g.json", '[\n  {"conversations": [}\n]', "g.json line 2: not JSON"),
        ("h.json", '[{"conversations": [{"from": "bot", "value": "x"}]}]', "h.json item 1: turn 1"),
        ("i.json", "[]", "i.json holds no prompts"),
    ],
)
def test_a_bad_dataset_is_one_line_naming_the_file_and_the_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ConfigError) as caught:
        load_prompts(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_request_carries_the_messages_and_the_lines_max_tokens(tmp_path):
    path = jsonl(
        tmp_path / "d.jsonl",
        {"messages": [SYSTEM, {"role": "user", "content": "Q"}], "max_tokens": 9},
    )
    opts = options(prompts=str(path))
    workload = load(opts)
    request = first_request(workload)
    assert request.messages == (SYSTEM, {"role": "user", "content": "Q"})
    assert request.max_tokens == 9
    template = BodyTemplate.for_run(opts, workload.sampling, workload.max_tokens, "m")
    body = orjson.loads(template.encode(request))
    assert body["messages"] == [SYSTEM, {"role": "user", "content": "Q"}]
    assert body["max_tokens"] == 9


def test_cache_bust_puts_the_nonce_first_in_the_first_message(tmp_path):
    path = jsonl(tmp_path / "d.jsonl", {"messages": [SYSTEM, {"role": "user", "content": "Q"}]})
    request = first_request(load(options(prompts=str(path), cache_bust=True)))
    assert request.messages is not None
    assert request.messages[0]["content"].startswith("[request ")
    assert request.messages[0]["content"].endswith(SYSTEM["content"])
    assert request.messages[1] == {"role": "user", "content": "Q"}


def test_output_tokens_overrides_a_lines_own_max_tokens_and_pins_it(tmp_path):
    path = jsonl(tmp_path / "d.jsonl", {"prompt": "Q", "max_tokens": 9})
    opts = options(prompts=str(path), output_tokens="32")
    workload = load(opts)
    request = first_request(workload)
    assert request.max_tokens == workload.max_tokens == 32
    template = BodyTemplate.for_run(opts, workload.sampling, workload.max_tokens, "m")
    body = orjson.loads(template.encode(request))
    assert (body["max_tokens"], body["ignore_eos"], body["min_tokens"]) == (32, True, 32)


def test_completions_refuse_a_multi_message_dataset_in_one_line(tmp_path):
    path = jsonl(tmp_path / "d.jsonl", {"messages": [SYSTEM, {"role": "user", "content": "Q"}]})
    with pytest.raises(ConfigError, match="prompt 1 of .* has several messages.*--api chat"):
        load(options(prompts=str(path), api="completions"))
    single = jsonl(tmp_path / "s.jsonl", {"prompt": "Q"})
    assert first_request(load(options(prompts=str(single), api="completions"))).text == "Q"


def test_a_line_may_name_its_category(tmp_path):
    path = jsonl(
        tmp_path / "d.jsonl",
        {"prompt": "Write a sort.", "category": "coding"},
        {"prompt": "Name a prime."},
    )
    found = load_prompts(path)
    assert [p.category for p in found.dataset] == ["coding", None]
    assert found.describe()["categories"] == {"coding": 1}


@pytest.mark.parametrize("category", ["", 7, "naïve", "x" * 65])
def test_a_category_that_is_no_short_ascii_name_is_one_line_naming_the_line(tmp_path, category):
    path = jsonl(tmp_path / "d.jsonl", {"prompt": "Q"}, {"prompt": "Q", "category": category})
    with pytest.raises(ConfigError, match=r"d\.jsonl line 2: category must be"):
        load_prompts(path)


def test_a_line_s_category_goes_with_its_request():
    workload = load(options(prompts=str(SPECULATIVE_PROMPTS)))
    assert first_request(workload).category == "coding"


def test_a_conversation_keeps_its_line_s_category(tmp_path):
    path = jsonl(tmp_path / "d.jsonl", {"prompt": "Q", "category": "math"})
    found, _ = datasets.parse_conversations(
        UserFile("--prompts", path, path.read_bytes(), path.read_text()), datasets.JSONL
    )
    assert found[0].category == "math"


def test_the_speculative_set_has_every_category_of_drafting():
    found = load_prompts(SPECULATIVE_PROMPTS)
    assert set(found.describe()["categories"]) == {
        "coding",
        "math",
        "extraction",
        "summarization",
        "translation",
        "creative",
        "multi-turn",
        "rag",
    }
    assert min(found.describe()["categories"].values()) >= 4


def test_the_example_dataset_loads():
    found = load_prompts(PROMPTS_DIR / "example.jsonl")
    assert len(found.dataset) == 6 and any(len(p.messages) > 2 for p in found.dataset)


# ----- read as whole conversations (--workload conversation) ---------------------------------
def conversations(text: str, fmt: str = datasets.JSONL, reply_lengths: bool = False):
    file = UserFile("--prompts", Path("f"), text.encode(), text)
    return datasets.parse_conversations(file, fmt, reply_lengths)


def test_a_jsonl_conversation_is_its_system_prefix_then_each_user_turn_with_its_reply():
    line = {
        "messages": [
            SYSTEM,
            {"role": "user", "content": "q1"},
            {"role": "assistant", "content": "a1"},
            {"role": "user", "content": "q2"},
            {"role": "user", "content": "q3"},
        ]
    }
    (found,), skipped = conversations(json.dumps(line))
    assert (found.prefix, skipped) == ((SYSTEM,), 0)
    assert [(t.user["content"], t.reply) for t in found.turns] == [
        ("q1", "a1"),
        ("q2", None),
        ("q3", None),
    ]


def test_a_sharegpt_conversation_maps_human_and_gpt_turns():
    item = {
        "conversations": [
            {"from": "human", "value": "q1"},
            {"from": "gpt", "value": "a1"},
            {"from": "human", "value": "q2"},
            {"from": "gpt", "value": "a2"},
        ]
    }
    (found,), _ = conversations(json.dumps([item]), datasets.SHAREGPT)
    assert [(t.user, t.reply) for t in found.turns] == [
        ({"role": "user", "content": "q1"}, "a1"),
        ({"role": "user", "content": "q2"}, "a2"),
    ]


def test_reply_lengths_size_each_turn_by_its_reply():
    item = {"conversations": [{"from": "human", "value": "q"}, {"from": "gpt", "value": "x" * 40}]}
    (found,), _ = conversations(json.dumps([item]), datasets.SHAREGPT, reply_lengths=True)
    assert found.turns[0].max_tokens == 10


def test_a_prompt_line_is_a_one_turn_conversation():
    (found,), _ = conversations('{"prompt": "hello", "max_tokens": 7}')
    assert [(t.user["content"], t.reply, t.max_tokens) for t in found.turns] == [("hello", None, 7)]


def test_a_conversation_without_a_user_turn_is_skipped_and_counted():
    lines = [{"prompt": "kept"}, {"messages": [SYSTEM]}]
    found, skipped = conversations("\n".join(json.dumps(line) for line in lines))
    assert (len(found), skipped) == (1, 1)


def test_a_system_message_after_the_first_user_turn_is_refused():
    line = {"messages": [{"role": "user", "content": "q"}, SYSTEM]}
    with pytest.raises(ConfigError, match="f line 1: message 2: a system message after"):
        conversations(json.dumps(line))


def test_a_file_without_any_user_turn_is_refused_in_one_line():
    with pytest.raises(ConfigError, match="f holds no conversation with a user turn"):
        conversations(json.dumps({"messages": [SYSTEM]}))
