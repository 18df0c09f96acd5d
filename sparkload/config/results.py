"""The results' options: where run directories go, what they keep, what the end of a run checks,
and what the master serves live (``--prometheus-port``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sparkload.config.option import RESULTS, Option
from sparkload.config.parsers import boolean, key_values, non_negative, path, port, text

ROWS: tuple[Option, ...] = (
    Option(
        "--results-dir",
        "results",
        "Where run directories are written",
        RESULTS,
        path,
    ),
    Option(
        "--keep-chunk-gaps",
        False,
        "Store every chunk gap in the records, not just a summary",
        RESULTS,
        boolean,
    ),
    Option(
        "--keep-outputs",
        False,
        "Keep each request's reply text in its record, with its prompt's key and its chunks' "
        "lengths, for sparkload fidelity (off by default: outputs may be private); send "
        "--temperature 0 (and a seed in --extra-body) for greedy outputs to compare",
        RESULTS,
        boolean,
    ),
    Option(
        "--slice-duration",
        0.0,
        "Seconds of the target's time per report window inside every level: requests "
        "completed, TTFT/ITL p50/p90, output tokens/s and requests in flight per window, and a "
        "throughput drift flag (0: no windows; sparkload report --slice-duration overrides it)",
        RESULTS,
        non_negative,
    ),
    Option(
        "--check",
        "",
        "Fail the run on a service level, checked per level at its end with the report's own "
        "definitions, e.g. 'ttft_p90_ms<=1000,failure_ratio<=0.01' ('stream_flags<=0': no "
        "stream flag at all); a level whose streams the path collapsed, wholly or partly, "
        "fails too; a breach prints the level and the figure and exits with code 4",
        RESULTS,
        text,
    ),
    Option(
        "--metadata",
        [],
        "Free-form KEY=VALUE about the run (repeatable), kept in the manifest and shown in the "
        "report",
        RESULTS,
        key_values,
        argparse_extra={"action": "append"},
    ),
    Option(
        "--prometheus-port",
        0,
        "Serve the run's live metrics as Prometheus text on this port of the master (or the "
        "local process) while it runs: level, requests completed, failed and in flight, output "
        "tokens, and TTFT, TTFO, ITL and latency histograms per level (docs/prometheus.md; "
        "0: off)",
        RESULTS,
        port,
    ),
    Option(
        "--prometheus-host",
        "0.0.0.0",
        "The address --prometheus-port listens on (127.0.0.1: this machine only)",
        RESULTS,
        text,
    ),
)


@dataclass(frozen=True)
class ResultsOptions:
    results_dir: Path
    keep_chunk_gaps: bool
    keep_outputs: bool  # every record keeps its reply's text and its prompt's key
    slice_duration: float  # seconds of target time per report window (0: none)
    check: str
    metadata: dict[str, str]
    prometheus_port: int  # 0: no live metrics
    prometheus_host: str
