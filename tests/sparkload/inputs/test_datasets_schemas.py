"""A dataset whose lines carry their own JSON Schema: each request asks for its line's schema,
its reply is judged by it, and a bad schema is one line naming the dataset's line."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from sparkload import config
from sparkload.body import BodyTemplate
from sparkload.errors import ConfigError
from sparkload.inputs.prompts import load_prompts
from sparkload.run.context import RunContext
from sparkload.workloads.contract import Slot, UserState
from sparkload.workloads.registry import load, settle

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def jsonl(path: Path, *rows: dict) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def options(**values) -> config.RunOptions:
    defaults = {option.dest: option.value(None) for option in config.OPTIONS}
    return settle(config.from_namespace(type("NS", (), {**defaults, **values})()))


def test_a_lines_schema_is_sent_as_its_requests_response_format_and_judges_its_reply(tmp_path):
    opts = options(prompts=str(jsonl(tmp_path / "d.jsonl", {"prompt": "Where?", "schema": CITY})))
    workload = load(opts)
    request = workload.next_request(UserState(0, lambda: 0), Slot(0))
    body = orjson.loads(BodyTemplate.for_run(opts, workload.sampling, 16, "m").encode(request))
    assert body["response_format"]["json_schema"]["schema"] == CITY
    checker = RunContext(opts, workload, (), {}).checker_for(request)
    assert checker is not None
    assert checker.verdict('{"city": "Oslo"}', "stop") == "valid"
    assert checker.verdict('{"town": "Oslo"}', "stop") == "schema_error"


def test_a_line_without_a_schema_asks_for_none():
    opts = options()
    workload = load(opts)
    request = workload.next_request(UserState(0, lambda: 0), Slot(0))
    assert "response_format" not in orjson.loads(
        BodyTemplate.for_run(opts, workload.sampling, 16, "m").encode(request)
    )


def test_a_lines_bad_schema_is_one_line_naming_the_line(tmp_path):
    path = jsonl(tmp_path / "d.jsonl", {"prompt": "Q"}, {"prompt": "Q", "schema": {"type": 3}})
    with pytest.raises(ConfigError) as caught:
        load_prompts(path)
    assert "line 2: schema: not a valid JSON Schema at type" in str(caught.value)
