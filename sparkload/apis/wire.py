"""What an API module declares (``WireApi``), and the parts of a body every API shares.

An API module (``chat.py``, ``completions.py``, ``responses.py``, ``messages.py``) owns
everything that differs between the wire APIs: its route, its body, its stream reader, its
headers (the key's and fixed ones) and what it can carry. The rest of sparkload asks the
registry (``sparkload.apis``) for a ``WireApi`` by the ``--api`` name and reads its fields; it
never compares an API's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from sparkload.records import ERROR_MALFORMED_SSE
from sparkload.transport.tally import Reply, ReplyTally, StreamError


class PlannedRequest(Protocol):
    """What an API's body reads of a request its workload planned (the workloads' contract,
    ``workloads.contract.PlannedRequest``, has these fields among others; the APIs sit below
    the workloads and do not import them)."""

    @property
    def text(self) -> str: ...  # the prompt, when it has no messages
    @property
    def max_tokens(self) -> int: ...
    @property
    def messages(self) -> Sequence[Mapping[str, Any]] | None: ...  # chat's form
    @property
    def tools(self) -> Sequence[Mapping[str, Any]] | None: ...  # chat's form
    @property
    def tool_choice(self) -> str | None: ...
    @property
    def history_id(self) -> str | None: ...  # the server-kept reply this request continues
    @property
    def inputs(self) -> Sequence[str] | None: ...  # several texts a request (embeddings)


@dataclass(frozen=True)
class BodyParts:
    """What every body of a run carries beside the prompt and its output length, settled once
    per run (``sparkload.body.BodyTemplate``)."""

    model: str
    extras: Mapping[str, Any]  # the workload's sampling, the user's options, --extra-body
    stream: Mapping[str, Any]  # the API's stream fields (``WireApi.stream_fields``)
    min_tokens_follow: bool  # min_tokens = each request's max_tokens (a pinned length)


def bearer(api_key: str) -> dict[str, str]:
    """OpenAI's auth header: the key as a Bearer token."""
    return {"Authorization": f"Bearer {api_key}"}


@dataclass(frozen=True)
class WireApi:
    """One wire API: where it is served, how a body is written and a stream read, and what a
    request of it can carry (what workloads ask before they plan)."""

    name: str  # the --api name (records' vocabulary: ``API_NAMES``)
    route: str  # below the server's API root: "/chat/completions" under http://host/v1
    # body(parts, request, response_format): one request's body, before its encoding;
    # ``response_format`` is the request's, in chat's form (None: none asked)
    body: Callable[[BodyParts, PlannedRequest, Mapping[str, Any] | None], dict[str, Any]]
    # reader(reply): a new tally of one response of this API (``reply``: where to keep it)
    reader: Callable[[Reply | None], ReplyTally]
    # stream_fields(extras): what turns the stream (and its usage) on, over --extra-body's
    stream_fields: Callable[[Mapping[str, Any]], dict[str, Any]]
    auth: Callable[[str], dict[str, str]] = bearer  # the API key's headers
    # what every request of it carries, with a key or without (a user's --header wins)
    headers: Mapping[str, str] = field(default_factory=dict)
    # the environment variable of its own key, over $OPENAI_API_KEY (never over --api-key)
    key_env: str = ""
    carries_messages: bool = True  # a conversation's messages (else one prompt text)
    carries_tools: bool = True  # tools and tool calls
    server_history: bool = False  # continues a reply the server kept (``history_id``)
    image_parts: bool = False  # images as content parts of a message
    # a stream of events (else one JSON body, fed to the reader whole: no TTFT, no decode)
    streams: bool = True
    batches_inputs: bool = False  # several inputs a request (``--batch-size``)


def request_tail(
    body: dict[str, Any], parts: BodyParts, request: PlannedRequest, tools: list[Any] | None
) -> dict[str, Any]:
    """The last parts of every body, which nothing before them replaces: the request's own
    ``tools`` (in the API's form) and ``tool_choice``, and a pinned length's ``min_tokens``."""
    if tools is not None:
        body["tools"] = tools
    if request.tool_choice is not None:
        body["tool_choice"] = request.tool_choice
    if parts.min_tokens_follow:
        body["min_tokens"] = request.max_tokens
    return body


def json_event(data: bytes) -> dict[str, Any] | None:
    """One event of an API whose events are typed JSON objects (Responses, Messages): the
    object, or None for a ``[DONE]`` such a stream does not need (accepted, harmlessly); a
    ``StreamError`` (``malformed_sse``) for anything else."""
    try:
        event = orjson.loads(data)
    except orjson.JSONDecodeError:
        if data == b"[DONE]":
            return None
        raise StreamError(ERROR_MALFORMED_SSE, f"not JSON: {data[:80]!r}") from None
    if not isinstance(event, dict):
        raise StreamError(ERROR_MALFORMED_SSE, f"not a JSON object: {data[:80]!r}")
    return event
