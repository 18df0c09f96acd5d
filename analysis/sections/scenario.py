"""A ``--scenario`` run: its phases one by one (by level index: two phases of one C stay apart)
and the scenario's own figures (``analysis/figures/scenario.py``, whose rules it states)."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.figures import scenario as figures
from analysis.sections import Context
from analysis.views.tables import Table, slug

TITLE = "Scenarios"
PHASE_HEADINGS = {
    "phase": "Phase",
    "concurrency": "C",
    "duration_s": "Planned (s)",
    "start_s": "First send (s)",
    "n": "Requests",
    "failures": "Failures",
    "ttft_ms_p50": "TTFT p50 (ms)",
    "ttft_ms_p90": "TTFT p90 (ms)",
    "output_tps": "Output tok/s",
}
INTRO = (
    "Each scenario run's phases in order, one level each (the per-level tables above pool phases "
    "of one C; here each stands alone). Times count from the run's first send, in the target's "
    "time. Output tok/s: the phase's tokens over its first send to its last completion."
)


def phase_table(result: figures.ScenarioResult, key: str) -> Table:
    frame = pd.DataFrame([p.row() for p in result.phases])[list(PHASE_HEADINGS)]
    return Table(
        key,
        f"{result.label} ({result.run}): {result.name}, by phase",
        frame.rename(columns=PHASE_HEADINGS),
        {
            h: "{:.1f}"
            for h in (
                "TTFT p50 (ms)",
                "TTFT p90 (ms)",
                "Output tok/s",
                "Planned (s)",
                "First send (s)",
            )
        },
    )


def findings(result: figures.ScenarioResult) -> list[Block]:
    """The scenario's own figures in words."""
    f = result.figures
    if "recovery_s" in f:
        if "baseline_ttft_ms_p90" not in f:
            return ["Recovery: not measurable (a phase without answered requests)."]
        after = f"{f['recovery_s']:.1f} s" if f["recovered"] else "**not recovered**"
        return [
            f"TTFT p90 {f['baseline_ttft_ms_p90']:.0f} ms before, {f['high_ttft_ms_p90']:.0f} ms "
            f"in the {f['high_phase']} phase ({f['high_over_baseline_p90']:.1f}x), "
            f"{f['after_ttft_ms_p90']:.0f} ms after. Recovery time: {after} ({f['recovery_rule']})."
        ]
    if "switches" in f:
        return [
            "Settling per switch (rolling median TTFT within "
            f"{figures.BAND:.0%} of the phase's own second-half level): "
            + "; ".join(
                f"{s['from']}→{s['to']} "
                + (f"{s['settle_s']:.1f} s" if s["settle_s"] is not None else "not settled")
                for s in f["switches"]
            )
        ]
    if "first_growth" in f:
        grown = f["first_growth"]
        return [
            f"First step whose TTFT p90 grew more than {figures.RAMP_GROWTH:g}x over the step "
            + (
                f"before: {grown['phase']} (C={grown['concurrency']}, {grown['p90_growth']:.1f}x)."
                if grown
                else "before: none."
            )
        ]
    if "connections_opened" in f:
        cost = f["connect_ms_mean"]
        return [
            f"Churn opened {f['connections_opened']} connections"
            + (
                f", {cost:.2f} ms each on average (p90 {f['connect_ms_p90']:.2f} ms)"
                if cost
                else ""
            )
            + f"; TTFT p50 {f['churn_ttft_ms_p50']:.1f} ms with a connection per request against "
            f"{f['kept_ttft_ms_p50']:.1f} ms on kept connections. Failures: {f['failures']}."
        ]
    if "steady_share" in f and f["steady_share"] is not None:
        return [f"Steady share of the soak: {f['steady_share']:.0%} ({f['steady_rule']})."]
    return []


def build(context: Context) -> Section | None:
    results = figures.of_dataset(context.dataset)
    if not results:
        return None
    blocks: list[Block] = [INTRO]
    for n, result in enumerate(results, start=1):
        blocks += [phase_table(result, f"{slug(result.label)}_{n}_phases"), *findings(result)]
    return Section(TITLE, blocks)
