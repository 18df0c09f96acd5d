"""The request bodies the simulator takes, read as vLLM reads them into what it acts on
(``ChatRequest``): a chat body, a completions body, and the Responses and Messages bodies as the
chat bodies they mean (``responses.chat_body``, ``messages.chat_body``). ``RequestError`` for
what vLLM refuses, with its status.

Prompt tokens are estimated from the prompt's text (``prompt_text``): a request's tools as the
chat template renders them, then the messages' contents and earlier tool calls.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sparkload.sim import messages, responses
from sparkload.sim.images import messages_image_tokens
from sparkload.sim.tools import ToolRequest, ToolsError, parse_tools, tools_text

DEFAULT_MAX_TOKENS = 256  # a chat request without max_tokens (vLLM would allow the context left)
DEFAULT_COMPLETION_MAX_TOKENS = 16  # vLLM's (and OpenAI's) default for /v1/completions
DEFAULT_THINKING_TOKENS = 32  # reasoning tokens when a request enables thinking on its own


@dataclass(frozen=True)
class ChatRequest:
    """The parts of a chat-completion or completion body the simulator acts on."""

    prompt_text: str
    max_tokens: int
    stream: bool
    include_usage: bool
    continuous_usage: bool
    reasoning_tokens: int
    # The model itself generates the <think> tag (the parser swallows it): a chat request with
    # thinking left on. Off: the template already wrote an empty think block, or there is none.
    think_tag: bool
    tools: ToolRequest | None = None  # chat: the request's tools and tool choice
    response_format: Any = None  # as sent (a Responses body's text.format in chat's form)
    image_tokens: int = 0  # the messages' images, counted from their sizes (sim/images.py)


class RequestError(Exception):
    def __init__(self, status: int, message: str, error_type: str, param: str | None = None):
        super().__init__(message)
        self.status, self.error_type, self.param = status, error_type, param


def message_text(messages: list[Any]) -> str:
    """Concatenated text of every message (string content or a list of text parts) and of
    every earlier tool call (its name and arguments), as a chat template renders them."""
    parts = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(p["text"]) for p in content if isinstance(p, dict) and "text" in p]
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                arguments = function.get("arguments", "")
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments)
                parts.append(f"{function.get('name', '')}\n{arguments}")
    return "\n".join(parts)


def prompt_text(messages: list[Any], tools: ToolRequest | None) -> str:
    """What a chat request's prompt counts: its tools (in the system prompt, first), then its
    messages."""
    text = message_text(messages)
    return tools_text(tools.tools) + "\n" + text if tools is not None and tools.tools else text


def check_model(body: Any, model_name: str) -> dict:
    if not isinstance(body, dict):
        raise RequestError(400, "request body must be a JSON object", "BadRequestError")
    model = body.get("model")
    if model is not None and model != model_name:
        raise RequestError(404, f"The model `{model}` does not exist.", "NotFoundError", "model")
    return body


def _max_tokens(body: dict, default: int) -> int:
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    max_tokens = default if max_tokens is None else max_tokens
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise RequestError(
            400, "max_tokens must be a positive integer", "BadRequestError", "max_tokens"
        )
    return max_tokens


def _request(
    body: dict,
    text: str,
    max_tokens: int,
    reasoning_tokens: int,
    think_tag: bool,
    tools: ToolRequest | None = None,
    image_tokens: int = 0,
) -> ChatRequest:
    options = body.get("stream_options") or {}
    include_usage = bool(options.get("include_usage"))
    return ChatRequest(
        prompt_text=text,
        max_tokens=max_tokens,
        stream=bool(body.get("stream")),
        include_usage=include_usage,
        continuous_usage=include_usage and bool(options.get("continuous_usage_stats")),
        reasoning_tokens=reasoning_tokens,
        think_tag=think_tag,
        tools=tools,
        response_format=body.get("response_format"),
        image_tokens=image_tokens,
    )


def parse_chat_request(body: Any, model_name: str, reasoning_tokens: int) -> ChatRequest:
    """Validate a body like vLLM does for the fields the simulator uses; ``RequestError``."""
    body = check_model(body, model_name)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError(
            400, "messages: a non-empty list is required", "BadRequestError", "messages"
        )
    max_tokens = _max_tokens(body, DEFAULT_MAX_TOKENS)
    thinking = (body.get("chat_template_kwargs") or {}).get("enable_thinking")
    if thinking is False:
        reasoning_tokens = 0
    elif thinking and not reasoning_tokens:
        reasoning_tokens = DEFAULT_THINKING_TOKENS
    tools = request_tools(body)
    text = prompt_text(messages, tools)
    images = messages_image_tokens(messages)
    return _request(body, text, max_tokens, reasoning_tokens, thinking is not False, tools, images)


def parse_responses_request(body: Any, model_name: str, reasoning_tokens: int) -> ChatRequest:
    """A ``/v1/responses`` body, as the chat body it means (``responses.chat_body``)."""
    return parse_chat_request(responses.chat_body(body), model_name, reasoning_tokens)


def parse_messages_request(body: Any, model_name: str, reasoning_tokens: int) -> ChatRequest:
    """A ``/v1/messages`` body, as the chat body it means (``messages.chat_body``)."""
    return parse_chat_request(messages.chat_body(body), model_name, reasoning_tokens)


def request_tools(body: dict) -> ToolRequest | None:
    try:
        return parse_tools(body)
    except ToolsError as err:
        raise RequestError(400, str(err), "BadRequestError", err.param) from None


def parse_completion_request(body: Any, model_name: str, reasoning_tokens: int) -> ChatRequest:
    """A ``/v1/completions`` body: one prompt string (or a list holding one); no reasoning."""
    body = check_model(body, model_name)
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1:
        prompt = prompt[0]
    if not isinstance(prompt, str) or not prompt:
        raise RequestError(
            400, "prompt: one non-empty string is required", "BadRequestError", "prompt"
        )
    return _request(body, prompt, _max_tokens(body, DEFAULT_COMPLETION_MAX_TOKENS), 0, False)
