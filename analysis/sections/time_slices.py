"""Time slices: every level in windows of S seconds, and the throughput drift flag per level."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.figures.slices import MIN_STEADY_WINDOWS, LevelSlices
from analysis.sections import Context, image
from analysis.views.charts import SLICE_CHARTS
from analysis.views.tables import Table, slug

TITLE = "Time slices and drift"
WINDOW_HEADINGS = {  # slices.WINDOW_COLUMNS -> heading
    "window": "Window",
    "start_s": "Start (s)",
    "length_s": "Length (s)",
    "completed": "Completed",
    "failures": "Failures",
    "ttft_ms_p50": "TTFT p50 (ms)",
    "ttft_ms_p90": "TTFT p90 (ms)",
    "itl_ms_p50": "ITL p50 (ms)",
    "itl_ms_p90": "ITL p90 (ms)",
    "output_tps": "Output tok/s",
    "inflight_mean": "In flight (mean)",
    "steady": "Steady",
}


def intro(threshold_pct: float) -> str:
    return (
        "Each level cut into windows of S seconds of the target's time (simulated time for a "
        "simulator run, like every figure here), from the level's first measured send to its "
        "last completion (the last window is usually shorter). A request belongs to the window "
        "in which it **completed**: completed, failures and the TTFT / ITL percentiles are of "
        "those requests. Output tok/s = the output tokens delivered inside the window / its "
        "length, each request's tokens spread over its decode span (first → last token), so a "
        "window counts the tokens streamed in it even when no request ends there. In flight = "
        "the time mean over the window of the requests sent and not yet complete. **Drift**: "
        "the steady windows are the full windows ending by the level's last send, without its "
        "first window (ramp-up) and the drain after the last send (ramp-down); with at least "
        f"{MIN_STEADY_WINDOWS}, the first quarter's mean output tok/s is compared with the last "
        f"quarter's and a fall of more than {threshold_pct:g} % is flagged DRIFT (e.g. thermal "
        "throttling in a long run; `--drift-threshold`). In a count-based ladder users finish a "
        "few requests apart, so its last steady windows may run fewer streams: judge endurance "
        "with `--step-duration` levels."
    )


def drift_table(levels: list[LevelSlices]) -> Table:
    frame = pd.DataFrame(
        {
            "Label": [s.label for s in levels],
            "Run": [s.run for s in levels],
            "Level": [s.level for s in levels],
            "S (s)": [s.duration_s for s in levels],
            "Windows": [len(s.windows) for s in levels],
            "Steady": [s.drift.steady_windows for s in levels],
            "First steady tok/s": [s.drift.first_tps for s in levels],
            "Last steady tok/s": [s.drift.last_tps for s in levels],
            "Change": [s.drift.change_pct for s in levels],
            "Drift": [
                "DRIFT" if s.drift.flagged else ("steady" if s.drift.judged else "not judged")
                for s in levels
            ],
        }
    )
    return Table(
        "drift",
        "Throughput drift per level (first vs last steady windows)",
        frame,
        {
            "S (s)": "{:g}",
            "First steady tok/s": "{:.1f}",
            "Last steady tok/s": "{:.1f}",
            "Change": "{:+.1f}%",
        },
    )


def windows_table(levels: list[LevelSlices], key: str, title: str) -> Table:
    """Every window of one run's levels, one row each (CSV; report.md names the file)."""
    frame = pd.concat(
        [s.windows.rename(columns=WINDOW_HEADINGS).assign(Level=s.level) for s in levels],
        ignore_index=True,
    )
    frame = frame[["Level", *WINDOW_HEADINGS.values()]]
    return Table(key, title, frame, csv_only=True)


def build(context: Context) -> Section | None:
    if not context.slices:
        return None
    threshold = context.slices[0].drift.threshold_pct
    blocks: list[Block] = [intro(threshold), drift_table(context.slices)]
    flagged = [s for s in context.slices if s.drift.flagged]
    blocks += [f"**DRIFT** {s.label} {s.level} (`{s.run}`): {s.drift.describe()}" for s in flagged]
    section = Section(TITLE, blocks)
    runs: dict[tuple[str, str], list[LevelSlices]] = {}
    for level in context.slices:
        runs.setdefault((level.label, level.run), []).append(level)
    shown: dict[str, int] = {}
    for (label, run), levels in runs.items():
        shown[label] = shown.get(label, 0) + 1
        several = sum(key[0] == label for key in runs) > 1
        suffix = f"_run{shown[label]}" if several else ""
        name = f"{label} ({run})" if several else label
        sub: list[Block] = [
            windows_table(levels, f"{slug(label)}{suffix}_windows", f"{name}: windows")
        ]
        sub += [
            image(slug(label), key + suffix, f"{name} {what} per window")
            for key, what, _, _ in SLICE_CHARTS
        ]
        section.subsections.append(Section(name, sub))
    return section
