"""The simulator's streams read back by sparkload's readers, for tests that hold two APIs'
streams of one request to the same figures (tests/sparkload/sim/test_responses.py,
test_messages.py)."""

from __future__ import annotations

from collections.abc import Callable

from sparkload.apis.chat import ChatStream
from sparkload.sim.sse import ChunkWriter
from sparkload.sim.tools import PlannedCall
from sparkload.transport.tally import ReplyTally


def frames(writer: ChunkWriter, outputs: list[int], last_usage: bool) -> list[bytes]:
    """The ``data:`` payloads of a stream of engine outputs of these token counts."""
    raw, total = b"", sum(outputs)
    for i, count in enumerate(outputs):
        data = writer.tokens(count, 0, sum(outputs[: i + 1]) >= total)
        raw += data if i else writer.role() + data
    if last_usage:
        raw += writer.usage_chunk()
    raw += writer.end()
    lines = raw.split(b"\n")
    return [line.removeprefix(b"data: ") for line in lines if line.startswith(b"data: ")]


def read(stream: ReplyTally, payloads: list[bytes]) -> ReplyTally:
    """``stream`` fed ``payloads`` 10 ms apart, to its end."""
    for i, payload in enumerate(payloads):
        if stream.feed(payload, (i + 1) / 100):
            break
    assert stream.done
    return stream


def beside_chat(
    writer: type[ChunkWriter],
    reader: Callable[[], ReplyTally],
    reasoning: int = 0,
    call: PlannedCall | None = None,
    outputs: tuple[int, ...] = (1, 1, 2, 1, 1),
) -> tuple[ReplyTally, ReplyTally]:
    """The chat stream and ``writer``'s stream of the same request, each read by its reader."""
    args = ("id1", "m", 20, reasoning)
    chat = ChunkWriter(*args, cached_tokens=16, tool_call=call)
    other = writer(*args, cached_tokens=16, tool_call=call)
    return (
        read(ChatStream(), frames(chat, list(outputs), True)),
        read(reader(), frames(other, list(outputs), False)),
    )
