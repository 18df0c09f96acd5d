"""The request's options: what every body and every request carries beside the workload's part."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparkload.config.option import REQUEST, Option
from sparkload.config.parsers import (
    boolean,
    encodings,
    headers,
    json_object,
    one_of,
    optional_number,
    positive,
    whole,
)
from sparkload.inputs.schemas import ResponseFormat, parse_response_format
from sparkload.records import API_CHAT, API_NAMES

ROWS: tuple[Option, ...] = (
    Option(
        "--request-timeout",
        300.0,
        "Seconds a whole request (send to end of stream) may take",
        REQUEST,
        positive,
    ),
    Option(
        "--api",
        API_CHAT,
        f"Which wire API to stream: {', '.join(API_NAMES)} (chat: /v1/chat/completions; "
        "completions: /v1/completions, the prompt as text; responses: /v1/responses; messages: "
        "Anthropic's /v1/messages; embeddings: /v1/embeddings, not streamed; each is a module "
        "of sparkload/apis/, docs/workloads.md#apis)",
        REQUEST,
        one_of(API_NAMES),
        choices=API_NAMES,
    ),
    Option(
        "--batch-size",
        1,
        "Inputs a request (--api embeddings): the chat workload's prompts taken N at a time",
        REQUEST,
        whole,
    ),
    Option(
        "--extra-body",
        "",
        'JSON object merged into every request body, e.g. \'{"chat_template_kwargs": '
        '{"enable_thinking": false}, "seed": 1}\' (a key set to null is removed); stream and'
        " its usage chunk stay on",
        REQUEST,
        json_object,
    ),
    Option(
        "--response-format",
        "",
        "Ask every reply to be JSON and check each one: json_object, json_schema:FILE (a JSON "
        "Schema, checked before the load) or json_schema:builtin-NAME (flat, nested, array); "
        "OpenAI's response_format. Each reply is valid, parse_error, schema_error or truncated "
        "(cut by max_tokens): the level's schema_valid_ratio",
        REQUEST,
        parse_response_format,
    ),
    Option(
        "--header",
        [],
        "Extra request header 'Name: value' (repeatable), e.g. a gateway's tenant header; "
        "values are never written or shown",
        REQUEST,
        headers,
        secret=True,
        argparse_extra={"action": "append"},
    ),
    Option(
        "--temperature",
        None,
        "Sampling temperature of every request (default: the server's, or the workload's)",
        REQUEST,
        optional_number,
    ),
    Option(
        "--top-p",
        None,
        "Nucleus sampling top_p of every request (default: the server's)",
        REQUEST,
        optional_number,
    ),
    Option(
        "--no-thinking",
        False,
        "Ask a reasoning model not to think (chat_template_kwargs.enable_thinking = false, as "
        "Qwen3's template reads it), so TTFT is the answer's first token",
        REQUEST,
        boolean,
    ),
    Option(
        "--accept-encoding",
        "identity",
        "Accept-Encoding of every request: identity (default), or what a real client sends, "
        "e.g. 'gzip, br' (each event is timed when its compressed bytes arrive)",
        REQUEST,
        encodings,
    ),
)


@dataclass(frozen=True)
class RequestOptions:
    request_timeout: float
    api: str
    batch_size: int  # inputs a request, for an API that batches them (``WireApi.batches_inputs``)
    extra_body: dict[str, Any]
    response_format: ResponseFormat | None  # None: replies are not asked to be JSON
    header: dict[str, str]  # extra request headers: secret values, never written
    temperature: float | None
    top_p: float | None
    no_thinking: bool
    accept_encoding: str
