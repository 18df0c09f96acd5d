"""The report's Structured output section: there with its per-level table for a run with
verdicts, left out of a plain run."""

from __future__ import annotations

from analysis import report
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def run_of(tmp_path, verdicts: list[str | None]):
    records = [
        make_record(
            1, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i, structured=v
        )
        for i, v in enumerate(verdicts)
    ]
    return load([write_run(tmp_path, "json", records)])


def test_a_run_with_verdicts_has_the_section_and_its_per_level_table(tmp_path):
    built = report.build(run_of(tmp_path, ["valid", "valid", "valid", "schema_error"]), SETTINGS)
    (section,) = [s for s in built.sections if s.title.endswith(". Structured output")]
    (table,) = [b for b in section.blocks if hasattr(b, "frame")]
    row = table.frame.iloc[0]
    assert (row["schema valid"], row["schema errors"], row["truncated"]) == (0.75, 1, 0)


def test_a_plain_run_has_no_structured_output_section(tmp_path):
    built = report.build(run_of(tmp_path, [None, None]), SETTINGS)
    assert not any(s.title.endswith(". Structured output") for s in built.sections)
