"""The report's "What the server saw" section: the TTFT split and the drafts where records carry
the server's figures, a line for a level without them, left out of a plain run."""

from __future__ import annotations

import pytest

from analysis import report
from analysis.document import Image
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views.tables import Table
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)
TITLE = ". What the server saw"
SERVED = {"server_queue": 0.002, "server_ttft": 0.05, "server_itl": 0.008}
DRAFTED = {
    "acceptance_length": 3.0,
    "acceptance_rate": 2 / 3,
    "spec_histogram": [0, 1, 1, 2],
    "spec_steps": 4,
    "spec_accepted": 9,
    "spec_drafts": 12,
}


def built(tmp_path, per_level: dict[int, dict]):
    records = [
        make_record(
            c, index, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 * c + i, **fields
        )
        for index, (c, fields) in enumerate(per_level.items())
        for i in range(3)
    ]
    return report.build(load([write_run(tmp_path, "run", records)]), SETTINGS)


def section_of(built_report):
    (section,) = [s for s in built_report.sections if s.title.endswith(TITLE)]
    return section


def tables_of(section) -> list[Table]:
    return [b for s, _ in section.walk() for b in s.blocks if isinstance(b, Table)]


def test_a_run_with_server_figures_has_the_split_table_and_its_chart(tmp_path):
    section = section_of(built(tmp_path, {1: SERVED, 2: SERVED}))
    split = section.subsections[0]
    assert split.title.endswith("TTFT split")
    (table,) = [b for b in split.blocks if isinstance(b, Table)]
    row = table.frame.iloc[0]
    assert row["C"] == 1
    assert [row["server queue ms"], row["server TTFT ms"], row["rest ms"]] == pytest.approx(
        [2.0, 50.0, 48.0]
    )
    assert [b.path for b in split.blocks if isinstance(b, Image)] == ["run/ttft_split.png"]


def test_a_level_without_server_figures_is_named(tmp_path):
    split = section_of(built(tmp_path, {1: SERVED, 2: {}})).subsections[0]
    assert "run: no server figures at C=2." in split.blocks


def test_drafting_has_its_level_histogram_and_tpot_tables(tmp_path):
    section = section_of(built(tmp_path, {1: {**SERVED, **DRAFTED}}))
    drafting = section.subsections[1]
    assert drafting.title.endswith("Speculative decoding")
    keys = [t.key.split("_run_", 1)[-1] for t in tables_of(drafting)]
    assert keys == ["drafting_by_concurrency", "accepted_drafts", "tpot_by_acceptance"]
    histogram = tables_of(drafting)[1].frame
    assert histogram["all levels"].tolist() == [0, 3, 3, 6]


def test_a_run_without_drafts_has_no_drafting_subsection(tmp_path):
    section = section_of(built(tmp_path, {1: SERVED}))
    assert [s.title.split(" ", 1)[1] for s in section.subsections] == ["TTFT split"]


def test_a_plain_run_has_no_such_section(tmp_path):
    assert not any(s.title.endswith(TITLE) for s in built(tmp_path, {1: {}}).sections)
