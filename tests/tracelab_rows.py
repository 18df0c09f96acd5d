"""TraceLab round lines written by hand in the released trace's shape (its release's
``syfi_coding_trace.jsonl.gz``, as github.com/uw-syfi/TraceLab's sanitized example rows), with
the fields a replay reads and those it leaves, for the reader's and the replay's tests."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

T0 = datetime(2026, 6, 1, 5, 40, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    """TraceLab's timestamp form, ``seconds`` after T0 (``2026-06-01T05:40:20.151Z``)."""
    stamp = (T0 + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def tool(name: str, emitted: float, result: float, index: int = 0) -> dict[str, Any]:
    return {
        "tool_index": index,
        "tool_name": name,
        "tool_call_id": f"toolu_{name.lower()}{int(emitted * 1000):x}",
        "emitted_at": at(emitted),
        "input_chars": 168,
        "result_chars": 231,
        "tool_wall_latency_ms": round((result - emitted) * 1000),
        "tool_internal_latency_ms": None,
        "is_error": False,
        "result_at": at(result),
    }


def row(
    session: str,
    index: int,
    total: int,
    prefix: int,
    output: int,
    *,
    start: float | None = None,
    end: float | None = None,
    tools: tuple[dict[str, Any], ...] = (),
    user: str = "user_1a2b3c4d",
    project: str = "project_4c7b8a1b",
    provider: str = "claude",
) -> dict[str, Any]:
    """One round; ``start``: its input event (a user message first, then tool results), ``end``:
    its last output event (tool calls at their emission)."""
    events: list[dict[str, Any]] = []
    if start is not None:
        kind = "user_message" if index == 0 else "tool_result"
        events.append({"event_type": kind, "timestamp": at(start), "source": "user.message"})
        events.append({"event_type": "reasoning", "timestamp": at(start + 0.5), "content_chars": 0})
    if end is not None:
        events.append({"event_type": "text", "timestamp": at(end), "content_chars": 116})
    for one in tools:
        events.append({"event_type": "tool_call", "timestamp": one["emitted_at"], "tool_name": "x"})
    codex = provider == "codex"
    return {
        "provider": provider,
        "project": project,
        "session_id": f"{provider}:{session}",
        "round_index": index,
        "round_id": f"msg_{session}{index}",
        "model": "gpt-5.3-codex" if codex else "claude-opus-4-8",
        "input_tokens_total": total,
        "prefix_tokens": prefix,
        "newly_append_tokens": total - prefix,
        "claude_uncached_input_tokens": None if codex else 2,
        "claude_cache_creation_input_tokens": None if codex else total - prefix - 2,
        "claude_cache_read_input_tokens": None if codex else prefix,
        "output_tokens": output,
        "reasoning_output_tokens": output // 2 if codex else None,
        "timing_events": events,
        "tools": list(tools),
        "current_input_event_count": 1,
        "first_input_event_type": events[0]["event_type"] if events else None,
        "store": ".codex" if codex else ".claude",
        "user": user,
        "trace_key": f"{provider}:{provider}:{session}:msg_{session}{index}",
    }


def write(path: Path, rows: list[dict[str, Any]], packed: bool = False) -> Path:
    text = "".join(json.dumps(one) + "\n" for one in rows).encode()
    path.write_bytes(gzip.compress(text) if packed else text)
    return path
