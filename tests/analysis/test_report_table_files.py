"""Every table of the report has a CSV file of its own: a key used twice never overwrites."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from analysis import report
from analysis.document import Report, Section
from analysis.figures.metrics import Settings
from analysis.outputs import csv
from analysis.reading.load import load
from analysis.views.tables import Table
from tests.analysis_synthetic import markdown_table


def table(key: str) -> Table:
    return Table(key, key, pd.DataFrame({"a": [1]}))


def test_a_repeated_table_key_gets_a_suffix_and_the_first_keeps_its_name():
    sections = [Section("A", [table("01_x")], [Section("B", [table("01_x"), table("01_y")])])]
    keys = [b.key for s in report.distinct_keys(sections) for p, _ in s.walk() for b in p.blocks]
    assert keys == ["01_x", "01_x_2", "01_y"]


def test_the_csv_writer_refuses_two_tables_of_one_file_name(tmp_path):
    document = Report(
        "t", pd.DataFrame({"label": []}), [Section("A", [table("x"), table("x")])], []
    )
    with pytest.raises(ValueError, match="tables share a file name: x"):
        csv.write(document, tmp_path)


def test_a_tp_matrix_writes_as_many_table_csvs_as_it_says_and_its_index_links(
    tp_matrix_runs, tmp_path
):
    built = report.build(load(tp_matrix_runs), Settings(bootstrap_resamples=0))
    said: list[str] = []
    report.write(built, tmp_path, charts=False, progress=said.append)
    files = {p.name for p in (tmp_path / "tables").glob("*.csv")}
    assert f"{len(files)} table CSVs" in said[0] and len(files) == len(built.tables) > 100
    links = re.findall(r'href="tables/([^"]+)"', (tmp_path / "index.html").read_text())
    assert sorted(links) == sorted(files)


@pytest.mark.parametrize("tp", [1, 2, 4])
@pytest.mark.parametrize("level", [1, 16])
def test_each_tp_sizes_mtp_variants_have_their_side_by_side_table(tp_matrix_tables, tp, level):
    text = (tp_matrix_tables / "report.md").read_text()
    rows = markdown_table(text, f"MTP variants at TP{tp}, C={level}")
    assert rows[0] == ["Metric", *(f"{v}-mtp-tp{tp}" for v in ("fp8", "awq", "nvfp4"))]
    (path,) = (tp_matrix_tables / "tables").glob(f"*_mtp_tp{tp}_c{level}.csv")
    assert list(pd.read_csv(path).columns)[1:] == rows[0][1:]
