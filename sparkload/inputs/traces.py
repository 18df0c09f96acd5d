"""Request traces to replay (``--trace``): Mooncake-style JSONL and the Azure LLM inference CSV.

- **Mooncake** (the FAST'25 traces of kvcache-ai/Mooncake, vLLM's trace benchmarks): one JSON
  object a line with ``timestamp`` (milliseconds), ``input_length`` and ``output_length``
  (tokens) and ``hash_ids``: one id per 512-token block of the prompt, equal where two prompts
  share that block and everything before it. ``hash_ids`` may be missing (no shared blocks).
- **Azure** (the Azure LLM inference traces 2023/2024, Azure/AzurePublicDataset): a CSV with
  the header ``TIMESTAMP,ContextTokens,GeneratedTokens``, TIMESTAMP a date and time such as
  ``2023-11-16 18:15:46.6805900``. It has no block ids, so no prefix structure: every prompt is
  its own text.

Which one: ``.csv`` is Azure, anything else Mooncake. Lines are replayed in time order (a stable
sort), timestamps as seconds from the first; each keeps its line number in the file, for the
records and for messages. A line without its fields is a ConfigError of one line naming the file
and the line, before anything is sent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sparkload.errors import ConfigError
from sparkload.inputs import files
from sparkload.inputs.files import UserFile

MOONCAKE, AZURE = "mooncake", "azure"
BLOCK_TOKENS = 512  # Mooncake's hash_ids: one per 512-token block
AZURE_FIELDS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")


@dataclass(frozen=True, slots=True)
class TraceLine:
    time_s: float  # seconds from the trace's first line (the trace's own time)
    input_length: int
    output_length: int
    hash_ids: tuple[int, ...]
    number: int  # the line's number in the file (1-based)


@dataclass(frozen=True)
class Trace:
    path: Path
    format: str  # MOONCAKE | AZURE
    lines: tuple[TraceLine, ...]  # in time order
    sha256: str

    @property
    def span_s(self) -> float:
        """First line to last, in the trace's seconds."""
        return self.lines[-1].time_s

    @property
    def offered_rate(self) -> float:
        """Requests per second of the trace's time: (lines - 1) over the span, the mean gap's
        rate."""
        return (len(self.lines) - 1) / self.span_s

    def describe(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "format": self.format,
            "sha256": self.sha256,
            "lines": len(self.lines),
            "span_s": self.span_s,
            "block_tokens": BLOCK_TOKENS if self.format == MOONCAKE else None,
        }


def load_trace(path: Path) -> Trace:
    """The trace at ``path``, sorted by time; a ConfigError of one line if it cannot be read."""
    file = files.read("--trace", path)
    kind = AZURE if file.suffix == ".csv" else MOONCAKE
    parsed = _azure(file) if kind == AZURE else _mooncake(file)
    if len(parsed) < 2:
        raise ConfigError(
            f"--trace: {path} holds {len(parsed)} line(s); a replay needs two or more"
        )
    parsed.sort(key=lambda line: line[0])
    first = parsed[0][0]
    lines = tuple(
        TraceLine(t - first, input_length, output_length, hash_ids, number)
        for t, input_length, output_length, hash_ids, number in parsed
    )
    if lines[-1].time_s <= 0:
        raise ConfigError(
            f"--trace: every line of {path} has the same timestamp: no rate to replay"
        )
    return Trace(path, kind, lines, file.sha256)


Parsed = tuple[float, int, int, tuple[int, ...], int]  # seconds, input, output, hash ids, line


def _mooncake(file: UserFile) -> list[Parsed]:
    out: list[Parsed] = []
    for number, data in file.json_lines():
        where = f"{file.path} line {number}"
        if not isinstance(data, dict):
            raise ConfigError(f"--trace: {where}: expected a JSON object")
        missing = [k for k in ("timestamp", "input_length", "output_length") if k not in data]
        if missing:
            raise ConfigError(f"--trace: {where}: no {', '.join(missing)}")
        ms = _number(data["timestamp"], "timestamp", where)
        hash_ids = data.get("hash_ids", [])
        if not isinstance(hash_ids, list) or not all(_is_int(h) for h in hash_ids):
            raise ConfigError(f"--trace: {where}: hash_ids must be a list of whole numbers")
        out.append(
            (
                ms / 1000.0,
                _tokens(data["input_length"], "input_length", where),
                _tokens(data["output_length"], "output_length", where),
                tuple(hash_ids),
                number,
            )
        )
    return out


def _azure(file: UserFile) -> list[Parsed]:
    rows = file.csv_rows()
    header = [name.strip() for name in next(rows, (1, []))[1]]
    missing = [name for name in AZURE_FIELDS if name not in header]
    if missing:
        raise ConfigError(f"{file.at(1)}: no {', '.join(missing)} column (Azure CSV)")
    at = {name: header.index(name) for name in AZURE_FIELDS}
    out: list[Parsed] = []
    for number, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        where = f"{file.path} line {number}"
        if len(row) <= max(at.values()):
            raise ConfigError(f"--trace: {where}: {len(row)} field(s), {len(header)} expected")
        stamp = row[at["TIMESTAMP"]].strip()
        try:
            seconds = datetime.fromisoformat(stamp).timestamp()
        except ValueError:
            raise ConfigError(
                f"--trace: {where}: TIMESTAMP {stamp!r} is not a date and time"
            ) from None
        out.append(
            (
                seconds,
                _tokens(row[at["ContextTokens"]], "ContextTokens", where),
                _tokens(row[at["GeneratedTokens"]], "GeneratedTokens", where),
                (),
                number,
            )
        )
    return out


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any, name: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"--trace: {where}: {name} {value!r} is not a number")
    return float(value)


def _tokens(value: Any, name: str, where: str) -> int:
    """A token count: a whole number >= 1 (a JSON number or a CSV cell)."""
    try:
        number = int(str(value).strip()) if not isinstance(value, bool) else 0
    except ValueError:
        number = 0
    if number < 1:
        raise ConfigError(f"--trace: {where}: {name} {value!r} is not a whole number >= 1")
    return number
