"""``sparkload fidelity``'s Markdown: the reference, one table row per level, the method."""

from __future__ import annotations

from pathlib import Path

from analysis.fidelity import fidelity


def render(result: fidelity.Fidelity) -> str:
    table = fidelity.rows(result)
    columns = list(table[0]) if table else []
    lines = [f"# Output fidelity: `{result.run_label}`", ""]
    lines += [*fidelity.summary_lines(result), ""]
    lines.append("| " + " | ".join(columns) + " |")
    lines.append("|" + "|".join("---" for _ in columns) + "|")
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in table]
    return "\n".join([*lines, "", fidelity.METHOD, ""])


def write(result: fidelity.Fidelity, path: Path) -> None:
    path.write_text(render(result), encoding="utf-8")
