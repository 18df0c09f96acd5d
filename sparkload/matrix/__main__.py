"""``sparkload matrix MATRIX.yaml``: run every target of a matrix file, then the combined report.

Exit codes: 0 when every target ran to completion (no failed request) and the report was
written; 1 when a target was skipped or failed, or some requests failed; 2 for a bad matrix file
(one line on stderr, nothing run); 130 after Ctrl-C (the summary and report are still written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sparkload.matrix import runner, spec
from sparkload.records import EXIT_BAD_INPUT


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparkload matrix",
        description="Run the concurrency ladder against every target of a matrix file (variants, "
        "TP1/TP2/TP4 clusters, simulators), one after another, each into its own run directory, "
        "then write one combined report. See examples/matrix-*.yaml.",
    )
    parser.add_argument("matrix", type=Path, metavar="MATRIX.yaml", help="the matrix file")
    parser.add_argument(
        "--results-dir",
        type=Path,
        metavar="DIR",
        help="where the runs and the report go (default: the file's results_dir, "
        "else results/matrix-<UTC timestamp>)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        matrix = spec.load(args.matrix)
    except spec.MatrixError as exc:
        print(f"sparkload matrix: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    results_dir = args.results_dir or matrix.results_dir or runner.default_results_dir()
    return run(matrix, results_dir)


def run(matrix: spec.Matrix, results_dir: Path) -> int:
    """Run a validated matrix (also the demo's entry) and return the exit code."""
    try:
        result = runner.run_matrix(matrix, results_dir, say=lambda line: print(line, flush=True))
    except OSError as exc:  # e.g. the results directory cannot be created
        print(
            f"sparkload matrix: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:  # between targets or while the report is written
        print("sparkload matrix: interrupted", file=sys.stderr)
        return runner.EXIT_INTERRUPTED
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
