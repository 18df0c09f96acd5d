"""report.md: the sections as Markdown, numbers rounded as the benchmark report rounds them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analysis.document import Image, Report
from analysis.outputs.csv import TABLES_FOLDER
from analysis.views.tables import Table

MISSING = "—"
REPORT_FILE = "report.md"


def cell(value, pattern: str | None) -> str:
    """One table cell: NaN as a dash, numbers through the column's format."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return MISSING
    if pattern is not None and not isinstance(value, str):
        return pattern.format(value)
    return str(value).replace("|", "\\|")


def table(t: Table) -> str:
    if t.csv_only:
        return f"**{t.title}**: {len(t.frame):,} rows in `{TABLES_FOLDER}/{t.key}.csv`."
    columns = list(t.frame.columns)
    lines = [
        f"**{t.title}**",
        "",
        "| " + " | ".join(map(str, columns)) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    for row in t.frame.itertuples(index=False):
        lines.append(
            "| "
            + " | ".join(cell(v, t.formats.get(c)) for c, v in zip(columns, row, strict=False))
            + " |"
        )
    if t.note:
        lines += ["", t.note]
    return "\n".join(lines)


def render(report: Report, with_images: bool) -> str:
    parts = [f"# {report.title}"]
    for section, depth in (pair for top in report.sections for pair in top.walk()):
        parts.append("#" * (depth + 2) + " " + section.title)
        for block in section.blocks:
            if isinstance(block, Table):
                parts.append(table(block))
            elif isinstance(block, Image):
                if with_images:
                    parts.append(f"![{block.alt}]({block.path})")
            else:
                parts.append(block)
    return "\n\n".join(parts) + "\n"


def write(report: Report, path: Path, with_images: bool) -> None:
    path.write_text(render(report, with_images), encoding="utf-8")
