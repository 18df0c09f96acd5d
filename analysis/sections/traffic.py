"""Request lengths and the prefix cache: what runs that shape their requests asked and achieved.

For labels whose prompts were made to measure (synthetic prompts: ``--input-tokens`` and its
spreads, ``--seq-dist``, ``--prefix-tokens``; or a ``--trace``), per level: the prompt and output
lengths the server reported, and, where prompts share text by design (shared prefixes, a trace's
blocks), the share of prompt tokens a cache that keeps everything would serve beside the share
the server said it served (usage ``cached_tokens``) and its prefix-cache counters over the level.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.document import Block, Section
from analysis.figures.metrics import level_keys, level_name
from analysis.reading import server_metrics
from analysis.reading.load import Run
from analysis.sections import Context
from analysis.views.tables import Table, slug
from sparkload.records import LengthComponent

TITLE = "Request lengths and the prefix cache"
INTRO = (
    "Runs whose requests were made to measure: synthetic prompts (`--input-tokens`, "
    "`--input-tokens-stddev`, `--output-tokens-stddev`, `--seq-dist`, `--prefix-tokens`) or a "
    "replayed `--trace`. Lengths are the server's own count (usage `prompt_tokens`, "
    "`completion_tokens`) of the level's measured requests; sd is the population standard "
    "deviation. Where prompts share text by design, *expected cached* is the share of prompt "
    "tokens a prefix cache that keeps everything would serve: a shared prefix's tokens for "
    "every request after the first of that prefix in the run, a trace line's leading blocks "
    "that an earlier line sent whole (512 tokens each). A server caches whole blocks only (16 "
    "tokens in vLLM, 512 in the simulator's hybrid-model profiles), so it serves up to one "
    "block less per request; requests sent while the first of their prefix was still in "
    "prefill find nothing yet. *Served (usage)* is Σ usage cached_tokens / Σ prompt tokens; "
    "*server hit rate* is the server's prefix-cache counters over the level (hits / queries, "
    "in tokens), which count every request the server saw then."
)
LENGTHS = {
    "n": ("n", None),
    "prompt_tokens_mean": ("Prompt mean", "{:.1f}"),
    "prompt_tokens_sd": ("Prompt sd", "{:.1f}"),
    "prompt_tokens_p50": ("Prompt p50", "{:.0f}"),
    "prompt_tokens_p90": ("Prompt p90", "{:.0f}"),
    "prompt_tokens_p99": ("Prompt p99", "{:.0f}"),
    "prompt_tokens_min": ("Prompt min", "{:.0f}"),
    "prompt_tokens_max": ("Prompt max", "{:.0f}"),
    "output_tokens_mean": ("Output mean", "{:.1f}"),
    "output_tokens_sd": ("Output sd", "{:.1f}"),
    "output_tokens_p50": ("Output p50", "{:.0f}"),
    "output_tokens_p90": ("Output p90", "{:.0f}"),
    "output_tokens_p99": ("Output p99", "{:.0f}"),
}
CACHE = {
    "n": ("n", None),
    "expected_cached_pct": ("Expected cached", "{:.1f}%"),
    "cached_prompt_pct": ("Served (usage)", "{:.1f}%"),
    "server_hit_pct": ("Server hit rate", "{:.1f}%"),
}


def shaped(run: Run) -> bool:
    """The run's prompts were made to measure: fitted synthetic prompts, or a trace."""
    return run.manifest.prompts.token_count is not None


def asked(run: Run) -> str:
    """What the run asked for, from its manifest, in one line."""
    prompts = run.manifest.prompts
    if trace := prompts.trace:
        return (
            f"`{run.path.name}`: replayed trace `{trace.path}` ({trace.format}, "
            f"{trace.lines} lines over {trace.span_s:.1f} s of its time)"
        )
    if prompts.lengths:
        text = "; ".join(_component(c) for c in prompts.lengths)
    else:
        text = f"{prompts.input_tokens} tokens in"
    if prefix := prompts.prefix:
        text += f", after one of {prefix.count} shared prefixes of {prefix.tokens} tokens"
    return f"`{run.path.name}`: synthetic prompts, {text} (a pool of {prompts.count})"


def _component(c: LengthComponent) -> str:
    """One part of a length distribution, e.g. "1000±200 in, 16±0 out (100%)"."""
    text = f"{c.input_tokens}±{c.input_stddev} in"
    if c.output_tokens:
        text += f", {c.output_tokens}±{c.output_stddev} out"
    return text + f" ({c.weight * 100:.0f}%)"


def _levels(context: Context, label: str) -> pd.DataFrame:
    frames = [f[f["label"] == label] for f in (context.summary, context.open_loop) if not f.empty]
    if not frames:
        return pd.DataFrame()
    levels = pd.concat(frames, ignore_index=True)
    return levels.assign(level=level_keys(levels), Level=levels.apply(level_name, axis=1))


def _table(levels: pd.DataFrame, columns: dict, key: str, title: str) -> Table:
    frame = levels[["Level", *columns]].rename(columns={k: h for k, (h, _) in columns.items()})
    formats = {heading: pattern for heading, pattern in columns.values() if pattern}
    return Table(key, title, frame.reset_index(drop=True), formats)


def build(context: Context) -> Section | None:
    runs = [run for run in context.dataset.runs if shaped(run)]
    labels = [label for label in context.dataset.labels if any(r.label == label for r in runs)]
    if not labels:
        return None
    hits = server_metrics.prefix_cache_per_level(runs)
    section = Section(TITLE, [INTRO])
    for label in labels:
        levels = _levels(context, label)
        if levels.empty:
            continue
        blocks: list[Block] = [asked(run) for run in runs if run.label == label]
        blocks.append(_table(levels, LENGTHS, f"{slug(label)}_lengths", f"{label}: lengths"))
        if np.isfinite(levels["expected_cached_pct"].to_numpy(float)).any():
            mine = hits[hits["label"] == label].set_index("level")["prefix_hit_rate"]
            levels = levels.assign(server_hit_pct=levels["level"].map(mine) * 100)
            key, title = f"{slug(label)}_prefix_cache", f"{label}: expected and served cache"
            blocks.append(_table(levels, CACHE, key, title))
        section.subsections.append(Section(label, blocks))
    return section if section.subsections else None
