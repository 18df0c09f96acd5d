"""What the server saw of each request, per level: where the client's TTFT went, and the drafts.

From the server's own per-request figures (vLLM's per-request metrics; ``RequestRecord.server_*``,
``acceptance_*``, ``spec_*``), over a level's ok measured requests that carry them:

  TTFT split (``TtftSplit``)   the client's TTFT = the server's queue (queued → scheduled) + the
                         server's TTFT (scheduled → first token: prefill, and the decode step
                         that gives the token) + the rest (``rest``: the network both ways,
                         HTTP, the server's front end, tokenization and detokenization). Means
                         over the requests that carry both server times and a client TTFT, so
                         the three parts add up to the client's mean exactly. The rest can be
                         negative by a clock's worth where the server stamps its times apart
                         from its front end. The client's ITL beside the server's (each the
                         mean over those of the same requests that have one: a reply in one
                         chunk has no client ITL).
  drafting (``Drafting``)      acceptance length (tokens per verify step, the bonus token included)
                         and draft acceptance rate (accepted / drafted) mean/p50/p90, the pooled
                         histogram (the sum of the records' histograms, shorter ones padded
                         with zeros: index j = verify steps that accepted exactly j drafts), its
                         steps, accepted and drafted tokens, and the pooled acceptance length
                         1 + Σ j·h_j / Σ h_j; per level, and per category where records carry
                         one (a category's levels pooled).
  TPOT by acceptance (``tpot_by_acceptance``)  the client's per-request TPOT (its ITL) in bins
                         of acceptance length: what a verify step's tokens buy the user.

Closed-loop levels by C and open-loop levels by offered rate, as the summary's. Times in ms.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from analysis.figures import percentiles, slo
from analysis.figures.measured import (
    FloatColumns,
    measured_answered,
    measured_ok_positions,
    measured_rows,
)
from analysis.figures.metrics import CLOSED, LOOPS, Loop, Settings

MS = 1000.0
# Bins of acceptance length for TPOT: 1 (nothing accepted) up to k + 1
ACCEPTANCE_BINS = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 9.0, 17.0)


def rest(ttft: np.ndarray, queue: np.ndarray, server_ttft: np.ndarray) -> np.ndarray:
    """Per request, the client's TTFT that the server's queue and TTFT do not account for (NaN
    where a figure is missing)."""
    return ttft - queue - server_ttft


def pool(histograms: list[list[int]]) -> list[int]:
    """The sum of histograms, index by index; a shorter one counts 0 past its end."""
    width = max((len(h) for h in histograms), default=0)
    pooled = [0] * width
    for histogram in histograms:
        for j, count in enumerate(histogram):
            pooled[j] += count
    return pooled


def pooled_length(histogram: list[int]) -> float | None:
    """The acceptance length of a pooled histogram: 1 + accepted drafts / verify steps."""
    steps = sum(histogram)
    return 1.0 + sum(j * c for j, c in enumerate(histogram)) / steps if steps else None


@dataclass(frozen=True)
class TtftSplit:
    """One level's mean client TTFT split into the server's queue, its TTFT and the rest."""

    label: str
    loop: str
    concurrency: int | None  # a closed-loop level
    offered_rps: float | None  # an open-loop level
    n: int  # requests with a client TTFT and both server times
    client_ttft_ms: float
    queue_ms: float
    server_ttft_ms: float
    rest_ms: float
    client_itl_ms: float | None  # of the same requests, each over those that have one
    server_itl_ms: float | None


@dataclass(frozen=True)
class Drafting:
    """One level's (or one category's) speculative decoding, as the server counted it."""

    label: str
    loop: str
    concurrency: int | None  # None in a category's row (its levels pooled)
    offered_rps: float | None
    category: str | None  # None: every request of the level
    n: int  # requests with an acceptance length
    acceptance_length_mean: float | None
    acceptance_length_p50: float | None
    acceptance_length_p90: float | None
    acceptance_rate_mean: float | None
    acceptance_rate_p50: float | None
    acceptance_rate_p90: float | None
    pooled_acceptance_length: float | None
    histogram: list[int]
    steps: int
    accepted: int
    drafts: int
    tpot_ms_mean: float | None  # the client's ITL of the same requests


def _mean(values: np.ndarray) -> float | None:
    values = values[np.isfinite(values)]
    return float(values.mean()) if len(values) else None


def _quantile(values: np.ndarray, q: float, method: str) -> float | None:
    value = percentiles.quantile(np.sort(values[np.isfinite(values)]), q, method)
    return None if math.isnan(value) else value


def _level(loop: Loop, key: float) -> tuple[int | None, float | None]:
    return (int(key), None) if loop is CLOSED else (None, float(key))


def _carried(records: pd.DataFrame, name: str) -> bool:
    """Some record carries the field (a run without the server's figures: nothing to group)."""
    return name in records and bool(records[name].notna().any())


def _groups(
    records: pd.DataFrame, settings: Settings
) -> Iterator[tuple[Loop, str, float, pd.DataFrame]]:
    """(loop, label, level key, the level's ok measured records), level by level: a copy of
    one level's rows at a time, not of every level's."""
    if not _carried(records, "server_ttft") and not _carried(records, "acceptance_length"):
        return
    for loop in LOOPS:
        for (label, key), index in slo.loop_positions(records, loop).items():
            yield loop, str(label), key, measured_rows(records, index, settings)


def ttft_splits(records: pd.DataFrame, settings: Settings) -> list[TtftSplit]:
    """Every level's split with some request that carries both server times."""
    out = []
    for loop, label, key, frame in _groups(records, settings):
        ttft, queue, server = (
            frame[n].to_numpy(float) for n in ("ttft", "server_queue", "server_ttft")
        )
        whole = np.isfinite(ttft) & np.isfinite(queue) & np.isfinite(server)
        if not whole.any():
            continue
        itl, server_itl = frame["itl"].to_numpy(float), frame["server_itl"].to_numpy(float)
        out.append(
            TtftSplit(
                label,
                loop.name,
                *_level(loop, key),
                int(whole.sum()),
                float(ttft[whole].mean() * MS),
                float(queue[whole].mean() * MS),
                float(server[whole].mean() * MS),
                float(rest(ttft, queue, server)[whole].mean() * MS),
                _mean(itl[whole] * MS),
                _mean(server_itl[whole] * MS),
            )
        )
    return out


def _drafting(
    frame: pd.DataFrame,
    settings: Settings,
    where: tuple[str, str, int | None, float | None],
    category: str | None,
) -> Drafting | None:
    length = frame["acceptance_length"].to_numpy(float)
    drafted = np.isfinite(length)
    if not drafted.any():
        return None
    frame, length = frame[drafted], length[drafted]
    rate = frame["acceptance_rate"].to_numpy(float)
    histograms = [h for h in frame["spec_histogram"] if isinstance(h, list)]
    histogram = pool(histograms)
    method = settings.percentile_method
    return Drafting(
        *where,
        category,
        int(drafted.sum()),
        _mean(length),
        _quantile(length, 0.5, method),
        _quantile(length, 0.9, method),
        _mean(rate),
        _quantile(rate, 0.5, method),
        _quantile(rate, 0.9, method),
        pooled_length(histogram),
        histogram,
        int(np.nansum(frame["spec_steps"].to_numpy(float))),
        int(np.nansum(frame["spec_accepted"].to_numpy(float))),
        int(np.nansum(frame["spec_drafts"].to_numpy(float))),
        _mean(frame["itl"].to_numpy(float) * MS),
    )


def drafting(records: pd.DataFrame, settings: Settings) -> list[Drafting]:
    """Every level with some request that carries an acceptance length."""
    return [
        found
        for loop, label, key, frame in _groups(records, settings)
        if (found := _drafting(frame, settings, (label, loop.name, *_level(loop, key)), None))
    ]


def drafting_by_category(records: pd.DataFrame, settings: Settings) -> list[Drafting]:
    """Per label and category (its levels pooled), where records carry a category."""
    if "category" not in records or not _carried(records, "acceptance_length"):
        return []
    found = []
    for (label, category), index in measured_ok_positions(records, ["label", "category"]).items():
        if str(category) == "":
            continue
        frame = measured_rows(records, index, settings)
        if drafted := _drafting(frame, settings, (str(label), "", None, None), str(category)):
            found.append(drafted)
    return found


def tpot_by_acceptance(records: pd.DataFrame, settings: Settings) -> pd.DataFrame:
    """Per label and bin of acceptance length: requests, their mean acceptance length and the
    client's TPOT (ITL) mean and p50 in ms."""
    columns = [
        "label",
        "acceptance_length",
        "n",
        "acceptance_length_mean",
        "tpot_ms_mean",
        "tpot_ms_p50",
    ]
    if not _carried(records, "acceptance_length"):
        return pd.DataFrame(columns=columns)
    index = np.flatnonzero(measured_answered(records))
    column = FloatColumns(records, settings.itl_null_as_zero)
    length, itl = column["acceptance_length"][index], column["itl"][index] * MS
    known = np.isfinite(length) & np.isfinite(itl)
    bins = np.digitize(length, ACCEPTANCE_BINS)
    labels = records["label"].iloc[index].astype(str).to_numpy()
    rows = []
    for label in dict.fromkeys(labels):
        mine = known & (labels == label)
        for b in sorted(set(bins[mine])):
            at = mine & (bins == b)
            low = ACCEPTANCE_BINS[b - 1] if b > 0 else 0.0
            high = ACCEPTANCE_BINS[b] if b < len(ACCEPTANCE_BINS) else math.inf
            rows.append(
                [
                    label,
                    f"[{low:g}, {high:g})",
                    int(at.sum()),
                    float(length[at].mean()),
                    float(itl[at].mean()),
                    _quantile(itl[at], 0.5, settings.percentile_method),
                ]
            )
    return pd.DataFrame(rows, columns=columns)


def summary_entries(records: pd.DataFrame, settings: Settings) -> dict[str, list[dict]]:
    """summary.json's ``ttft_split``, ``drafting``, ``drafting_by_category`` and
    ``tpot_by_acceptance`` (each left out where no record has what it needs)."""
    entries: dict[str, list[dict]] = {
        "ttft_split": [asdict(s) for s in ttft_splits(records, settings)],
        "drafting": [asdict(d) for d in drafting(records, settings)],
        "drafting_by_category": [asdict(d) for d in drafting_by_category(records, settings)],
        "tpot_by_acceptance": tpot_by_acceptance(records, settings).to_dict(orient="records"),
    }
    return {key: rows for key, rows in entries.items() if rows}
