"""Images a level's requests carried (``--images``, a dataset's image parts), and what they cost.

Per level, over its ok measured requests (only where some record carries images,
``has_images``: a run without keeps its summary's columns as they were):
  images_sum        images the level's ok requests carried (``RequestRecord.images``)
  images_per_s      images_sum / the level's wall time (the one ``measured_rps`` divides by)
  image_mb_per_s    the images' encoded megabytes (10^6 bytes) / the same wall time

By a request's image count and by its images' size (``ttft_by``: "WxH", "mixed" where one
request's images differ or a size is unknown, "none" without images), per label and level: the
ok measured requests, their TTFT mean/p50/p90 (ms) and their prompt tokens' mean (the server's
usage, where images are counted in its prompt tokens): the cost of an image in TTFT.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.figures import percentiles

COLUMNS = ["images_sum", "images_per_s", "image_mb_per_s"]  # the summary's, per level
NO_IMAGES, MIXED = "none", "mixed"
BY_COUNT, BY_SIZE = "images", "image_size"


def has_images(records: pd.DataFrame) -> bool:
    """Whether some record carried an image."""
    return "images" in records and bool((records["images"].fillna(0) > 0).any())


def level_sums(images: np.ndarray, image_bytes: np.ndarray) -> dict:
    """A level's images and their bytes, from its ok requests' columns."""
    return {"images_sum": int(np.nansum(images)), "image_bytes_sum": float(np.nansum(image_bytes))}


def add_rates(levels: pd.DataFrame) -> pd.DataFrame:
    """``levels`` (with ``level_sums``' columns and ``wall_s``) with the images' rates."""
    out = levels.copy()
    out["images_sum"] = out["images_sum"].fillna(0).astype("Int64")
    out["images_per_s"] = out["images_sum"].astype(float) / out["wall_s"]
    out["image_mb_per_s"] = out["image_bytes_sum"].fillna(0) / 1e6 / out["wall_s"]
    return out


def ttft_by(ok: pd.DataFrame, method: str, by: str) -> pd.DataFrame:
    """TTFT and prompt tokens per (label, level, ``by``: BY_COUNT or BY_SIZE) of the ok
    measured requests ``ok`` of closed-loop levels (the module docstring's); percentiles by
    ``method``."""
    if "offered_rps" in ok:
        ok = ok[ok["offered_rps"].isna()]
    count = ok["images"].fillna(0).astype(int)
    if by == BY_COUNT:
        group = count
    else:
        sizes = ok["image_size"].astype(object).where(ok["image_size"].astype(str) != "", MIXED)
        group = sizes.where(count > 0, NO_IMAGES)
    frame = pd.DataFrame(
        {
            "label": ok["label"].astype(str),
            "concurrency": ok["level"].astype(int),
            by: group,
            "ttft": ok["ttft"] * 1000.0,
            "prompt_tokens": ok["prompt_tokens"],
        }
    )
    rows = []
    for (label, level, value), part in frame.groupby(["label", "concurrency", by], sort=False):
        ttft = np.sort(part["ttft"].dropna().to_numpy())
        rows.append(
            {
                "label": label,
                "concurrency": level,
                by: value,
                "n": len(part),
                "ttft_ms_mean": float(ttft.mean()) if len(ttft) else np.nan,
                "ttft_ms_p50": percentiles.quantile(ttft, 0.5, method),
                "ttft_ms_p90": percentiles.quantile(ttft, 0.9, method),
                "prompt_tokens_mean": float(part["prompt_tokens"].mean()),
            }
        )
    table = pd.DataFrame(rows)
    if not rows:
        return table
    order = {label: i for i, label in enumerate(dict.fromkeys(table["label"]))}
    return table.sort_values(
        ["label", "concurrency", by],
        key=lambda s: s.map(order) if s.name == "label" else s.map(_rank) if s.name == by else s,
        kind="stable",
    )


def _rank(value: object) -> float:
    """Where a group sorts: by image count, or by pixels ("none" first, "mixed" last)."""
    if isinstance(value, int | np.integer):
        return float(value)
    if value == NO_IMAGES:
        return -1.0
    width, _, height = str(value).partition("x")
    return float(width) * float(height) if width.isdigit() and height.isdigit() else np.inf
