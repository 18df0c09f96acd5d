"""Reading a written report by what it holds, not by where a section stands: a section's number
and its tables' file names follow the sections present (``analysis.report``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TABLE_FILE = re.compile(r"\d{2}(?:_\d+)*_(?P<key>.+)")


def table_path(out: Path, key: str) -> Path:
    """The CSV of the report table ``key`` (its file name without the section number)."""
    found = [
        path
        for path in (out / "tables").glob(f"*_{key}.csv")
        if (match := TABLE_FILE.fullmatch(path.stem)) and match["key"] == key
    ]
    assert len(found) == 1, f"{key}: {found}"
    return found[0]


def section_number(text: str, title: str) -> int:
    """The number of the report.md section titled ``title``."""
    (number,) = re.findall(rf"^## (\d+)\. {re.escape(title)}$", text, re.M)
    return int(number)


def section_text(text: str, title: str) -> str:
    """The section titled ``title``, from its heading to the next section's."""
    start = text.index(f"## {section_number(text, title)}. {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def report_summary(run_dir: Path) -> dict:
    """Report ``run_dir`` (no charts) and read its ``summary.json``."""
    report = subprocess.run(
        [sys.executable, "-m", "analysis", str(run_dir), "--no-charts", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert report.returncode == 0, report.stderr
    return json.loads((run_dir / "report" / "summary.json").read_text())
