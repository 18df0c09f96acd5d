"""``sparkload demo``: the five variants of the quantization report on the simulator, one report.

The quickest way for a newcomer to see what the suite does: five ladder runs, their per-level
tables on the console, then the full report (per-variant tables, quantization and MTP
comparisons, concurrency and scaling tables, charts). It is a generated matrix run by the same
runner as ``sparkload matrix``; the generated file is kept beside the results as ``matrix.yaml``,
a starting point for one's own matrix. To finish in a few minutes on a laptop it runs in
simulated time and with fewer requests per user than the report's 10, and says so.

``sparkload demo --notes`` runs the method of the single-Spark notes instead (Qwen3.8-27B: three
builds, DSpark k=7/14, two batch budgets, fresh/edit/prefill workloads, distinct vs identical
prompts, FP8 with MTP and without speculation): the targets of
``examples/matrix-single-spark-notes.yaml``, generated here (a test holds the two equal), and a
report whose "Single-Spark notes" section holds the notes' tables. It names the report's path
first and last, so the one line to open is on screen at both ends of a few minutes of output.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from sparkload.matrix import runner, spec
from sparkload.matrix.__main__ import run

VARIANTS = ("fp8", "fp8-mtp", "awq-mtp", "nvfp4", "nvfp4-mtp")
LADDER = [1, 2, 4, 8, 16]
REQUESTS_PER_USER = 3
QUICK_LADDER = [1, 2]
QUICK_REQUESTS_PER_USER = 1
DEFAULT_TIME_SCALE = 20.0

# The notes' matrix (examples/matrix-single-spark-notes.yaml): 50x keeps every figure within a few
# % of a 10x run while the whole matrix takes a few minutes on 2 cores.
NOTES_TIME_SCALE = 50.0
NOTES_REQUESTS_PER_USER = 2
NOTES_LADDER = [1]
FLEET_TOKENS = 1500  # the notes' concurrency runs: 1,500 output tokens per stream
PREFILL_SIZES = [10260, 42584, 136624]
WIDE = 16384
NOTES_NOTE = (
    "single-Spark notes on the simulator (time scale {scale:g}, {per_user} request(s) per user"
    "{quick}): the figures show the method, they measure no real Spark"
)
# label, build, spec, budget (None: vLLM's default), workload, further run options
NotesTarget = tuple[str, str, str, int | None, str, dict]
NOTES_TARGETS: tuple[NotesTarget, ...] = (
    # 1. quantization gain, drafting held constant: two consecutive runs each
    *(
        (f"{build}-k7-{workload}", build, "dspark:7", None, workload, {"repeat": 2})
        for build in ("fp8", "int4", "nvfp4")
        for workload in ("fresh", "edit")
    ),
    # 2. draft depth (k=14 needs the 16384 budget), and k=7 at 16384 single stream (notes 3a)
    ("nvfp4-k14-fresh", "nvfp4", "dspark:14", WIDE, "fresh", {"repeat": 2}),
    ("nvfp4-k14-edit", "nvfp4", "dspark:14", WIDE, "edit", {"repeat": 2}),
    ("nvfp4-k7-16k-edit", "nvfp4", "dspark:7", WIDE, "edit", {"repeat": 2}),
    # 3. batch-budget control and concurrency: 1,500 tokens per stream
    ("nvfp4-k7-fleet", "nvfp4", "dspark:7", None, "edit", {"ladder": [1, 4, 8]}),
    (
        "nvfp4-k7-fleet-same",
        "nvfp4",
        "dspark:7",
        None,
        "edit",
        {"ladder": [1, 4, 8], "identical_prompts": True},
    ),
    ("nvfp4-k7-16k-fleet", "nvfp4", "dspark:7", WIDE, "edit", {"ladder": [1, 4, 8, 16]}),
    ("nvfp4-k14-16k-fleet", "nvfp4", "dspark:14", WIDE, "edit", {"ladder": [1, 4, 8]}),
    ("int4-k7-16k-fleet", "int4", "dspark:7", WIDE, "edit", {"ladder": [1, 4, 8, 16]}),
    ("fp8-k7-16k-fleet", "fp8", "dspark:7", WIDE, "edit", {"ladder": [1, 4, 8, 16]}),
    # 4. prefill probe
    *(
        (f"{build}-prefill", build, "dspark:7", WIDE, "prefill", {"prefill_sizes": PREFILL_SIZES})
        for build in ("fp8", "int4", "nvfp4")
    ),
    # 5. the speed-up ladder from stock FP8
    ("fp8-stock", "fp8", "none", None, "edit", {}),
    *((f"fp8-mtp{k}", "fp8", f"mtp:{k}", None, "edit", {}) for k in (3, 8, 15)),
)
QUICK_NOTES_TARGETS = ("fp8-k7-fresh", "fp8-k7-edit", "nvfp4-k7-fresh", "nvfp4-k7-edit")
QUICK_NOTES_REQUESTS_PER_USER = 1


def matrix_data(time_scale: float, quick: bool) -> dict:
    """The demo as matrix-file data: one TP1 simulator target per variant."""
    ladder, per_user = (
        (QUICK_LADDER, QUICK_REQUESTS_PER_USER) if quick else (LADDER, REQUESTS_PER_USER)
    )
    note = (
        f"demo: simulated time ({time_scale:g}x faster than real time), {per_user} request(s) "
        f"per user instead of the report's 10"
        + (", ladder 1,2 (--quick)" if quick else "")
        + ": the figures show the suite at work, they measure no real Spark"
    )
    return {
        "ladder": ladder,
        "requests_per_user": per_user,
        "note": note,
        "targets": [
            {
                "variant": variant,
                "tp": 1,
                "simulator": {"profile": variant, "time_scale": time_scale},
            }
            for variant in VARIANTS
        ],
    }


def notes_target(target: NotesTarget, time_scale: float) -> dict:
    """One target of the notes' matrix: the simulator's options and the same as metadata, so a
    real Spark's run (``endpoints:`` instead of ``simulator:``) files alike in the report."""
    label, build, spec, budget, workload, options = target
    stock = spec == "none"
    simulator: dict = {"profile": f"qwen3.8-{build}", "spec": spec}
    if budget is not None:
        simulator["max_num_batched_tokens"] = budget
    if stock:
        simulator["no_prefix_caching"] = True
    simulator["time_scale"] = time_scale
    run_options = dict(options)
    if "ladder" in options:
        run_options = {"max_tokens": FLEET_TOKENS, **run_options}
    return {
        "label": label,
        "variant": f"qwen3.8-{build}",
        "simulator": simulator,
        "workload": workload,
        **run_options,
        "metadata": {
            "build": build,
            "spec": spec,
            "budget": str(budget) if budget is not None else "default",
            "prefix_caching": "off" if stock else "on",
        },
    }


def notes_matrix_data(time_scale: float, quick: bool) -> dict:
    """The notes' method as matrix-file data (``--quick``: the quantization gain alone)."""
    per_user = QUICK_NOTES_REQUESTS_PER_USER if quick else NOTES_REQUESTS_PER_USER
    targets = [t for t in NOTES_TARGETS if not quick or t[0] in QUICK_NOTES_TARGETS]
    return {
        "requests_per_user": per_user,
        "ladder": NOTES_LADDER,
        "note": NOTES_NOTE.format(
            scale=time_scale,
            per_user=per_user,
            quick=", quantization gain only (--quick)" if quick else "",
        ),
        "targets": [notes_target(t, time_scale) for t in targets],
    }


def _speed_up(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, not {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparkload demo",
        description=f"Run the {len(VARIANTS)} variants of the quantization report "
        f"({', '.join(VARIANTS)}) "
        "on the built-in simulator and write the full combined report.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="results directory (default: results/demo-<UTC timestamp>)",
    )
    parser.add_argument(
        "--time-scale",
        type=_speed_up,
        metavar="S",
        help=f"simulator speed-up over real time (default {DEFAULT_TIME_SCALE:g}; "
        f"{NOTES_TIME_SCALE:g} with --notes)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"ladder 1,2 and {QUICK_REQUESTS_PER_USER} request per user: about a minute "
        "(with --notes: the quantization gain's targets only)",
    )
    parser.add_argument(
        "--notes",
        action="store_true",
        help="run the single-Spark notes' method instead (Qwen3.8-27B builds, DSpark/MTP, "
        "batch budgets, prefill; examples/matrix-single-spark-notes.yaml): a few minutes",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.notes:
        return run_notes(args.time_scale or NOTES_TIME_SCALE, args.quick, args.out)
    data = matrix_data(args.time_scale or DEFAULT_TIME_SCALE, args.quick)
    return run(_generated(data, "demo"), args.out or runner.default_results_dir("demo"))


def _generated(data: dict, source: str) -> spec.Matrix:
    text = "# generated by sparkload demo; run it again with: sparkload matrix matrix.yaml\n"
    return spec.parse(data, source, text + yaml.safe_dump(data, sort_keys=False))


def run_notes(time_scale: float, quick: bool, out: Path | None) -> int:
    """The notes' matrix, its report's path named first and last."""
    results_dir = out or runner.default_results_dir("demo-notes")
    report = results_dir / runner.REPORT_FOLDER / "report.md"
    print(f"sparkload demo --notes: the report will be {report}", flush=True)
    matrix = _generated(notes_matrix_data(time_scale, quick), "demo --notes")
    code = run(matrix, results_dir)
    print(f"report: {report}" if report.is_file() else f"no report written ({report})", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
