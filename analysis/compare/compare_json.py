"""``sparkload compare --json FILE``: the comparison's dataclasses as one JSON object, the same
cells as the Markdown table (missing figures as null), for a CI step that reads it."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from analysis.compare.compare import Comparison


def document(comparison: Comparison) -> dict:
    """The comparison as plain data, with ``worse`` (any cell worse: the exit code's reason)."""
    return {"worse": comparison.worse, **asdict(comparison)}


def write(comparison: Comparison, path: Path) -> None:
    path.write_text(json.dumps(document(comparison), indent=1) + "\n", encoding="utf-8")
