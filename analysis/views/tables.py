"""Derived comparison tables of the benchmark report, built from summary.csv's rows.

Each builder returns a ``Table``: unrounded numbers plus the report's display format per column,
so CSV keeps full precision and Markdown shows the report's rounding. Rows are labels (one run
configuration each); "variant" and "tp" only decide which labels are compared with which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sparkload.records import CHECK_NO_DATA

PCT = "{:+.1f}%"


@dataclass
class Table:
    """A titled table; ``formats`` maps columns to str.format patterns (others print as is)."""

    key: str
    title: str
    frame: pd.DataFrame
    formats: dict[str, str] = field(default_factory=dict)
    note: str = ""
    csv_only: bool = False  # too long for report.md, which names its CSV file instead


def slug(text: str) -> str:
    """A file-system-safe name for a label."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "run"


def _rows(summary: pd.DataFrame, label: str) -> pd.DataFrame:
    return summary[summary["label"] == label].set_index("concurrency").sort_index()


def _change_pct(base, other):
    return (other - base) / base * 100.0


def labels_of(summary: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(summary["label"]))


def _label_info(summary: pd.DataFrame) -> pd.DataFrame:
    return summary.drop_duplicates("label").set_index("label")[["variant", "tp", "nodes"]]


def tp_groups(summary: pd.DataFrame) -> list[list[str]]:
    """Labels that share a TP size (comparisons between quantizations stay within one)."""
    info = _label_info(summary)
    groups: dict[object, list[str]] = {}
    for label, row in info.iterrows():
        groups.setdefault(None if pd.isna(row["tp"]) else int(row["tp"]), []).append(label)
    return list(groups.values())


# The report's per-variant columns: (summary column, heading).
MEANS = [
    ("ttft_ms_mean", "TTFT (ms)"),
    ("itl_ms_mean", "ITL (ms)"),
    ("tps_mean", "TPS (tok/s)"),
    ("latency_s_mean", "Latency (s)"),
    ("throughput_rps", "Per-stream RPS"),
]
COMPARED = [  # the order of the report's section 3.2 / 4.1 rows
    ("tps_mean", "TPS (tok/s)"),
    ("itl_ms_mean", "ITL (ms)"),
    ("latency_s_mean", "Latency (s)"),
    ("ttft_ms_mean", "TTFT (ms)"),
    ("throughput_rps", "Per-stream RPS"),
]


def thinks(rows: pd.DataFrame) -> bool:
    """Whether summary ``rows`` hold a thinking model's or an agent's requests (reasoning or tool
    calls): only then do the tables show TTFO, so a plain run's report stays as it was."""
    if "ttfo_ms_mean" not in rows:
        return False
    reasoning = rows["reasoning_tokens_mean"].to_numpy(float)
    calls = rows["tool_calls"].to_numpy(float, na_value=np.nan)
    return bool((np.nan_to_num(reasoning) > 0).any() or (np.nan_to_num(calls) > 0).any())


TTFO_HEADING = "TTFO (ms)"  # a thinking model's time to answer, beside TTFT


def label_means(summary: pd.DataFrame, label: str) -> Table:
    """Section 2: the report's performance table of one label (means), with n and failures;
    TTFO beside TTFT where the label's requests reasoned or called tools."""
    rows = _rows(summary, label)
    frame = pd.DataFrame(
        {
            "Concurrency": rows.index,
            "n": rows["n"].to_numpy(),
            "Failures": rows["failures"].to_numpy(),
        }
    )
    if rows["failures"].sum() > 0:  # which classes, per level, beside the count
        frame["Failure classes"] = rows["error_kinds"].astype(object).fillna("").to_numpy()
    means = list(MEANS)
    if thinks(rows):
        means.insert(1, ("ttfo_ms_mean", TTFO_HEADING))
    for column, heading in means:
        frame[heading] = rows[column].to_numpy()
    # a level flagged by the load generator's self-monitor or by its stream shape is never
    # shown as clean, nor is one without an answered request to judge
    answered = rows["n"].to_numpy() > 0
    for column, heading in (("client_flags", "Client check"), ("stream_flags", "Stream check")):
        flags = rows[column].fillna("").to_numpy()
        frame[heading] = [
            f"FLAGGED: {flag}" if flag else "ok" if judged else CHECK_NO_DATA
            for flag, judged in zip(flags, answered, strict=True)
        ]
    if (saturated := saturation_cells(rows)) is not None:
        frame[OVER_SATURATED] = saturated
    return Table(
        f"{slug(label)}_means",
        f"{label}: performance (means)",
        frame,
        {heading: "{:.2f}" for _, heading in means},
    )


OVER_SATURATED = "Over-saturated"  # not the saturation index (scaling): the load side's verdict


def saturation_cells(rows: pd.DataFrame) -> list[str] | None:
    """Per level, what showed it over-saturated: "ENDED EARLY: <why>" where a sweep stopped
    (its arrivals ended early), "FLAGGED: <why>" where the plan ran on (None: no level was)."""
    messages = rows["saturation"].fillna("").astype(str).to_numpy()
    if not any(messages):
        return None
    stops = rows["saturation_stop"].eq(True).to_numpy()
    return [
        ("ENDED EARLY: " if stop else "FLAGGED: ") + message if message else "ok"
        for message, stop in zip(messages, stops, strict=True)
    ]


def label_percentiles(summary: pd.DataFrame, label: str) -> Table:
    """Section 2 companion: p50 and p90 with their bootstrap 90 % CIs (†: too few for a p90)."""
    rows = _rows(summary, label)
    frame = pd.DataFrame({"Concurrency": rows.index, "n": rows["n"].to_numpy()})
    stems = [
        ("ttft_ms", "TTFT ms", "{:.2f}"),
        ("itl_ms", "ITL ms", "{:.2f}"),
        ("tps", "TPS", "{:.2f}"),
        ("latency_s", "Latency s", "{:.2f}"),
    ]
    if thinks(rows):
        stems.insert(1, ("ttfo_ms", "TTFO ms", "{:.2f}"))
    for stem, heading, pattern in stems:
        for stat in ("p50", "p90"):
            cells = []
            for _, row in rows.iterrows():
                value, low, high = (
                    row[f"{stem}_{stat}"],
                    row.get(f"{stem}_{stat}_ci_low"),
                    row.get(f"{stem}_{stat}_ci_high"),
                )
                cell = "—" if pd.isna(value) else pattern.format(value)
                if not pd.isna(value) and not pd.isna(low):
                    cell += f" [{pattern.format(low)}–{pattern.format(high)}]"
                if stat == "p90" and row["p90_few_samples"] and cell != "—":
                    cell += " †"
                cells.append(cell)
            frame[f"{heading} {stat}"] = cells
    return Table(
        f"{slug(label)}_percentiles",
        f"{label}: p50 / p90 ({', '.join(dict.fromkeys(rows['percentile_method']))}) "
        "with bootstrap 90 % CI",
        frame,
    )


THINKING = {  # summary column → (heading, format): a thinking model's and an agent's figures
    "n": ("n", None),
    "no_answer": ("No answer", None),
    "ttft_ms_p50": ("TTFT p50 (ms)", "{:.2f}"),
    "ttfo_ms_p50": ("TTFO p50 (ms)", "{:.2f}"),
    "ttfo_ms_p90": ("TTFO p90 (ms)", "{:.2f}"),
    "reasoning_tokens_mean": ("Reasoning tokens", "{:.1f}"),
    "answer_tokens_mean": ("Answer tokens", "{:.1f}"),
    "reasoning_pct": ("Reasoning share", "{:.1f}%"),
    "reasoning_tps_mean": ("Reasoning tok/s", "{:.2f}"),
    "answer_tps_mean": ("Answer tok/s", "{:.2f}"),
    "reasoning_counted_by": ("Reasoning counted by", None),
    "tool_calls": ("Tool calls", None),
    "tool_args_ms_p50": ("Tool args done p50 (ms)", "{:.2f}"),
    "tool_args_valid_pct": ("Args valid", "{:.1f}%"),
    "tool_args_truncated": ("Args truncated", None),
}


def label_thinking(summary: pd.DataFrame, label: str) -> Table | None:
    """A thinking model's and an agent's figures per level of one label (None when its requests
    neither reasoned nor called tools): time to answer (TTFO) beside TTFT, the reasoning and
    answer tokens, the reasoning's share of the output and each part's decode rate, the tool
    calls, when their arguments were complete, the share whose arguments parse (of those that
    finished) and the requests whose calls were truncated at max_tokens, and the requests that
    never answered within max_tokens. Tool-call columns only where there were."""
    rows = _rows(summary, label)
    if not thinks(rows):
        return None
    columns = dict(THINKING)
    if not (rows["tool_calls"].fillna(0) > 0).any():
        for key in ("tool_calls", "tool_args_ms_p50", "tool_args_valid_pct", "tool_args_truncated"):
            del columns[key]
    frame = pd.DataFrame({"Concurrency": rows.index})
    for column, (heading, _) in columns.items():
        frame[heading] = rows[column].to_numpy()
    formats = {heading: pattern for heading, pattern in columns.values() if pattern}
    return Table(
        f"{slug(label)}_thinking",
        f"{label}: time to answer, reasoning and tool calls",
        frame,
        formats,
    )


def differences(
    summary: pd.DataFrame,
    base: str,
    other: str,
    columns: list[tuple[str, str]],
    key: str,
    title: str,
    show_values: bool,
    value_format: str = "{:.2f}",
) -> Table:
    """Per concurrency, the % change from ``base`` to ``other`` of each column.

    With one column and ``show_values`` this is the report's section 3.1 table (FP8 | NVFP4 |
    Difference); with several columns and no values it is section 4.1's per-level MTP table.
    """
    a, b = _rows(summary, base), _rows(summary, other)
    levels = a.index.intersection(b.index)
    frame = pd.DataFrame({"Concurrency": levels})
    formats = {}
    for column, heading in columns:
        if show_values:
            frame[base], frame[other] = (
                a.loc[levels, column].to_numpy(),
                b.loc[levels, column].to_numpy(),
            )
            formats[base] = formats[other] = value_format
        name = "Difference" if show_values else heading
        frame[name] = _change_pct(a.loc[levels, column], b.loc[levels, column]).to_numpy()
        formats[name] = PCT
    return Table(key, title, frame, formats)


def side_by_side(
    summary: pd.DataFrame, labels: list[str], concurrency: int, key: str, title: str
) -> Table:
    """Metrics as rows, labels as columns at one concurrency (sections 3.2 and 4.1); with two
    labels a Change column gives the second relative to the first; TTFO after TTFT where the
    labels' requests reasoned or called tools."""
    compared = list(COMPARED)
    if thinks(summary[summary["label"].isin(labels)]):
        compared.insert(4, ("ttfo_ms_mean", TTFO_HEADING))  # time to answer, after TTFT
    frame = pd.DataFrame({"Metric": [heading for _, heading in compared]})
    for label in labels:
        row = _rows(summary, label).loc[concurrency]
        frame[label] = [row[column] for column, _ in compared]
    formats = {label: "{:.2f}" for label in labels}
    if len(labels) == 2:
        frame["Change"] = _change_pct(frame[labels[0]], frame[labels[1]])
        formats["Change"] = PCT
    return Table(key, title, frame, formats)


def mtp_ratio(summary: pd.DataFrame, twins: list[tuple[str, str]], server: pd.DataFrame) -> Table:
    """Section 4.3: mean TPS of the drafting twin over its base, per concurrency, and beside
    each ratio the twin's acceptance rate and tokens per verify step from its /metrics (columns
    only where the server reported drafts)."""
    bases = [base for base, _ in twins]
    series, formats = {}, {}
    spec = server.set_index(["label", "concurrency"]) if not server.empty else None
    for base, drafted in twins:
        name = f"{base} MTP ratio" if bases.count(base) == 1 else f"{drafted} / {base}"
        series[name] = _rows(summary, drafted)["tps_mean"] / _rows(summary, base)["tps_mean"]
        formats[name] = "{:.2f}x"
        if spec is None or drafted not in spec.index.get_level_values("label"):
            continue
        figures = spec.loc[drafted]
        if not (figures["drafts"].fillna(0) > 0).any():
            continue
        for column, heading, pattern in (
            ("acceptance_rate", "acceptance", "{:.1%}"),
            ("tokens_per_pass", "tokens/step", "{:.2f}"),
        ):
            series[f"{drafted} {heading}"] = figures[column].rename_axis("concurrency")
            formats[f"{drafted} {heading}"] = pattern
    frame = pd.DataFrame(series).dropna(how="all")
    frame = frame.rename_axis("Concurrency").reset_index()
    return Table(
        "mtp_ratio",
        "MTP speed-up ratio (TPS with MTP / TPS without) per concurrency",
        frame,
        formats,
        note="Acceptance = accepted / draft tokens, tokens/step = 1 + accepted / drafts (the "
        "tokens one verify step emits), from the drafting label's /metrics per level."
        if len(series) > len(twins)
        else "No /metrics with spec-decode counters: acceptance and tokens per step unknown.",
    )


def across_levels(
    summary: pd.DataFrame,
    column: str,
    key: str,
    title: str,
    value_format: str,
    rows: str = "label",
    change_format: str | None = None,
    note: str = "",
) -> Table:
    """One value per (label, concurrency) as a grid: labels × ``C=…`` columns (sections 5, 6.2,
    7), or with ``rows="concurrency"`` concurrency × label columns (section 6.1). A change
    column gives lowest C → highest C in %."""
    grid = summary.pivot(index="label", columns="concurrency", values=column)
    grid = grid.reindex(labels_of(summary))
    if rows == "concurrency":
        frame = grid.T.rename_axis("Concurrency").reset_index()
        frame.columns.name = None
        return Table(key, title, frame, {label: value_format for label in grid.index}, note)
    frame = grid.rename(columns=lambda c: f"C={c}").rename_axis(columns=None)
    formats = {name: value_format for name in frame.columns}
    if change_format:
        first = summary.sort_values("concurrency").groupby("label")[column].first()
        last = summary.sort_values("concurrency").groupby("label")[column].last()
        frame["C min → max"] = _change_pct(first, last).reindex(frame.index)
        formats["C min → max"] = change_format
    frame = frame.rename_axis("Label").reset_index()
    return Table(key, title, frame, formats, note)


def ideal_vs_actual(summary: pd.DataFrame, label: str) -> Table:
    """Section 6.1: total tok/s if every stream kept its lowest-C speed, against the actual."""
    rows = _rows(summary, label)
    c0 = rows.index[0]
    ideal = rows["total_tps"].iloc[0] * rows.index / c0
    frame = pd.DataFrame(
        {
            "Concurrency": rows.index,
            "Ideal (tok/s)": ideal.to_numpy(),
            "Actual (tok/s)": rows["total_tps"].to_numpy(),
            "Efficiency": (rows["total_tps"] / ideal * 100).to_numpy(),
        }
    )
    return Table(
        f"{slug(label)}_ideal_vs_actual",
        f"{label}: ideal vs actual scaling",
        frame,
        {"Ideal (tok/s)": "{:.1f}", "Actual (tok/s)": "{:.1f}", "Efficiency": "{:.1f}%"},
    )


def tp_variants(summary: pd.DataFrame) -> dict[str, list[str]]:
    """Variants that ran at two or more TP sizes → their labels, smallest TP first."""
    info = _label_info(summary).dropna(subset=["tp"])
    out = {}
    for _, group in info.groupby(info["variant"].str.lower(), sort=False):
        if group["tp"].nunique() >= 2:
            out[str(group["variant"].iloc[0])] = list(group.sort_values("tp").index)
    return out


def tp_scaling(summary: pd.DataFrame, variant: str, labels: list[str]) -> Table:
    """TP1/TP2/TP4 comparison of one variant per concurrency.

    TP efficiency = total_tps(TPn) / ((n / n₀) × total_tps(TPn₀)) × 100, n₀ the smallest TP
    size at that concurrency: 100 % means n times the hardware gives n times the tokens.
    Per node divides by ``nodes`` (the TP size when the manifest gives no node count).
    """
    rows = summary[summary["label"].isin(labels)].copy()
    rows["nodes_used"] = rows["nodes"].fillna(rows["tp"]).astype(float)
    rows = rows.sort_values(["concurrency", "tp"])
    smallest = rows.groupby("concurrency").first()
    base_tp = rows["concurrency"].map(smallest["tp"]).astype(float)
    base_total = rows["concurrency"].map(smallest["total_tps"])
    base_tps = rows["concurrency"].map(smallest["tps_mean"])
    frame = pd.DataFrame(
        {
            "Concurrency": rows["concurrency"].to_numpy(),
            "TP": rows["tp"].astype(int).to_numpy(),
            "Nodes": rows["nodes_used"].astype(int).to_numpy(),
            "Label": rows["label"].to_numpy(),
            "Per-stream TPS": rows["tps_mean"].to_numpy(),
            "Per-stream speed-up": (rows["tps_mean"] / base_tps).to_numpy(),
            "Total tok/s": rows["total_tps"].to_numpy(),
            "Total tok/s per node": (rows["total_tps"] / rows["nodes_used"]).to_numpy(),
            "TP efficiency": (
                rows["total_tps"] / (rows["tp"].astype(float) / base_tp * base_total) * 100
            ).to_numpy(),
        }
    )
    return Table(
        f"tp_{slug(variant)}",
        f"{variant}: TP scaling",
        frame,
        {
            "Per-stream TPS": "{:.2f}",
            "Per-stream speed-up": "{:.2f}x",
            "Total tok/s": "{:.1f}",
            "Total tok/s per node": "{:.1f}",
            "TP efficiency": "{:.0f}%",
        },
    )


def with_tail_ratios(summary: pd.DataFrame) -> pd.DataFrame:
    """summary plus p90/p50 ratio columns (section 7.1)."""
    out = summary.copy()
    for stem in ("itl_ms", "ttft_ms", "tps"):
        out[f"{stem}_p90_over_p50"] = out[f"{stem}_p90"] / out[f"{stem}_p50"].replace(0, np.nan)
    return out
