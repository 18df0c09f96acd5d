"""``--target-precision``: per level and target, the statistic, its 90 % interval, the
half-width reached against the target, the requests it rests on, and met or capped."""

from __future__ import annotations

import pandas as pd

from analysis.document import Section
from analysis.figures import precision
from analysis.sections import Context
from analysis.views.tables import Table, slug

TITLE = "Precision"
FORMATS = {"value": "{:.4g}", "90 % interval": "{}", "± %": "{:.2f}", "target ± %": "{:g}"}


def build(context: Context) -> Section | None:
    reached = precision.per_level(context.dataset)
    if reached.empty:
        return None
    tables = [
        Table(
            f"{slug(str(label))}_precision", f"{label}: precision per level", _shown(rows), FORMATS
        )
        for label, rows in reached.groupby("label", sort=False)
    ]
    return Section(
        TITLE,
        [
            "With `--target-precision` each level went on until every target's statistic was as "
            "sure as asked: its 90 % interval (distribution-free, between two order statistics, "
            "for a percentile; mean ± 1.645·s/√n for a mean) within ± the target's share of the "
            "statistic, or until `--max-requests-per-level` (capped). Computed here from the "
            "level's answered requests with the load side's own rule, so a level met exactly "
            "when the run stopped it as met.",
            *tables,
        ],
    )


def _shown(rows: pd.DataFrame) -> pd.DataFrame:
    """One label's rows as the report shows them."""
    interval = [
        "-" if pd.isna(low) else f"{low:.4g}–{high:.4g}"
        for low, high in zip(rows["low"], rows["high"], strict=True)
    ]
    verdict = [
        "met" if met else ("capped" if capped else "not met")
        for met, capped in zip(rows["met"], rows["capped"], strict=True)
    ]
    shown = pd.DataFrame(
        {
            "C": rows["concurrency"].to_numpy(),
            "target": rows["target"].to_numpy(),
            "value": rows["value"].to_numpy(float, na_value=float("nan")),
            "unit": rows["unit"].to_numpy(),
            "90 % interval": interval,
            "± %": rows["half_width_pct"].to_numpy(float, na_value=float("nan")),
            "target ± %": rows["target_pct"].to_numpy(),
            "requests": rows["requests"].to_numpy(),
            "verdict": verdict,
        }
    )
    if rows["run"].nunique() > 1:  # --repeat: each run's levels apart
        shown.insert(0, "run", rows["run"].to_numpy())
    return shown
