"""``--json``: the comparison's dataclasses as one JSON object, missing figures as null."""

from __future__ import annotations

import json

from analysis.compare.compare import NOISE, WORSE, Cell, Comparison, LevelComparison
from analysis.compare.compare_json import document, write
from analysis.compare.run_settings import SettingDifference


def comparison(verdict: str, run: float | None = 101.0) -> Comparison:
    cell = Cell("ttft_p90_ms", "TTFT p90", "ms", 100.0, run, 1.0, "%", -2.0, 4.0, "+10%", verdict)
    level = LevelComparison("C=1", "sim", "sim", 40, 40, 0, 0, [cell])
    return Comparison("base", "run", 0.9, 1000, 0, "linear", [level], only_in_run=["C=8"])


def test_the_document_says_whether_any_cell_is_worse():
    assert document(comparison(WORSE))["worse"] is True
    assert document(comparison(NOISE))["worse"] is False


def test_every_field_of_the_comparison_is_in_the_file(tmp_path):
    write(comparison(NOISE), tmp_path / "c.json")
    found = json.loads((tmp_path / "c.json").read_text())
    assert found["only_in_run"] == ["C=8"] and found["confidence"] == 0.9
    assert found["levels"][0]["cells"][0] == {
        "figure": "ttft_p90_ms", "title": "TTFT p90", "unit": "ms", "baseline": 100.0,
        "run": 101.0, "change": 1.0, "change_unit": "%", "ci_low": -2.0, "ci_high": 4.0,
        "tolerance": "+10%", "verdict": "within noise", "note": "",
    }  # fmt: skip


def test_a_missing_figure_is_null_so_the_file_is_strict_json(tmp_path):
    write(comparison(NOISE, run=None), tmp_path / "c.json")
    text = (tmp_path / "c.json").read_text()
    assert "NaN" not in text and json.loads(text)["levels"][0]["cells"][0]["run"] is None


def test_the_settings_compared_anyway_are_in_the_file(tmp_path):
    found = comparison(NOISE)
    found.settings_differ = [SettingDifference("sampling.max_tokens", "32", "128")]
    write(found, tmp_path / "c.json")
    assert json.loads((tmp_path / "c.json").read_text())["settings_differ"] == [
        {"setting": "sampling.max_tokens", "baseline": "32", "run": "128", "label": ""}
    ]
