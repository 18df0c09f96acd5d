"""OpenAI's embeddings API (``/v1/embeddings``): several texts a request, one JSON body back.

The body: ``model``, ``input`` (the request's texts: ``--batch-size`` of the workload's prompts,
``PlannedRequest.inputs``, else its one text) and the run's extras (``--extra-body``:
``encoding_format``, ``dimensions``...). Nothing streams: the answer is one JSON body
``{"data": [{"embedding": [...], "index": i}...], "usage": {"prompt_tokens": T, ...}}``, which
the transport reads whole (``WireApi.streams`` False) and feeds to the reader once. Its
record has a latency and the server's prompt tokens, and no TTFT, no inter-token times and no
output tokens (None: an embedding generates none, and nothing arrives before the whole).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import orjson

from sparkload.apis.wire import BodyParts, PlannedRequest, WireApi
from sparkload.records import (
    API_EMBEDDINGS,
    ERROR_EMPTY_OUTPUT,
    ERROR_MALFORMED_BODY,
    ERROR_SERVER_EVENT,
)
from sparkload.transport.tally import ReplyTally, StreamError


def body(
    parts: BodyParts, request: PlannedRequest, response_format: Mapping[str, Any] | None
) -> dict[str, Any]:
    """One request's embeddings body (no output length, no stream: neither means anything
    here; a ``response_format`` has no place in it either)."""
    inputs = list(request.inputs) if request.inputs is not None else [request.text]
    return {"model": parts.model, "input": inputs, **parts.extras}


def stream_fields(_extras: Mapping[str, Any]) -> dict[str, Any]:
    """Nothing: the answer is one body."""
    return {}


class EmbeddingsBody(ReplyTally):
    """The tally of one embeddings answer, fed the whole JSON body once."""

    __slots__ = ()
    ending: ClassVar[str] = "a whole JSON body"

    def feed(self, data: bytes, now: float) -> bool:
        try:
            payload = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise StreamError(ERROR_MALFORMED_BODY, f"body is not JSON: {exc}") from None
        if not isinstance(payload, dict):
            raise StreamError(ERROR_MALFORMED_BODY, "body is not a JSON object")
        if "error" in payload:
            error = payload["error"]
            said = error.get("message") if isinstance(error, dict) else error
            raise StreamError(ERROR_SERVER_EVENT, f"server error: {said}")
        vectors = payload.get("data")
        if not isinstance(vectors, list):
            raise StreamError(ERROR_MALFORMED_BODY, "body has no data list")
        if not vectors:
            raise StreamError(ERROR_EMPTY_OUTPUT, "body has no embedding")
        usage = payload.get("usage")
        if isinstance(usage, dict):
            self.usage = {"prompt_tokens": usage.get("prompt_tokens")}
        response_id = payload.get("id")
        self.response_id = response_id if isinstance(response_id, str) else None
        self.done, self.t_done = True, now
        return True

    @property
    def output_tokens(self) -> tuple[int | None, str | None]:
        """None: an embedding generates no token."""
        return None, None


API = WireApi(
    API_EMBEDDINGS,
    "/embeddings",
    body,
    EmbeddingsBody,
    stream_fields,
    carries_messages=False,
    carries_tools=False,
    streams=False,
    batches_inputs=True,
)
