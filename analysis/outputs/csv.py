"""CSV files: summary.csv (the contract), one CSV per report table, one per label folder."""

from __future__ import annotations

from pathlib import Path

from analysis.document import Report
from analysis.views.tables import labels_of, slug

FLOAT_FORMAT = "%.10g"  # full precision without binary noise such as 270.57000000000005
TABLES_FOLDER = "tables"
SUMMARY_FILE = "summary.csv"


def write(report: Report, out_dir: Path) -> None:
    report.summary.to_csv(out_dir / SUMMARY_FILE, index=False, float_format=FLOAT_FORMAT)
    tables_dir = out_dir / TABLES_FOLDER
    tables_dir.mkdir(exist_ok=True)
    keys = [table.key for table in report.tables]
    if len(set(keys)) != len(keys):  # analysis.report.distinct_keys makes them unique
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        raise ValueError(f"tables share a file name: {', '.join(repeated)}")
    for table in report.tables:
        table.frame.to_csv(tables_dir / f"{table.key}.csv", index=False, float_format=FLOAT_FORMAT)
    for label in labels_of(report.summary):
        folder = out_dir / slug(label)
        folder.mkdir(exist_ok=True)
        rows = report.summary[report.summary["label"] == label]
        rows.to_csv(folder / f"{slug(label)}.csv", index=False, float_format=FLOAT_FORMAT)
