"""summary.json: every figure of summary.csv (one object per level) plus how they were computed,
for programs that should not have to parse CSV or the report's prose; then the report's other
frames by key (``Report.json_tables``: ``energy`` per level, ``nodes`` per level and node) and its
further figures (``Report.figures``: time slices, operating points, capacity searches)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from analysis.document import Report

FILE = "summary.json"


def write(report: Report, out_dir: Path) -> None:
    document = {"method": report.method, "levels": _records(report.summary)}
    document.update({key: _records(frame) for key, frame in report.json_tables.items()})
    document.update(report.figures)
    (out_dir / FILE).write_text(json.dumps(document, indent=1), encoding="utf-8")


def _records(frame: pd.DataFrame) -> list[dict]:
    return json.loads(frame.to_json(orient="records", double_precision=15))
