"""OpenAI's completions API (``/v1/completions``): the prompt as one text, the reply as text.

Its chunks are chat's but for where a token's text is (``choices[0].text``, not a delta), so its
reader is chat's reading that field; it carries no messages and no tools (the workloads that need
them refuse it before the load).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sparkload.apis.chat import ChatStream, openai_body, stream_fields
from sparkload.apis.wire import BodyParts, PlannedRequest, WireApi
from sparkload.records import API_COMPLETIONS


class CompletionsStream(ChatStream):
    """A chat stream whose token text is in ``choices[0].text``."""

    __slots__ = ()
    text_api = True


def body(
    parts: BodyParts, request: PlannedRequest, response_format: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One request's completions body: the prompt text in place of messages."""
    return openai_body(parts, request, {"prompt": request.text}, response_format)


API = WireApi(
    API_COMPLETIONS,
    "/completions",
    body,
    CompletionsStream,
    stream_fields,
    carries_messages=False,
    carries_tools=False,
)
