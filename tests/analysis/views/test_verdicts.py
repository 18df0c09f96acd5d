"""The report's verdicts: each rule of ``analysis.views.verdicts`` on a summary built for it, and
the four sections in a report, each naming every label."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from analysis.views import verdicts


def level(label: str, c: int, **figures: float) -> dict:
    """One summary row: a level of ``label`` at C=``c``; TTFT/ITL in ms, latency in s."""
    row = {
        "label": label,
        "concurrency": c,
        "ttft_ms_mean": 100.0,
        "itl_ms_mean": 50.0,
        "latency_s_mean": 6.5,
        "tps_mean": 20.0,
        "p90_few_samples": False,
        **{
            f"{stem}_{stat}": 1.0
            for stem in ("ttft_ms", "itl_ms", "tps")
            for stat in ("p50", "p90")
        },
    }
    row.update(figures)
    row["total_tps"] = row["tps_mean"] * c
    row["system_rps"] = c / row["latency_s_mean"]
    return row


def summary(*rows: dict) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    lowest = frame.sort_values("concurrency").groupby("label")["tps_mean"].transform("first")
    frame["saturation_pct"] = frame["tps_mean"] / lowest * 100
    return frame


def test_ttft_growing_5x_while_itl_grows_1_2x_is_prefill_bound():
    frame = verdicts.bottlenecks(
        summary(
            level("a", 1, ttft_ms_mean=100.0, itl_ms_mean=50.0),
            level("a", 16, ttft_ms_mean=500.0, itl_ms_mean=60.0),
        )
    )
    row = frame.iloc[0]
    assert (row["TTFT growth"], row["ITL growth"]) == pytest.approx((5.0, 1.2))
    assert row["Bottleneck"] == verdicts.PREFILL


@pytest.mark.parametrize(
    ("ttft_growth", "itl_growth", "verdict"),
    [
        (1.2, 2.0, verdicts.DECODE),  # 2.0 ≥ 1.5 × 1.2
        (1.6, 1.4, verdicts.BOTH),  # neither 1.5 times the other
        (1.05, 1.08, verdicts.FLAT),  # neither grew by 10 %
    ],
)
def test_the_other_bottleneck_classes(ttft_growth, itl_growth, verdict):
    assert verdicts.bottleneck_class(ttft_growth, itl_growth) == verdict


def test_a_label_with_one_level_is_named_with_no_change():
    frame = verdicts.bottlenecks(summary(level("solo", 4)))
    assert list(frame["Bottleneck"]) == [verdicts.ONE_LEVEL]


def test_the_ranking_orders_by_the_mean_of_ttft_itl_and_tps_p90_over_p50():
    tight = level("tight", 1, ttft_ms_p90=1.1, itl_ms_p90=1.0, tps_p90=1.0)  # score 1.033
    loose = level("loose", 1, ttft_ms_p90=1.0, itl_ms_p90=1.2, tps_p90=1.1)  # score 1.1
    wide = level("wide", 1, ttft_ms_p90=1.5)  # score 1.167
    frame = verdicts.predictability(summary(wide, loose, tight))
    assert list(frame["Label"]) == ["tight", "loose", "wide"]
    assert list(frame["Rank"]) == [1, 2, 3]
    assert frame.set_index("Label").at["loose", "Widest tail"] == "ITL"


def test_the_latency_optimum_is_the_highest_level_within_5_percent_of_the_best_latency():
    found = verdicts.optimum(
        summary(
            level("a", 1, latency_s_mean=10.0),
            level("a", 2, latency_s_mean=10.4),  # +4 %
            level("a", 4, latency_s_mean=10.6),  # +6 %
        )
    )
    assert (found.latency_c, found.latency_range) == (2, "1–2")


def test_the_throughput_optimum_stops_before_a_step_adding_under_half_a_stream():
    found = verdicts.optimum(
        summary(
            level("a", 1, tps_mean=20.0),  # total 20
            level("a", 4, tps_mean=18.0),  # total 72: (72 − 20) / 3 / 20 = 0.87 a stream
            level("a", 8, tps_mean=15.0),  # total 120: (120 − 72) / 4 / 20 = 0.60
            level("a", 16, tps_mean=9.0),  # total 144: (144 − 120) / 8 / 20 = 0.15: stop
        )
    )
    assert found.throughput_c == 8
    assert found.marginal == pytest.approx(0.6)
    assert found.efficiency_pct == pytest.approx(75.0)  # 15 / 20: the saturation index


def test_each_scenario_names_its_choice_with_the_figure_and_every_labels_figure():
    frame = summary(
        level("fast-start", 1, ttft_ms_mean=80.0, latency_s_mean=9.0),
        level("fast-start", 8, ttft_ms_mean=90.0, latency_s_mean=9.5),
        level("fast-decode", 1, ttft_ms_mean=300.0, latency_s_mean=5.0, tps_mean=30.0),
        level("fast-decode", 8, ttft_ms_mean=400.0, latency_s_mean=6.0, tps_mean=28.0),
    )
    choices = {
        c.scenario: c
        for c in verdicts.selection(
            frame, verdicts.predictability(frame), verdicts.optima(frame), None
        )
    }
    first = choices["First token critical"]
    assert (first.label, first.figure) == ("fast-start", "80 ms at C=1")
    assert first.figures == "fast-start 80 ms, fast-decode 300 ms"
    assert choices["Interactive chat"].label == "fast-decode"
    assert choices["Batch processing"].figure == "224.0 tok/s at C=8"  # 28 × 8


def test_with_an_slo_the_service_level_choice_is_the_highest_concurrency_meeting_it():
    frame = summary(level("a", 1), level("b", 1))
    choice = verdicts.selection(
        frame, verdicts.predictability(frame), verdicts.optima(frame), {"a": 3.5, "b": None}
    )[5]
    assert (choice.scenario, choice.label, choice.figure) == ("Service level (--slo)", "a", "C=3.5")
    assert choice.figures == "a C=3.5, b fails at its lowest level"


SECTIONS = (
    "Bottleneck: prefill against decode",
    "Predictability: ranking by p90/p50",
    "Optimal concurrency",
    "Variant selection guide",
)


@pytest.mark.parametrize("title", SECTIONS)
def test_the_report_holds_each_verdict_section_naming_every_label(report_tables, title):
    text = (report_tables / "report.md").read_text()
    found = re.search(rf"^## \d+\. {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found is not None
    for label in ("FP8", "FP8-MTP", "AWQ-MTP", "NVFP4", "NVFP4-MTP"):
        assert re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", found.group(1)), label


def test_a_label_without_a_figure_shows_a_dash_and_is_not_chosen():
    probe = [level("probe", c, itl_ms_mean=float("nan"), ttft_ms_mean=10.0) for c in (1, 2)]
    frame = summary(*probe, level("chat", 1, ttft_ms_mean=100.0), level("chat", 2))
    code = verdicts.selection(frame, verdicts.predictability(frame), verdicts.optima(frame), None)[
        1
    ]
    assert (code.scenario, code.label) == ("Code completion", "chat")
    assert code.figures.startswith("probe —, chat ")
    bottleneck = verdicts.bottlenecks(frame).set_index("Label").at["probe", "Bottleneck"]
    assert bottleneck == verdicts.UNKNOWN
