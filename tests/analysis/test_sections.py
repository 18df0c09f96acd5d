"""The report is the ordered list of section modules; numbers come from positions only."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from analysis import report
from analysis.document import Section
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from analysis.sections import Context
from analysis.views.tables import Table

NUMBERED = re.compile(r"^\d")


@pytest.fixture(scope="module")
def context(report_runs) -> Context:
    dataset = load(report_runs)
    summary = summarize(dataset, Settings(bootstrap_resamples=0))
    return Context(dataset, Settings(), summary, pd.DataFrame(), numbers=report.section_numbers())


def test_numbering_follows_position_in_titles_and_table_keys():
    table = Table("tps", "t", pd.DataFrame())
    section = Section("Top", [table], [Section("Sub", [table]), Section("Next", [table])])
    out = report.numbered(section, [5])
    assert [(s.title, s.blocks[0].key) for s, _ in out.walk()] == [
        ("5. Top", "05_tps"),
        ("5.1 Sub", "05_1_tps"),
        ("5.2 Next", "05_2_tps"),
    ]


@pytest.mark.parametrize("module", report.SECTIONS, ids=lambda m: m.__name__.rsplit(".")[-1])
def test_sections_carry_no_numbers_of_their_own(context, module):
    section = module.build(context)
    for part, _ in section.walk() if section is not None else ():
        assert not NUMBERED.match(part.title), part.title
        keys = [b.key for b in part.blocks if isinstance(b, Table)]
        assert not any(NUMBERED.match(key) for key in keys), keys


def test_report_md_numbers_the_sections_present_one_to_n_in_list_order(report_tables):
    headings = re.findall(r"^## (\d+)\. (.+)$", (report_tables / "report.md").read_text(), re.M)
    assert headings[:3] == [
        ("1", "Test conditions"),
        ("2", "Tested variants"),
        ("3", "Runs and method"),
    ]
    assert [int(n) for n, _ in headings] == list(range(1, len(headings) + 1))
    assert len(headings) < len(report.SECTIONS)  # some have nothing to say of these runs


def test_table_files_sort_in_report_order(report_tables):
    text = (report_tables / "report.md").read_text()
    files = sorted(p.stem for p in (report_tables / "tables").glob("*.csv"))
    assert files[0] == "01_conditions"
    sections = [name.split("_")[0] for name in files]
    assert sections == sorted(sections) and all(len(s) == 2 for s in sections)
    first_seen = [text.index(f"## {int(s)}. ") for s in dict.fromkeys(sections)]
    assert first_seen == sorted(first_seen)


def test_cross_references_name_the_sections_where_they_stand(context, report_tables):
    text = (report_tables / "report.md").read_text()
    concurrency = context.numbers["concurrency"]
    assert f"## {concurrency}. Concurrency effect" in text
    assert f"see §{concurrency} for system-wide RPS" in text
