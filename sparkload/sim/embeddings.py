"""The simulator's ``/v1/embeddings``: each input a prefill through the engine, no decode.

vLLM's pooling runner schedules every input of a request as a sequence of its own and answers
when all are pooled: here each input is a ``Generation`` of its prompt tokens (the server's
estimate, ``textlength``) and one output, the first, which the engine emits when the prefill is
done: the cost is the prefill's, batched and queued with everything else on the engine, in the
engine's (scaled) time. The answer is one JSON body, vLLM's form: small deterministic vectors
(a text's are always the same) and the usage's prompt tokens.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import uuid
from contextlib import aclosing
from typing import Any, Protocol

from aiohttp import web

from sparkload.sim.backends import Generation
from sparkload.sim.request_metrics import Schedule
from sparkload.sim.sse import error_body
from sparkload.sim.textlength import estimate_tokens

DIMENSIONS = 8  # a vector's length: enough to be a vector, small enough to cost nothing


class Prefiller(Protocol):
    def generate(self, gen: Generation, schedule: Schedule): ...


def inputs_of(body: dict[str, Any]) -> list[str]:
    """The texts of a body's ``input``: one string or a non-empty list of them (a ValueError
    for anything else; token-id inputs are not simulated)."""
    value = body.get("input")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return value
    raise ValueError("input must be a string or a non-empty list of strings")


def vector(text: str) -> list[float]:
    """A unit vector of ``DIMENSIONS`` floats, the same for the same text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    raw = [byte / 127.5 - 1.0 for byte in digest[:DIMENSIONS]]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]


async def prefill(backend: Prefiller, request_id: str, tokens: int) -> None:
    """One input's prefill: a generation of one token, run to its end."""
    generation = Generation(request_id, tokens, 1)
    async with aclosing(backend.generate(generation, Schedule())) as emitted:
        async for _ in emitted:
            pass


async def serve(body: dict[str, Any], backend: Prefiller, model: str) -> web.Response:
    """Answer one embeddings body once every input's prefill is done."""
    try:
        inputs = inputs_of(body)
    except ValueError as err:
        return web.json_response(error_body(str(err), "BadRequestError", 400, "input"), status=400)
    request_id = f"embd-{uuid.uuid4().hex}"
    counts = [estimate_tokens(text) for text in inputs]
    await asyncio.gather(*(prefill(backend, f"{request_id}-{i}", n) for i, n in enumerate(counts)))
    data = [
        {"index": i, "object": "embedding", "embedding": vector(text)}
        for i, text in enumerate(inputs)
    ]
    total = sum(counts)
    usage = {"prompt_tokens": total, "total_tokens": total, "completion_tokens": 0}
    return web.json_response(
        {"id": request_id, "object": "list", "model": model, "data": data, "usage": usage}
    )
