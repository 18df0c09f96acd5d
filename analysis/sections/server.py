"""Server-side metrics: vLLM /metrics per level, speculative decoding, client vs server; energy
and node telemetry as its subsection (``energy.py``)."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.reading.server_metrics import MIN_GAUGE_SAMPLES, TOO_FEW_SAMPLES
from analysis.sections import Context, energy
from analysis.views.tables import Table

TITLE = "Server-side metrics"
METHOD = (
    "From vLLM /metrics snapshots at level boundaries: counter deltas per level "
    "(acceptance rate = accepted / draft tokens; tokens per pass = 1 + accepted / drafts; "
    "accept_posN = accepted at position N / drafts; server TTFT/ITL = histogram Δsum / "
    "Δcount; generation tok/s = Δ generation tokens / level seconds). Deltas run from the "
    "snapshot taken when the level's warm-up came back (ladder mode), so they cover the "
    "measured requests only; otherwise from the level's start. Gauges (running, waiting, "
    "KV-cache usage) are means (and maxima) of the samples taken inside the measured "
    "requests' window, first send to last end (`gauge_samples` of them; every "
    "`--metrics-interval` of the target's time, simulated on the simulator); a level with "
    f"fewer than {MIN_GAUGE_SAMPLES} says {TOO_FEW_SAMPLES}: the values at its bounds are "
    "those of an idle server."
)
CLIENT_VS_SERVER_NOTE = (
    "Server TTFT starts at the API server's arrival (tokenising and queueing included); "
    "server ITL is one observation per engine step, so with speculative decoding it "
    "matches the client's chunk ITL, not its per-token ITL. Client tok/s = Σ output "
    "tokens / level wall time (first send to last completion); the server's generation "
    "tok/s = Δ generation tokens / the same wall time where the level's two snapshots "
    "bracket it (nothing in flight outside it: every token of the Δ is in it), so the two "
    "differ only where the server counted other tokens than the client; elsewhere / the time "
    "between the two snapshots, longer by the load generator's own time around the requests "
    "(the scrapes, the shipping of records: x the time scale on a simulator)."
)


def _speculative(frame: pd.DataFrame) -> Table | None:
    spec = frame[frame["drafts"].fillna(0) > 0] if "drafts" in frame else frame.iloc[0:0]
    if spec.empty:
        return None
    positions = [c for c in spec.columns if c.startswith("accept_pos")]
    table = spec[
        ["label", "concurrency", "drafts", "acceptance_rate", "tokens_per_pass", *positions]
    ]
    return Table(
        "speculative_decoding",
        "Speculative decoding per level",
        table,
        {
            "drafts": "{:.0f}",
            "acceptance_rate": "{:.1%}",
            "tokens_per_pass": "{:.2f}",
            **{c: "{:.3f}" for c in positions},
        },
        note="accept_posN = P(at least N+1 draft tokens accepted); non-increasing in N by "
        "construction. Mean tokens per pass, not the acceptance rate, predicts throughput.",
    )


def _client_vs_server(summary: pd.DataFrame, frame: pd.DataFrame) -> Table:
    client = summary.set_index(["label", "concurrency"])
    side = frame[["label", "concurrency"]].copy()
    keys = list(zip(side["label"], side["concurrency"], strict=False))

    def pick(column: str) -> list:
        return [client[column].get(k, float("nan")) for k in keys]

    side["TTFT ms, client"] = pick("ttft_ms_mean")
    side["TTFT ms, server"] = frame["ttft_ms_mean"].to_numpy()
    side["ITL ms, client"] = pick("itl_ms_mean")
    side["Chunk ITL ms, client"] = pick("chunk_itl_ms_mean")
    side["ITL ms, server (per step)"] = frame["itl_ms_mean"].to_numpy()
    side["Output tok/s, client"] = pick("measured_total_tps")
    side["Generation tok/s, server"] = frame["gen_tok_s"].to_numpy()
    return Table(
        "client_vs_server",
        "Client vs server, per level",
        side,
        {c: "{:.2f}" for c in side.columns if c not in ("label", "concurrency")},
        note=CLIENT_VS_SERVER_NOTE,
    )


GAUGES = ("running", "waiting", "kv_cache_usage_pct")


def _too_few(frame: pd.DataFrame) -> pd.DataFrame:
    """The gauges of a level with fewer samples than the minimum say so instead of a dash."""
    out = frame.copy()
    short = out["gauge_samples"] < MIN_GAUGE_SAMPLES
    for column in (c for c in frame.columns if c.removesuffix("_max") in GAUGES):
        missing = short & out[column].isna()
        out[column] = out[column].astype(object).where(~missing, TOO_FEW_SAMPLES)
    return out


def build(context: Context) -> Section:
    frame = context.server
    nodes = energy.build(context)
    subsections = [nodes] if nodes is not None else []
    if frame.empty and nodes is None:
        return Section(TITLE, ["No server metrics (no server_metrics.jsonl)."])
    if frame.empty:
        return Section(
            TITLE, ["No vLLM figures (no vllm: series); node telemetry below."], subsections
        )
    formats = {c: "{:.2f}" for c in frame.columns if c not in ("label", "concurrency")}
    formats.update(
        {c: "{:.1%}" for c in frame.columns if c.endswith("_rate") or c.startswith("accept_")}
    )
    formats.update(
        {
            "kv_cache_usage_pct": "{:.1%}",
            "kv_cache_usage_pct_max": "{:.1%}",
            "gauge_samples": "{:.0f}",
            "drafts": "{:.0f}",
            "draft_tokens": "{:.0f}",
        }
    )
    blocks: list[Block] = [
        METHOD,
        Table("server_metrics", "Server figures per level", _too_few(frame), formats),
    ]
    if (spec := _speculative(frame)) is not None:
        blocks.append(spec)
    blocks.append(_client_vs_server(context.summary, frame))
    return Section(TITLE, blocks, subsections)
