"""The Responses API's body (``--api responses``): the prompt as ``instructions`` and ``input``
items, ``max_output_tokens``, tools in its flat form, no stream options; and the run's
``response_format`` on both APIs (chat's ``response_format``, Responses' ``text.format``)."""

from __future__ import annotations

import json

from sparkload.apis.responses import flat_tool, responses_input, text_format
from sparkload.body import BodyTemplate
from sparkload.workloads.contract import PlannedRequest, Sampling
from tests.options import run_options

HI = PlannedRequest("hi", 16)
TOOL = {
    "type": "function",
    "function": {"name": "read", "description": "Read a file", "parameters": {"type": "object"}},
}
SCHEMA = {"type": "json_schema", "json_schema": {"name": "s", "schema": {}, "strict": True}}


def body(*args: str, request: PlannedRequest = HI, pinned: bool = False) -> dict:
    """The body of ``request`` in a run of ``locust --api responses ARGS`` (run length 16)."""
    options = run_options("--api", "responses", *args)
    template = BodyTemplate.for_run(options, Sampling(pinned=pinned), 16, "m")
    return json.loads(template.encode(request))


def test_a_responses_body_asks_for_the_model_the_length_and_a_stream_without_options():
    assert body() == {
        "model": "m",
        "max_output_tokens": 16,
        "input": [{"role": "user", "content": "hi"}],
        "stream": True,
    }


def test_system_messages_become_the_instructions():
    messages = ({"role": "system", "content": "Be brief."}, {"role": "user", "content": "Q"})
    sent = body(request=PlannedRequest("Q", 16, messages=messages))
    assert (sent["instructions"], sent["input"]) == (
        "Be brief.",
        [{"role": "user", "content": "Q"}],
    )


def test_a_continued_turn_names_its_previous_response():
    sent = body(request=PlannedRequest("Q", 16, history_id="resp_1"))
    assert (sent["previous_response_id"], sent["input"]) == (
        "resp_1",
        [{"role": "user", "content": "Q"}],
    )


def test_a_first_turn_names_no_previous_response():
    assert "previous_response_id" not in body()


def test_tool_calls_and_their_results_become_function_call_items():
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    messages = (
        {"role": "user", "content": "Q"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "text of the file"},
    )
    assert responses_input(messages) == (
        None,
        [
            {"role": "user", "content": "Q"},
            {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "text of the file"},
        ],
    )


def test_an_assistants_text_beside_its_tool_calls_stays_a_message():
    call = {"id": "c1", "function": {"name": "read", "arguments": "{}"}}
    _, items = responses_input(
        [{"role": "assistant", "content": "Let me look.", "tool_calls": [call]}]
    )
    assert [item.get("type", item.get("role")) for item in items] == ["assistant", "function_call"]


def test_a_planned_requests_tools_go_flat_with_their_choice():
    sent = body(request=PlannedRequest("Q", 16, tools=(TOOL,), tool_choice="auto"))
    assert sent["tools"] == [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object"},
        }
    ]
    assert sent["tool_choice"] == "auto"


def test_a_tool_already_flat_is_sent_as_it_is():
    flat = {"type": "function", "name": "read"}
    assert flat_tool(flat) == flat


def test_sampling_and_extra_body_pass_through_and_a_pinned_length_asks_vllms_extras():
    sent = body("--temperature", "0.5", "--no-thinking", "--extra-body", '{"seed": 3}', pinned=True)
    assert (sent["temperature"], sent["seed"], sent["ignore_eos"], sent["min_tokens"]) == (
        0.5,
        3,
        True,
        16,
    )
    assert sent["chat_template_kwargs"] == {"enable_thinking": False}


def test_extra_body_stream_options_do_not_break_a_responses_run():
    assert body("--extra-body", '{"stream_options": 1}')["stream"] is True


def test_a_chat_body_carries_the_runs_response_format_as_it_is():
    template = BodyTemplate("m", 16, response_format={"type": "json_object"})
    assert json.loads(template.encode(HI))["response_format"] == {"type": "json_object"}


def test_a_responses_body_carries_the_runs_response_format_as_text_format():
    template = BodyTemplate("m", 16, "responses", response_format=SCHEMA)
    sent = json.loads(template.encode(HI))
    assert sent["text"] == {
        "format": {"type": "json_schema", "name": "s", "schema": {}, "strict": True}
    }
    assert "response_format" not in sent


def test_text_format_keeps_a_json_object_format_and_the_other_text_options():
    assert text_format({"type": "json_object"}) == {"type": "json_object"}
    template = BodyTemplate(
        "m",
        16,
        "responses",
        {"text": {"verbosity": "low"}},
        response_format={"type": "json_object"},
    )
    assert json.loads(template.encode(HI))["text"] == {
        "verbosity": "low",
        "format": {"type": "json_object"},
    }


def test_no_response_format_sends_none():
    assert "response_format" not in json.loads(BodyTemplate("m", 16).encode(HI))
    assert "text" not in body()


def test_a_null_response_format_in_extra_body_sends_the_servers_own_field_instead():
    sent = body(
        "--response-format",
        "json_object",
        "--extra-body",
        '{"response_format": null, "json_schema": {"type": "object"}}',
    )
    assert "text" not in sent and sent["json_schema"] == {"type": "object"}


def test_chat_content_parts_become_input_text_and_input_image_parts():
    url = "data:image/png;base64,iVBORw0KGgo="
    content = [
        {"type": "text", "text": "What is it?"},
        {"type": "image_url", "image_url": {"url": url}},
    ]
    sent = body(request=PlannedRequest("", 16, messages=({"role": "user", "content": content},)))
    assert sent["input"] == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is it?"},
                {"type": "input_image", "image_url": url},
            ],
        }
    ]
