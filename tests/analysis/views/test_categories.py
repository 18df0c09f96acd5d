"""Requests by category: only measured closed-loop records that name one, grouped per level
and category in the order the categories first appear."""

from __future__ import annotations

from analysis.figures.metrics import Settings
from analysis.reading.load import load
from analysis.views import categories
from tests.analysis_synthetic import make_record, write_run


def _record(category: str | None, ttft: float, phase: str = "measure") -> dict:
    fields = {"category": category} if category is not None else {}
    return make_record(
        1, 0, ttft=ttft, itl=0.05, tps=10.0, latency=6.0, start_time=1000.0, phase=phase, **fields
    )


def _named(tmp_path, records: list[dict]):
    return categories.category_records(load([write_run(tmp_path, "sim", records)]).records)


def test_warm_ups_and_requests_without_a_category_are_left_out(tmp_path):
    named = _named(
        tmp_path,
        [_record("math", 0.1), _record(None, 0.2), _record("math", 0.3, phase="warmup")],
    )
    assert list(named["ttft"]) == [0.1]


def test_categories_keep_the_order_they_first_appear_in(tmp_path):
    named = _named(tmp_path, [_record("rag", 0.1), _record("coding", 0.2), _record("rag", 0.3)])
    frame = categories.by_category(named, "sim", Settings())
    assert list(frame["Category"]) == ["rag", "coding"]
    assert list(frame["n"]) == [2, 1]
    assert frame["TTFT ms mean"].round(6).tolist() == [200.0, 200.0]
