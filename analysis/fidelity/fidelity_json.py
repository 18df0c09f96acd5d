"""``sparkload fidelity --json FILE``: the comparison as plain data, every first difference
included, for a step that reads it."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.fidelity import fidelity


def document(result: fidelity.Fidelity) -> dict:
    reference = result.reference
    return {
        "run": result.run_label,
        "reference": {
            "label": reference.label,
            "prompts": len(reference.replies),
            "unsteady": reference.unsteady,
        },
        "confidence": result.confidence,
        "notes": result.notes,
        "levels": [
            {
                "level": level.level,
                "level_index": level.level_index,
                "requests": level.requests,
                "pairs": level.pairs,
                "unmatched": level.unmatched,
                "exact": level.exact,
                "exact_share": level.share,
                "interval": [level.low, level.high] if level.pairs else None,
                "differing_prompts": level.differing_prompts,
                "first_difference_chunk": _stats(level.chunk_stats()),
                "first_difference_char": _stats(level.char_stats()),
                "first_difference_chunks": level.chunks,
                "first_difference_chars": level.chars,
            }
            for level in result.levels
        ],
    }


def _stats(stats: tuple[float, int, int] | None) -> dict | None:
    return None if stats is None else {"p50": stats[0], "min": stats[1], "max": stats[2]}


def write(result: fidelity.Fidelity, path: Path) -> None:
    path.write_text(json.dumps(document(result), indent=1) + "\n", encoding="utf-8")
