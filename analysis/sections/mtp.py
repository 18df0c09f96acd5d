"""MTP effect: each label against its twin that differs in drafting only
(``analysis.figures.drafting``: by what the manifests and /metrics say, not by name), and the
speed-up per concurrency with the twin's acceptance and tokens per verify step beside it; where
the records name categories, the speed-up per category too (``category_speedups``)."""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from analysis.compare.change_intervals import CONFIDENCE, LevelSample, draws, measure_change
from analysis.compare.tolerances import BY_NAME
from analysis.document import Section
from analysis.figures import drafting
from analysis.figures.metrics import Settings
from analysis.sections import Context, image
from analysis.views import categories, tables
from analysis.views.charts import COMPARISON_FOLDER
from analysis.views.tables import Table, slug

RULE = (
    "Two labels pair when one drafts (speculative decoding: MTP, DSpark, n-gram, ...) and the "
    "other does not, and everything else agrees: quantization, TP size, nodes, workload and "
    "output length. The table below says what each label ran and where that was read: the "
    "user's own words for the run, the simulator's setting, the target's /metrics "
    "(spec-decode counters exist only while drafting; k = draft tokens / drafts), the served "
    "model, or, for runs that record none of these, the variant name (X-MTP)."
)


def deployments_table(found: dict[str, drafting.Deployment]) -> Table:
    """Every label's quantization and drafting, with where each was read."""
    frame = pd.DataFrame(
        {
            "Label": list(found),
            "Quantization": [d.quantization for d in found.values()],
            "Quantization from": [d.quantization_source for d in found.values()],
            "Drafting": [d.drafting.describe() for d in found.values()],
            "Drafting from": [d.drafting.source for d in found.values()],
        }
    )
    return Table("deployments", "What each label ran: quantization and drafting", frame)


def _pair_section(summary: pd.DataFrame, base: str, drafted: str) -> Section | None:
    levels = sorted(
        set(summary.loc[summary["label"] == base, "concurrency"])
        & set(summary.loc[summary["label"] == drafted, "concurrency"])
    )
    if not levels:
        return None
    return Section(
        f"{base} → {drafted}",
        [
            tables.side_by_side(
                summary,
                [base, drafted],
                levels[0],
                f"{slug(base)}_{slug(drafted)}_c{levels[0]}",
                f"{base} vs {drafted} at C={levels[0]}",
            ),
            tables.differences(
                summary,
                base,
                drafted,
                [
                    ("tps_mean", "TPS change"),
                    ("itl_ms_mean", "ITL change"),
                    ("latency_s_mean", "Latency change"),
                ],
                f"{slug(base)}_{slug(drafted)}_by_level",
                f"{base} → {drafted}: change per concurrency",
                show_values=False,
            ),
        ],
    )


TPS = BY_NAME["tps_mean"]  # output tok/s per user, the mean: what drafting speeds up
SPEEDUP_FORMATS = {
    "TPS off": "{:.1f}",
    "TPS on": "{:.1f}",
    "Speed-up": "{:.2f}x",
    "low": "{:.2f}x",
    "high": "{:.2f}x",
}


def _sample(rows: pd.DataFrame) -> LevelSample:
    ok = rows[rows["ok"].to_numpy()]
    return LevelSample(ok, len(ok), len(rows) - len(ok))


def category_speedups(
    named: pd.DataFrame, base: str, drafted: str, settings: Settings
) -> pd.DataFrame:
    """Per concurrency and category both labels ran: the mean output tok/s per user without and
    with drafting, their ratio (the speed-up) and its interval at the report's confidence: the
    percentile interval of the log ratio of independent draws of each mean
    (``compare.change_intervals``, as ``sparkload compare``); empty bounds where either side
    has fewer requests than an interval needs."""
    out = []
    for (level, category), rows in named.groupby(
        ["level", named["category"].astype(str)], sort=False, observed=True
    ):
        off = _sample(rows[rows["label"] == base])
        on = _sample(rows[rows["label"] == drafted])
        if not off.n or not on.n:
            continue
        seed = [settings.seed, int(level), zlib.crc32(f"{base}|{drafted}|{category}".encode())]
        rng = np.random.default_rng(seed)
        values = [float(sample.ok["tps"].mean()) for sample in (off, on)]
        drawn = [
            draws(TPS, sample, value, rng, settings.bootstrap_resamples)
            for sample, value in zip((off, on), values, strict=True)
        ]
        change = measure_change(TPS, values[0], values[1], drawn[0], drawn[1])
        out.append(
            {
                "Concurrency": int(level),
                "Category": category,
                "n off": off.n,
                "n on": on.n,
                "TPS off": values[0],
                "TPS on": values[1],
                "Speed-up": 1 + change.change / 100,
                "low": 1 + change.low / 100,
                "high": 1 + change.high / 100,
            }
        )
    frame = pd.DataFrame(out)
    return frame.sort_values(["Concurrency", "Category"]).reset_index(drop=True) if out else frame


def _category_section(
    named: pd.DataFrame, twins: list[tuple[str, str]], settings: Settings
) -> Section | None:
    blocks: list = []
    for base, drafted in twins:
        frame = category_speedups(named, base, drafted, settings)
        if not frame.empty:
            blocks.append(
                Table(
                    f"{slug(base)}_{slug(drafted)}_by_category",
                    f"{base} → {drafted}: speed-up per category",
                    frame,
                    SPEEDUP_FORMATS,
                )
            )
    if not blocks:
        return None
    return Section(
        "Speed-up per category",
        [
            "Drafting on against off, per level and category (a dataset line's `category`): "
            "the mean output tok/s per user of each, their ratio, and its "
            f"{CONFIDENCE:.0%} interval (low, high) from independent draws of each mean, the "
            "log ratio's percentile interval as `sparkload compare` gives a change's; no "
            "interval where either side has fewer than 5 requests. A category whose interval "
            "lies above 1.00x gains from drafting beyond the noise.",
            *blocks,
        ],
    )


def build(context: Context) -> Section:
    summary = context.summary
    labels = set(summary["label"])
    found = {
        label: d
        for label, d in drafting.deployments(context.dataset, context.server).items()
        if label in labels
    }
    twins = drafting.pairs(found)
    section = Section(
        "MTP effect",
        [
            image(COMPARISON_FOLDER, "tps_all", "TPS, all variants"),
            RULE,
            deployments_table(found),
        ],
    )
    if not twins:
        section.blocks.append(
            "No two labels differ in drafting only (e.g. FP8 without and with MTP at one TP "
            "size): no MTP tables."
        )
        return section
    section.subsections += [
        sub for base, drafted in twins if (sub := _pair_section(summary, base, drafted))
    ]
    section.subsections.append(
        Section(
            "MTP speed-up ratio vs concurrency",
            [tables.mtp_ratio(summary, twins, context.server)],
        )
    )
    named = categories.category_records(context.dataset.records)
    if not named.empty and (by := _category_section(named, twins, context.settings)):
        section.subsections.append(by)
    return section
