"""docs/report.md holds to what a written report contains: every file and folder its layout
promises is there, and the sections it says the report opens with open it."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from tests.conftest import ROOT

DOCS = (ROOT / "docs" / "report.md").read_text()


def promised_paths() -> list[str]:
    """The paths listed in the code block of "## The report folder", one a line."""
    block = DOCS.split("## The report folder", 1)[1].split("```")[1]
    return [line.split()[0] for line in block.splitlines() if line and not line[0].isspace()]


def test_the_layout_lists_the_report_folders_files():
    assert promised_paths()[:4] == ["report.md", "index.html", "summary.csv", "summary.json"]


@pytest.mark.parametrize("path", promised_paths())
def test_every_promised_path_is_in_a_written_report(report_out, path):
    label = str(pd.read_csv(report_out / "summary.csv")["label"].iloc[0])
    pattern = path.replace("<label>", label).replace("NN_", "[0-9][0-9]_")
    found = list(report_out.glob(pattern.rstrip("/")))
    assert found, path
    if path.endswith("/"):
        assert all(p.is_dir() and any(p.iterdir()) for p in found), path


def test_no_promised_folder_is_missing_from_the_docs(report_out):
    """The other way round: each folder a report writes is named by the layout."""
    labels = set(pd.read_csv(report_out / "summary.csv")["label"])
    folders = {p.name for p in report_out.iterdir() if p.is_dir()} - labels
    named = {path.split("/")[0] for path in promised_paths() if "/" in path}
    assert folders <= named


def test_the_sections_the_docs_say_the_report_opens_with_open_it(report_out):
    said = re.findall(r"^- \*\*(.+?)\*\*:", DOCS.split("The report opens with:", 1)[1], re.M)
    headings = re.findall(r"^## \d+\. (.+)$", (report_out / "report.md").read_text(), re.M)
    assert said and headings[: len(said)] == said
