"""Open loop: per offered rate, what was achieved, how many requests were in flight, how late
requests were sent, and what each one saw."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.reading.load import Run
from analysis.sections import Context, image
from analysis.views import tables
from analysis.views.charts import OPEN_LOOP_CHART
from analysis.views.tables import Table, slug

TITLE = "Open loop: offered vs achieved"
INTRO = (
    "These labels ran **open loop** (`--arrival-rate`, or a replayed `--trace`, whose offered "
    "rate is its lines over its span): requests arrived on a schedule, whatever the server's "
    "pace, and a pool of clients sent them. The pool size is not a "
    "concurrency: none of the per-C figures (system RPS = C / latency, TPS × C, saturation, "
    "the per-concurrency comparisons) apply, and the other sections leave these labels out. "
    "Per offered rate: achieved = completed requests / level wall time (first send to last "
    "completion) and output tokens / wall time; in flight = requests sent and not yet "
    "complete, time mean and peak (a sweep over the sends and completions of the level's "
    "measured requests); send lateness = how long a due request waited for a free client "
    "(queue_wait), p50 / p99: a growing lateness means the pool, not the server, held the "
    "rate back; scheduled = the arrivals of the level's whole schedule, sent or not (a level "
    "stopped as over-saturated sends only its start); arrival CV = standard deviation / mean "
    "of the gaps between the schedule's arrivals (1 for Poisson arrivals, 0 for constant "
    "ones, 1/√B for gamma arrivals of `--burstiness` B). Rates are in the target's time."
)
RATES = {  # summary column → (heading, format)
    "offered_rps": ("Offered (req/s)", "{:.4g}"),
    "measured_rps": ("Achieved (req/s)", "{:.2f}"),
    "achieved_pct": ("Achieved / offered", "{:.1f}%"),
    "measured_total_tps": ("Output tok/s", "{:.1f}"),
    "scheduled": ("Scheduled", "{:.0f}"),
    "n": ("n", None),
    "failures": ("Failures", None),
    "inflight_mean": ("In flight, mean", "{:.1f}"),
    "inflight_peak": ("In flight, peak", "{:.0f}"),
    "send_lateness_ms_p50": ("Send lateness p50 (ms)", "{:.2f}"),
    "send_lateness_ms_p99": ("Send lateness p99 (ms)", "{:.2f}"),
    "arrival_cv": ("Arrival CV", "{:.2f}"),
}
LATENCIES = (
    ("ttft_ms", "TTFT ms"),
    ("itl_ms", "ITL ms"),
    ("tps", "TPS"),
    ("latency_s", "Latency s"),
)


def rates_table(levels: pd.DataFrame, label: str) -> Table:
    """Offered against achieved, in flight and send lateness per offered rate of one label."""
    rows = levels[levels["label"] == label].sort_values("offered_rps")
    rows = rows.assign(achieved_pct=rows["measured_rps"] / rows["offered_rps"] * 100)
    frame = rows[list(RATES)].rename(columns={k: heading for k, (heading, _) in RATES.items()})
    if (saturated := tables.saturation_cells(rows)) is not None:
        frame[tables.OVER_SATURATED] = saturated
    formats = {heading: pattern for heading, pattern in RATES.values() if pattern}
    return Table(f"{slug(label)}_open_loop", f"{label}: offered vs achieved", frame, formats)


def latency_table(levels: pd.DataFrame, label: str) -> Table:
    """What the requests saw per offered rate: mean, p50 and p90 of each per-request metric."""
    rows = levels[levels["label"] == label].sort_values("offered_rps")
    frame = pd.DataFrame({"Offered (req/s)": rows["offered_rps"].to_numpy()})
    latencies = list(LATENCIES)
    if tables.thinks(rows):  # a thinking model's time to answer beside TTFT
        latencies.insert(1, ("ttfo_ms", "TTFO ms"))
    for stem, heading in latencies:
        for stat in ("mean", "p50", "p90"):
            frame[f"{heading} {stat}"] = rows[f"{stem}_{stat}"].to_numpy()
    formats = {column: "{:.2f}" for column in frame.columns[1:]}
    formats["Offered (req/s)"] = "{:.4g}"
    return Table(f"{slug(label)}_open_loop_latency", f"{label}: per offered rate", frame, formats)


def pools(runs: list[Run], label: str) -> str:
    """The client pool sizes of a label's open-loop runs, e.g. "512" or "256, 512"."""
    sizes = sorted(
        {level.concurrency for r in runs if r.label == label for level in r.manifest.levels}
    )
    return ", ".join(map(str, sizes)) or "unknown"


def build(context: Context) -> Section | None:
    levels = context.open_loop
    if levels.empty:
        return None
    runs = [run for run in context.dataset.runs if run.open_loop]
    section = Section(TITLE, [INTRO])
    for label in tables.labels_of(levels):
        blocks: list[Block] = [
            f"**{label}** ran open loop with a client pool of {pools(runs, label)} user(s).",
            rates_table(levels, label),
            latency_table(levels, label),
            image(slug(label), OPEN_LOOP_CHART, f"{label} achieved vs offered rate"),
        ]
        section.subsections.append(Section(label, blocks))
    return section
