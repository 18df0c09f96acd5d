"""summary.json: every figure of summary.csv (one object per level) plus how they were computed,
and the report's further figures (``Report.figures``: time slices, operating points), for
programs that should not have to parse CSV or the report's prose."""

from __future__ import annotations

import json
from pathlib import Path

from analysis.document import Report

FILE = "summary.json"


def write(report: Report, out_dir: Path) -> None:
    levels = json.loads(report.summary.to_json(orient="records", double_precision=15))
    document = {"method": report.method, "levels": levels, **report.figures}
    (out_dir / FILE).write_text(json.dumps(document, indent=1), encoding="utf-8")
