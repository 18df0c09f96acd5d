"""A thinking, tool-calling model's replies from the simulator process, read as a client reads
them: each stream through an independent SSE parser (sseclient-py), the assembled arguments
through an independent JSON Schema validator (jsonschema)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import jsonschema
import pytest
import requests
import sseclient

from sparkload.sim.textlength import estimate_tokens
from sparkload.sim.tools import ToolCaller, parse_tools, tools_text
from tests.servers import running_sim

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

TIMEOUT = 10
READ = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "start_line": {"type": "integer", "minimum": 1},
        "encoding": {"type": "string", "enum": ["utf-8", "latin-1"]},
    },
    "required": ["path", "encoding"],
}
RUN = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 600},
    },
    "required": ["command"],
}
SCHEMAS = {"read_file": READ, "run_command": RUN}
TOOLS = [
    {"type": "function", "function": {"name": name, "description": f"{name}", "parameters": p}}
    for name, p in SCHEMAS.items()
]
USER = [{"role": "user", "content": "Fix the failing test in tests/test_app.py, please."}]
FIXED = ("--profile", "fixed", "--fixed-ttft-ms", "5", "--fixed-itl-ms", "1")


@pytest.fixture(scope="module")
def url():
    with running_sim(*FIXED, "--reasoning-tokens", "3") as url:
        yield url


def post(url: str, **body) -> requests.Response:
    payload = {"messages": USER, "max_tokens": 40, **body}
    return requests.post(
        f"{url}/v1/chat/completions", json=payload, timeout=TIMEOUT, stream=bool(body.get("stream"))
    )


def stream(url: str, **body) -> list:
    """The stream's events as sseclient-py parses them, each with its arrival time."""
    response = post(url, **{"stream": True, "stream_options": {"include_usage": True}, **body})
    assert response.status_code == 200
    events = []
    for event in sseclient.SSEClient(response.iter_content(None)).events():
        data = "[DONE]" if event.data == "[DONE]" else json.loads(event.data)
        events.append((time.perf_counter(), data))
    return events


def chunks(url: str, **body) -> list:
    return [chunk for _, chunk in stream(url, **body)]


def deltas(chunk_list: list) -> list[dict]:
    return [c["choices"][0]["delta"] for c in chunk_list if isinstance(c, dict) and c["choices"]]


def assembled(chunk_list: list) -> dict:
    """The tool call as a client merges its deltas (by index: name, then argument fragments)."""
    call: dict = {"name": "", "arguments": "", "ids": []}
    for delta in deltas(chunk_list):
        for part in delta.get("tool_calls", []):
            assert part["index"] == 0
            call["ids"] += [part["id"]] if "id" in part else []
            call["name"] += part["function"].get("name", "")
            call["arguments"] += part["function"].get("arguments", "")
    return call


def test_a_tool_call_streams_in_vllms_delta_form(url):
    got = chunks(url, tools=TOOLS, tool_choice="required")
    role, *reasoning = deltas(got)[:4]
    assert role == {"role": "assistant", "content": ""}
    assert [list(d) for d in reasoning] == [["reasoning"]] * 3
    calls = [d["tool_calls"] for d in deltas(got)[4:]]
    (first,) = calls[0]
    assert set(first) == {"index", "id", "type", "function"} and first["type"] == "function"
    assert first["id"].startswith("chatcmpl-tool-")
    assert first["function"]["name"] in SCHEMAS and first["function"]["arguments"] == ""
    for call in calls[1:]:
        assert call == [{"index": 0, "function": {"arguments": call[0]["function"]["arguments"]}}]
    finishes = [c["choices"][0]["finish_reason"] for c in got[1:-2]]
    assert finishes == [None] * (len(finishes) - 1) + ["tool_calls"]
    assert got[-2]["usage"]["completion_tokens"] == 40 and got[-1] == "[DONE]"


@pytest.mark.parametrize("choice", ["required", "read_file", "run_command"])
def test_the_assembled_arguments_hold_to_the_called_tools_schema(url, choice):
    named = {"type": "function", "function": {"name": choice}}
    for _ in range(4):
        call = assembled(chunks(url, tools=TOOLS, tool_choice=named if "_" in choice else choice))
        assert len(call["ids"]) == 1
        assert choice == "required" or call["name"] == choice
        jsonschema.validate(json.loads(call["arguments"]), SCHEMAS[call["name"]])


def test_a_non_streaming_reply_has_the_tool_call_in_its_message(url):
    body = post(url, tools=TOOLS, tool_choice="required").json()
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    (call,) = choice["message"]["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("chatcmpl-tool-")
    name, arguments = call["function"]["name"], call["function"]["arguments"]
    jsonschema.validate(json.loads(arguments), SCHEMAS[name])


def test_tool_choice_none_is_answered_with_content(url):
    kinds = {key for d in deltas(chunks(url, tools=TOOLS, tool_choice="none")) for key in d}
    assert "tool_calls" not in kinds and "content" in kinds


def test_a_request_after_a_tool_result_is_answered_by_the_same_rule(url):
    call = {"id": "chatcmpl-tool-1", "type": "function"}
    call["function"] = {"name": "read_file", "arguments": '{"path": "tests/test_app.py"}'}
    messages = [
        *USER,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "chatcmpl-tool-1", "content": "def test_x(): ..."},
    ]
    again = assembled(chunks(url, messages=messages, tools=TOOLS, tool_choice="required"))
    assert again["name"] in SCHEMAS and json.loads(again["arguments"])


def test_auto_answers_the_seeded_share_and_the_same_seed_answers_alike():
    def sequence(seed: str) -> list[bool]:
        with running_sim(*FIXED, "--tool-call-rate", "0.5", "--seed", seed) as url:
            replies = [deltas(chunks(url, tools=TOOLS, max_tokens=8)) for _ in range(24)]
        return [any("tool_calls" in delta for delta in reply) for reply in replies]

    first = sequence("11")
    request = parse_tools({"tools": TOOLS})
    caller = ToolCaller(0.5, seed=11)
    assert first == [caller.plan(request, 8) is not None for _ in range(24)]
    assert sequence("11") == first
    assert 0 < sum(first) < 24


def test_the_error_rate_sends_arguments_that_do_not_parse():
    with running_sim(*FIXED, "--tool-call-error-rate", "1") as url:
        for _ in range(4):
            call = assembled(chunks(url, tools=TOOLS, tool_choice="required"))
            with pytest.raises(ValueError):
                json.loads(call["arguments"])


def test_the_tools_count_as_prompt_tokens_and_tokenize_counts_them_alike(url):
    without = post(url).json()["usage"]["prompt_tokens"]
    with_tools = post(url, tools=TOOLS, tool_choice="none").json()["usage"]["prompt_tokens"]
    text = USER[0]["content"]
    assert without == estimate_tokens(text)
    assert with_tools == estimate_tokens(tools_text(TOOLS) + "\n" + text) > without + 50
    counted = requests.post(
        f"{url}/tokenize", json={"messages": USER, "tools": TOOLS}, timeout=TIMEOUT
    ).json()
    assert counted["count"] == with_tools


def test_earlier_tool_calls_count_as_prompt_tokens(url):
    call = {"id": "c1", "type": "function", "function": {"name": "run_command"}}
    call["function"]["arguments"] = json.dumps({"command": "pytest -x " + "tests/ " * 40})
    messages = [*USER, {"role": "assistant", "content": None, "tool_calls": [call]}]
    assert post(url, messages=messages).json()["usage"]["prompt_tokens"] > 70


def test_repeated_tools_are_served_from_the_prefix_cache():
    with running_sim("--profile", "fp8", "--time-scale", "50", "--block-size", "16") as url:
        tools_tokens = estimate_tokens(tools_text(TOOLS))
        post(url, tools=TOOLS, max_tokens=2)
        other = [{"role": "user", "content": "Now run the linter on the package."}]
        usage = post(url, messages=other, tools=TOOLS, max_tokens=2).json()["usage"]
    assert usage["prompt_tokens_details"]["cached_tokens"] >= tools_tokens // 16 * 16 > 0


def test_an_mtp_engine_streams_several_tokens_of_arguments_in_one_fragment():
    with running_sim("--profile", "fp8-mtp", "--time-scale", "50") as url:
        got = chunks(
            url,
            tools=TOOLS,
            tool_choice="required",
            max_tokens=120,
            stream_options={"include_usage": True, "continuous_usage_stats": True},
        )
    fragments = [
        (c["usage"]["completion_tokens"], c["choices"][0]["delta"]["tool_calls"][0]["function"])
        for c in got
        if isinstance(c, dict) and c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    ]
    steps = [
        (b - a, f["arguments"]) for (a, _), (b, f) in zip(fragments, fragments[1:], strict=False)
    ]
    assert max(tokens for tokens, _ in steps) > 1
    assert all(len(text) == 4 * tokens for tokens, text in steps[:-1] if tokens)
    assert json.loads("".join(f["arguments"] for _, f in fragments))


def test_usage_reports_reasoning_tokens_unless_switched_off(url):
    assert chunks(url)[-2]["usage"]["completion_tokens_details"] == {"reasoning_tokens": 3}
    with running_sim(*FIXED, "--reasoning-tokens", "3", "--no-reasoning-usage") as off:
        usage = chunks(off)[-2]["usage"]
    assert "completion_tokens_details" not in usage and usage["completion_tokens"] == 40


def test_holdback_delays_the_first_output_and_sends_the_held_tokens_in_one_chunk():
    itl = 0.03
    args = ("--profile", "fixed", "--fixed-ttft-ms", "5", "--fixed-itl-ms", str(itl * 1e3))
    options = ("--reasoning-tokens", "2", "--tool-parser-holdback", "4", "--tool-call-rate", "0")
    with running_sim(*args, *options) as url:
        held = stream(url, tools=TOOLS, max_tokens=12)  # auto, answered with text
        plain = stream(url, tools=TOOLS, tool_choice="none", max_tokens=12)  # no tool parser
    for events, answer_chunks in ((held, 10 - 4), (plain, 10)):
        timed = [(t, c["choices"][0]["delta"]) for t, c in events[:-2]]
        answer = [(t, d) for t, d in timed if d.get("content")]
        reasoning = [t for t, d in timed if "reasoning" in d]
        assert len(reasoning) == 2 and len(answer) == answer_chunks
        wait = answer[0][0] - reasoning[-1]
        if events is held:
            assert answer[0][1]["content"] == " test runs on a small"  # answer tokens 1..5
            assert wait > 4.5 * itl
        else:
            assert wait < 4.5 * itl


@pytest.mark.parametrize(
    "body",
    [
        {"tools": "read_file"},
        {"tools": [{"type": "function"}]},
        {"tools": [{"type": "function", "function": {"name": "a", "parameters": "x"}}]},
        {"tool_choice": "required"},
        {"tools": TOOLS, "tool_choice": "always"},
        {"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "rm"}}},
    ],
)
def test_bad_tools_are_answered_with_a_400_and_an_openai_error(url, body):
    response = post(url, stream=True, **body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "BadRequestError" and error["code"] == 400 and error["message"]


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--tool-call-rate", "1.5"),
        ("--tool-call-error-rate", "-0.1"),
        ("--tool-parser-holdback", "-1"),
    ],
)
def test_a_bad_tool_option_exits_2_with_one_line(flag, value):
    result = subprocess.run(
        [sys.executable, "-m", "sparkload.sim", flag, value],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2 and flag in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
