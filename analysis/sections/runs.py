"""Runs and method: what was read, what was left out, and how the figures were computed."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.figures import percentiles
from analysis.reading.load import SOURCE_LOCUST, Run
from analysis.sections import Context
from analysis.views.tables import Table
from sparkload.records import ArrivalEntry, ServerEntry

METHOD_TEXT = {
    percentiles.LINEAR: 'linear interpolation between order statistics (numpy method="linear")',
    percentiles.CORDATUS: "cordatus (reference tool): p50 = statistics.median, other percentiles "
    "nearest rank sorted[ceil(q·n) − 1]",
}


def _shown(value: object) -> str:
    """A manifest value in one cell: a mapping by its keys only (header names, never values
    such as an API key), a list joined."""
    if isinstance(value, (dict, list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def _server_row(run: Run, endpoint: str, server: ServerEntry) -> dict[str, str]:
    """One endpoint's row: each thing it recorded a column, each item of a mapping (its
    headers) a column of its own."""
    info = server.to_dict()
    return {
        "Label": run.label,
        "Endpoint": endpoint,
        **{key: _shown(value) for key, value in info.items() if not isinstance(value, dict)},
        **{
            f"{key}: {name}": str(text)
            for key, value in info.items()
            if isinstance(value, dict)
            for name, text in value.items()
        },
    }


def _servers(runs: list[Run]) -> Table | None:
    """What each endpoint said about itself and the intermediaries on the way (proxies, caches)."""
    rows = [
        _server_row(run, endpoint, server)
        for run in runs
        for endpoint, server in run.manifest.servers.items()
    ]
    if not rows:
        return None
    return Table(
        "servers", "Servers and intermediaries (as recorded by the run)", pd.DataFrame(rows)
    )


def cache_busted(run: Run) -> bool:
    """Whether the run made every prompt unique (``request.cache_bust``; earlier manifests kept
    it in ``workload``). Reusing prompts is the default, as the quantization report did."""
    request = run.manifest.request
    said = request.cache_bust if request is not None else None
    return bool(said if said is not None else run.manifest.workload.cache_bust)


def _path_and_cache(run: Run) -> list[str]:
    """Per run: the request settings, the user's metadata and whether prompts were reused."""
    name, manifest = run.path.name, run.manifest
    lines = []
    if manifest.request is not None and (request := manifest.request.to_dict()):
        settings = "; ".join(f"{key}: {_shown(value)}" for key, value in request.items())
        lines.append(f"`{name}`: request settings: {settings}")
    if manifest.metadata:
        pairs = ", ".join(f"`{key}={value}`" for key, value in manifest.metadata.items())
        lines.append(f"`{name}`: metadata {pairs}")
    if run.has_manifest:
        lines.append(
            f"`{name}`: prompts **cache-busted** (unique per request: TTFT includes the full "
            "prefill)"
            if cache_busted(run)
            else f"`{name}`: prompts **reused** (the default and the quantization report's "
            "method: later requests may be served partly from the prefix cache)"
        )
    return lines


def _open_loop_line(run: Run, where: str) -> str:
    rates = ", ".join(f"{rate:.4g}" for _, rate in sorted(run.offered_rates().items()))
    arrival = run.manifest.arrival or ArrivalEntry()
    if trace := arrival.trace:
        speedup = arrival.speedup if arrival.speedup is not None else 1
        how = f"a replayed trace, `{trace.path}` at {speedup}x speed"
    else:
        process, burstiness = arrival.process or "poisson", arrival.burstiness
        known = process == "gamma" and burstiness is not None
        how = f"{process} arrivals" + (f" of burstiness {burstiness:g}" if known else "")
    return (
        f"`{run.path.name}`: **open loop** ({how}, offered rates: {rates or 'unknown'} "
        f"req/s): reported by offered rate in {where}, not by concurrency."
    )


def build(context: Context) -> Section:
    dataset, settings, summary = context.dataset, context.settings, context.summary
    frame = pd.DataFrame(
        [
            {
                "Label": r.label,
                "Variant": r.variant,
                "TP": r.tp,
                "Nodes": r.nodes,
                "Status": f"**INCOMPLETE** ({r.status})" if r.incomplete else r.status,
                "Source": r.source,
                "Records": r.records,
                "Skipped lines": r.skipped_lines,
                "Time scale": f"{r.time_scale:g}",
                "Directory": r.path.name,
            }
            for r in dataset.runs
        ]
    )
    blocks: list[Block] = [Table("runs", "Runs", frame)]
    if (servers := _servers(dataset.runs)) is not None:
        blocks.append(servers)
    for run in dataset.runs:
        blocks += _path_and_cache(run)
        if run.open_loop:
            blocks.append(_open_loop_line(run, context.ref("open_loop")))
        if run.incomplete:
            blocks.append(
                f'**INCOMPLETE run** `{run.path.name}`: status "{run.status}" — analysed '
                "with the records it has; its last level may be short."
            )
        blocks += [f"`{run.path.name}`: {note}" for note in run.notes]
    blocks += [f"Skipped: {text}" for text in dataset.skipped_runs]
    scales = sorted({r.time_scale for r in dataset.runs if r.time_scale != 1})
    if scales:
        blocks.append(
            "**Figures are in simulated time (time scale "
            + ", ".join(f"{s:g}" for s in scales)
            + ")**: the target ran faster than real time; durations were multiplied and rates "
            "divided by it."
        )
    if any(r.source == SOURCE_LOCUST for r in dataset.runs):
        blocks.append(
            "**Locust CSV input**: no raw records; its percentiles are Locust's bucketed "
            "approximations (nearest rank of times rounded to 1/10/100/1000 ms buckets). "
            "Means and counts are exact; TPS is not available from Locust's CSV."
        )
    warmup, failures = int(summary["warmup_excluded"].sum()), int(summary["failures"].sum())
    blocks.append(
        f"Percentiles: **{METHOD_TEXT[settings.percentile_method]}** (column `percentile_method`). "
        f"Every number comes from measured requests: {warmup} warm-up request(s) excluded; "
        f"{failures} failed request(s) counted per level and not used for metrics."
    )
    if settings.itl_null_as_zero:
        blocks.append(
            "`--itl-null-as-zero`: single-token responses enter ITL as 0 (as the reference tool "
            "does), which lowers ITL means."
        )
    return Section("Runs and method", blocks)
