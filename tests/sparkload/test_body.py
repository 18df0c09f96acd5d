"""What goes out: the body for each API, the user's extras over the workload's sampling, and
the request headers."""

from __future__ import annotations

import json

import pytest

from sparkload.apis.completions import CompletionsStream
from sparkload.body import BodyTemplate
from sparkload.errors import ConfigError
from sparkload.records import RequestRecord
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from sparkload.workloads.contract import PlannedRequest, Sampling
from tests.options import run_options
from tests.servers import Script, plain_body, scripted

NOTHING = Sampling()
PINNED = Sampling(pinned=True)
HI = PlannedRequest("hi", 16)


def body(*args: str, sampling: Sampling = NOTHING, request: PlannedRequest = HI) -> dict:
    """The body of ``request`` in a run of ``locust ... ARGS`` whose workload asks ``sampling``
    (run length 16)."""
    template = BodyTemplate.for_run(run_options(*args), sampling, 16, "m")
    return json.loads(template.encode(request))


def test_a_chat_body_asks_for_the_model_the_length_and_a_stream_with_usage():
    assert json.loads(BodyTemplate("qwen", 16).encode(HI)) == {
        "model": "qwen",
        "max_tokens": 16,
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_a_completions_body_carries_a_prompt_string_and_asks_for_usage():
    sent = json.loads(plain_body("Once upon", 16, api="completions"))
    assert sent["prompt"] == "Once upon" and "messages" not in sent
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}


def test_a_chat_body_sends_the_planned_messages_else_the_text_as_one_user_message():
    messages = ({"role": "system", "content": "Be brief."}, {"role": "user", "content": "Q"})
    assert body(request=PlannedRequest("Q", 16, messages=messages))["messages"] == list(messages)
    assert body()["messages"] == [{"role": "user", "content": "hi"}]


def test_a_chat_body_sends_image_content_parts_as_they_are():
    content = [
        {"type": "text", "text": "What is it?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]
    messages = ({"role": "user", "content": content},)
    assert body(request=PlannedRequest("", 16, messages=messages))["messages"] == list(messages)


def test_extra_body_is_merged_over_the_workloads_sampling():
    extra = '{"temperature": 0.0, "seed": 7, "chat_template_kwargs": {"enable_thinking": false}}'
    sent = body("--extra-body", extra, sampling=Sampling({"temperature": 0.7, "top_p": 0.9}))
    assert (sent["temperature"], sent["top_p"], sent["seed"]) == (0.0, 0.9, 7)
    assert sent["chat_template_kwargs"] == {"enable_thinking": False}


def test_extra_body_may_replace_the_model_and_the_length():
    sent = body("--extra-body", '{"model": "other", "max_tokens": 2}')
    assert (sent["model"], sent["max_tokens"]) == ("other", 2)


def test_a_null_in_extra_body_removes_the_key_the_workload_set():
    sent = body("--extra-body", '{"top_p": null}', sampling=Sampling({"top_p": 0.9}))
    assert "top_p" not in sent


TOOLS = ({"type": "function", "function": {"name": "read_file"}},)


def test_a_requests_own_tools_and_tool_choice_are_sent_and_extra_body_keeps_them():
    planned = PlannedRequest("hi", 16, tools=TOOLS, tool_choice="required")
    extra = '{"tools": null, "tool_choice": "none", "temperature": 0}'
    sent = body("--extra-body", extra, request=planned)
    assert (sent["tools"], sent["tool_choice"], sent["temperature"]) == (list(TOOLS), "required", 0)


def test_a_request_without_tools_of_its_own_carries_extra_bodys_tools():
    sent = body("--extra-body", json.dumps({"tools": list(TOOLS)}))
    assert sent["tools"] == list(TOOLS) and "tool_choice" not in sent


def test_no_thinking_is_merged_into_the_chat_template_kwargs_the_workload_set():
    sampling = Sampling({"chat_template_kwargs": {"reasoning_effort": "low"}})
    sent = body("--no-thinking", sampling=sampling)
    assert sent["chat_template_kwargs"] == {"reasoning_effort": "low", "enable_thinking": False}


def test_a_pinned_length_asks_each_requests_own_max_tokens_as_min_tokens():
    sent = body(sampling=PINNED, request=PlannedRequest("hi", 9))
    assert (sent["max_tokens"], sent["min_tokens"], sent["ignore_eos"]) == (9, 9, True)


def test_a_min_tokens_in_extra_body_wins_over_the_pinned_length():
    sent = body("--extra-body", '{"min_tokens": 2}', sampling=PINNED)
    assert (sent["max_tokens"], sent["min_tokens"]) == (16, 2)


def test_extras_cannot_switch_off_the_stream_or_its_usage_chunk():
    extra = '{"stream": false, "stream_options": {"continuous_usage_stats": true}}'
    sent = body("--extra-body", extra)
    assert sent["stream"] is True
    assert sent["stream_options"] == {"continuous_usage_stats": True, "include_usage": True}


def test_a_stream_options_that_is_not_an_object_is_one_config_error_line():
    with pytest.raises(ConfigError, match="^--extra-body: stream_options must be a JSON object$"):
        body("--extra-body", '{"stream_options": "usage"}')


def test_the_manifests_sampling_entry_is_a_run_length_body_without_its_prompt():
    template = BodyTemplate.for_run(run_options("--temperature", "0.2"), PINNED, 16, "m")
    assert template.sampling_entry().to_dict() == {
        "max_tokens": 16,
        "ignore_eos": True,
        "min_tokens": 16,
        "temperature": 0.2,
    }


def test_extra_headers_are_sent_and_a_header_with_a_line_break_is_refused():
    assert build_headers(None, extra_headers={"X-Team": "perf"})["X-Team"] == "perf"
    with pytest.raises(ValueError) as caught:
        build_headers(None, extra_headers={"X-Token": "secret\r\nX-Evil: 1"})
    assert "secret" not in str(caught.value)


def test_a_completions_stream_is_timed_and_counted_like_a_chat_stream():
    with scripted(Script(tokens=8, gap=0.003, api="completions")) as server:
        connection = Connection(server.url, timeout=5)
        request = StreamRequest(
            "/v1/completions",
            plain_body("Once upon", 8, api="completions"),
            build_headers(None, extra_headers={"X-Team": "perf"}),
            timeout=5,
            reader=CompletionsStream,
        )
        record = measure(
            connection, request, RequestRecord("r", 1, 0, "measure", "l", 0, "h", "m", 0, 8, 0.0)
        )
        connection.close()
        head, sent = server.requests[0]
    assert head.startswith("POST /v1/completions HTTP/1.1") and "X-Team: perf" in head
    assert json.loads(sent)["prompt"] == "Once upon"
    assert (record.status, record.chunks, record.output_tokens, record.tokens_counted_by) == (
        "ok",
        8,
        8,
        "usage",
    )
    assert 0.002 < record.itl < 0.02 and record.ttft < record.latency


def test_a_response_format_is_sent_as_openais_response_format():
    assert body("--response-format", "json_object")["response_format"] == {"type": "json_object"}
    sent = body("--response-format", "json_schema:builtin-flat")["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    assert sent["json_schema"]["schema"]["required"] == ["name", "age", "member"]


def test_extra_body_may_send_vllms_structured_outputs_beside_no_response_format():
    sent = body("--extra-body", '{"structured_outputs": {"json": {"type": "object"}}}')
    assert sent["structured_outputs"] == {"json": {"type": "object"}}
    assert "response_format" not in sent
