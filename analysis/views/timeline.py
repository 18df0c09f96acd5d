"""Request timelines: per level of a run, one bar per request (sent → first token → last token),
so that a long prefill stalling every decoding stream can be seen.

Rows are the level's measured requests in send order (row 0 sent first), times in seconds since
the level's first send, in the target's time like every figure. A level of more than
``MAX_BARS`` requests shows ``MAX_BARS`` consecutive ones from the middle of its send order, and
the chart says which span: a stall is seen only with every stream that ran beside it, which a
thinned-out sample (every k-th request) would hide, and the time-slice charts already give the
whole level's course. A page of thousands of bars would show nothing and weigh megabytes. A
failed request is one bar from its send to its end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.figures.slices import LevelRequests, level_of, level_positions, values_at
from analysis.reading.load import Dataset, describe_level
from analysis.views.tables import slug

FOLDER = "timelines"
MAX_BARS = 400


@dataclass
class Timeline:
    """One level's bars; ``folder``/``key``/``title`` as a chart's (``charts.Chart``)."""

    folder: str
    key: str
    label: str
    run: str  # the run directory's name
    level: str  # "C=4", "offered 2 req/s"
    title: str
    subtitle: str
    sent: np.ndarray  # per shown request, seconds since the level's first send
    first_token: np.ndarray  # NaN: no token came (a failure)
    last_token: np.ndarray
    end: np.ndarray
    ok: np.ndarray
    output_tokens: np.ndarray
    shown: int
    total: int

    @property
    def sampled(self) -> bool:
        return self.shown < self.total


def sample(count: int, most: int = MAX_BARS) -> np.ndarray:
    """Indices of at most ``most`` of ``count`` rows: all of them, or ``most`` consecutive ones
    from the middle."""
    first = max(0, (count - most) // 2)
    return np.arange(first, min(count, first + most))


def level_timeline(
    records: pd.DataFrame,
    positions: np.ndarray,
    key: str,
    label: str,
    run: str,
    level: str,
    title: str,
    note: str,
) -> Timeline:
    """The timeline of one level's measured records (``analysis.reading.load`` columns) at
    ``positions``: only the shown requests' columns are read."""
    sent_all = values_at(records, "start_time", positions)
    in_order = np.argsort(sent_all, kind="stable")
    origin = float(sent_all[in_order[0]])
    chosen = LevelRequests.at(records, positions[in_order[sample(len(positions))]])
    sent = chosen.sent - origin
    first = sent + chosen.ttft
    last = np.where(chosen.ok, sent + chosen.t_last_token, np.nan)
    end = sent + np.nan_to_num(chosen.latency)
    shown, total = len(sent), len(positions)
    counted = (
        f"{shown:,} of {total:,} requests shown: those sent from {sent[0]:.1f} s to "
        f"{sent[-1]:.1f} s, the middle of the level"
        if shown < total
        else f"all {total:,} requests"
    )
    return Timeline(
        FOLDER,
        key,
        label,
        run,
        level,
        title,
        f"{counted}; rows in send order{note}",
        sent,
        first,
        np.fmax(last, first),
        end,
        chosen.ok,
        chosen.output_tokens,
        shown,
        total,
    )


def timelines(dataset: Dataset, note: str = "") -> list[Timeline]:
    """One timeline per level of every run with raw records (closed and open loop)."""
    records = dataset.records
    if records.empty or "level_index" not in records:
        return []
    runs_per_label = pd.Series([run.label for run in dataset.runs]).value_counts()
    out = []
    for run_index, run in enumerate(dataset.runs):
        several = runs_per_label.get(run.label, 0) > 1
        for level_index, positions in level_positions(records, run_index).items():
            concurrency, rate = level_of(run, records, positions)
            name = describe_level(concurrency, rate)
            level_key = f"c{concurrency}" if rate is None else f"r{rate:.4g}"
            key = f"{slug(run.label)}_{level_index + 1:02d}_{level_key}"
            key += f"_{slug(run.path.name)}" if several else ""
            title = f"{run.label} {name}: request timeline" + (
                f" ({run.path.name})" if several else ""
            )
            timeline = level_timeline(
                records, positions, key, run.label, run.path.name, name, title, note
            )
            out.append(timeline)
    return out
