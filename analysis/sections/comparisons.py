"""Quantization comparison: pairwise differences without drafting, side by side with it (which
label drafts: ``analysis.figures.drafting``, from the manifests and /metrics, not from names)."""

from __future__ import annotations

import itertools

import pandas as pd

from analysis.document import Section
from analysis.figures import drafting
from analysis.sections import Context, image
from analysis.views import tables
from analysis.views.charts import COMPARISON_FOLDER
from analysis.views.tables import slug

DIFFERENCES = (
    ("tps_mean", "TPS (tok/s)"),
    ("itl_ms_mean", "ITL (ms)"),
    ("latency_s_mean", "Latency (s)"),
)


def _tp(summary: pd.DataFrame, label: str) -> str:
    """The label's TP size as the tables name it ("TP2"; "" when the run did not say)."""
    tp = summary.loc[summary["label"] == label, "tp"].iloc[0]
    return "" if pd.isna(tp) else f"TP{int(tp)}"


def _same_workload(context: Context, groups: list[list[str]]) -> list[list[str]]:
    """Each group split by workload and output length: a prefill probe and a generation run
    make no pair."""
    kinds = {
        run.label: (run.manifest.workload_name, run.manifest.workload.max_tokens)
        for run in context.dataset.runs
    }
    split: list[list[str]] = []
    for group in groups:
        by_kind: dict[object, list[str]] = {}
        for label in group:
            by_kind.setdefault(kinds.get(label), []).append(label)
        split += by_kind.values()
    return split


def _same_drafting(found: dict[str, drafting.Deployment], group: list[str]) -> list[list[str]]:
    """The group split by drafting method and depth: a label that drafts and one that does not
    differ in more than their quantization (their pair is the MTP section's)."""
    split: dict[object, list[str]] = {}
    for label in group:
        known = found.get(label)
        key = (known.drafting.method, known.drafting.depth) if known else None
        split.setdefault(key, []).append(label)
    return list(split.values())


def build(context: Context) -> Section:
    summary = context.summary
    found = drafting.deployments(context.dataset, context.server)

    def drafts(label: str) -> bool:
        return label in found and found[label].drafting.drafts

    plain = Section(
        "Same drafting: pairwise differences",
        [
            "Difference = (second − first) / first, per concurrency, for every pair of labels "
            "at the same TP size that sent the same workload and output length and draft alike "
            f"(both without drafting, or with the same method and depth; {context.ref('mtp')} "
            "says which label drafts and pairs each with its twin without)."
        ],
    )
    mtp = Section("With drafting: side by side at lowest and highest concurrency")
    for group in _same_workload(context, tables.tp_groups(summary)):
        alike = _same_drafting(found, group)
        for first, second in (p for part in alike for p in itertools.combinations(part, 2)):
            for column, heading in DIFFERENCES:
                plain.blocks.append(
                    tables.differences(
                        summary,
                        first,
                        second,
                        [(column, heading)],
                        f"{slug(first)}_vs_{slug(second)}_{column.split('_')[0]}",
                        f"{heading}: {first} vs {second}",
                        show_values=True,
                    )
                )
        with_mtp = [label for label in group if drafts(label)]
        if len(with_mtp) >= 2:
            common = sorted(
                set.intersection(
                    *(set(summary.loc[summary["label"] == m, "concurrency"]) for m in with_mtp)
                )
            )
            tp = _tp(summary, with_mtp[0])
            for c in dict.fromkeys((common[0], common[-1])) if common else ():
                mtp.blocks.append(
                    tables.side_by_side(
                        summary,
                        with_mtp,
                        c,
                        f"mtp_{tp.lower()}_c{c}" if tp else f"mtp_c{c}",
                        f"MTP variants at {tp}, C={c}" if tp else f"MTP variants at C={c}",
                    )
                )
    if len(plain.blocks) == 1:
        plain.blocks = ["Fewer than two labels that draft alike at one TP size: no pairwise table."]
    if not mtp.blocks:
        mtp.blocks = ["Fewer than two drafting labels at one TP size: no side-by-side table."]
    return Section(
        "Quantization comparison",
        [image(COMPARISON_FOLDER, "ttft_all", "TTFT, all variants")],
        [plain, mtp],
    )
