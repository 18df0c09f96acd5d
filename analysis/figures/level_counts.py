"""Per level, what its requests came to: answered, failed (by kind), warm-ups left out, and its
wall time (``metrics.level_stats`` joins them to the level's statistics)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def counts(
    records: pd.DataFrame, record_key: str, summary_key: str, groups: dict[tuple, np.ndarray]
) -> pd.DataFrame:
    """n, failures, warm-up count, error kinds and wall time per (label, level): ``groups``,
    each level's positions in ``records`` (read by position: a selection of the measured rows
    copied a gigabyte at 10,000,000 records)."""
    measure, ok = records["measure"].to_numpy(), records["ok"].to_numpy()
    run = records["run"].to_numpy()
    # walls add up per level run: a scenario's phases of one C are apart
    level_run = records["level_index"].to_numpy(np.float64)
    starts = records["start_time"].to_numpy(np.float64)
    latency = records["latency"].to_numpy(np.float64)
    rows = []
    for index in groups.values():
        measured = index[measure[index]]
        answered = ok[index]
        rows.append(
            {
                "n": int((measure[index] & answered).sum()),
                "failures": int((measure[index] & ~answered).sum()),
                "warmup_excluded": int((~measure[index]).sum()),
                **_wall(
                    run[measured],
                    np.nan_to_num(level_run[measured], nan=-1.0),
                    starts[measured],
                    latency[measured],
                ),
            }
        )
    names = ["label", summary_key]
    counts = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(list(groups), names=names))
    failed = np.flatnonzero(measure & ~ok)
    kinds: dict[tuple, list[str]] = {}
    if len(failed):
        rows_failed = pd.DataFrame(
            {
                "label": records["label"].iloc[failed].to_numpy(),
                "level": records[record_key].iloc[failed].to_numpy(),
                "kind": records["error_kind"].iloc[failed].astype(object).fillna("unknown"),
            }
        )
        for (label, level, name), count in (
            rows_failed.groupby(["label", "level", "kind"], observed=True).size().items()
        ):
            kinds.setdefault((label, level), []).append(f"{name}: {count}")
    counts["error_kinds"] = ["; ".join(kinds.get(k, [])) for k in counts.index]
    return counts


def _wall(run: np.ndarray, level_run: np.ndarray, starts: np.ndarray, latency: np.ndarray) -> dict:
    """A level's wall time, the first send to the last answer summed over the runs' (and
    phases') stretches of it, and how many runs it has (NaN: no measured request)."""
    if not len(run):
        return {"wall_s": np.nan, "runs": np.nan}
    stretches = (
        pd.DataFrame(
            {
                "run": run,
                "index": level_run,
                "start": starts,
                "end": starts + np.nan_to_num(latency),
            }
        )
        .groupby(["run", "index"])
        .agg(start=("start", "min"), end=("end", "max"))
    )
    return {
        "wall_s": float((stretches["end"] - stretches["start"]).sum()),
        "runs": stretches.index.get_level_values("run").nunique(),
    }
