"""Command line: ``python -m analysis.compare.compare_cli BASELINE_DIR RUN_DIR [options]`` (also
``sparkload compare``).

Prints the comparison's Markdown table on stdout (and writes it to ``--markdown FILE``, its
cells as JSON to ``--json FILE``) and exits ``EXIT_CHECK_FAILED`` (4) when any cell is worse,
0 otherwise: a CI job fails on a regression as it fails on ``--check``. Bad input (a missing
directory, one without records, no level in common, a bad ``--tolerance``, runs whose request
and workload settings differ without ``--allow-different-settings``) is one line on stderr and
exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.arguments import Parser, non_negative
from analysis.compare import compare, compare_json, compare_markdown, tolerances
from analysis.errors import guarded, split_prog
from analysis.figures import percentiles
from analysis.figures.metrics import Settings
from sparkload.records import EXIT_CHECK_FAILED

PROG = "python -m analysis.compare.compare_cli"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = Parser(
        prog=prog,
        description="Compare a run with a baseline run, level by level: each figure's change, "
        "its 90% interval from both runs' requests, and a verdict (better, worse, within "
        f"noise). Exit {EXIT_CHECK_FAILED} when any figure is worse beyond its tolerance and "
        "the noise, 0 otherwise.",
        epilog=f"Figures: {', '.join(tolerances.BY_NAME)} (ttfo and answered_share where either "
        "run has reasoning or tool calls). Default tolerances: latencies +10%, throughputs "
        "-10%, failure_ratio +1% and answered_share -1% (percentage points). Runs whose request "
        "or workload settings differ (model, API, max_tokens, sampling, thinking, extra body, "
        "workload, prompts, seed, simulator) exit 2 naming each difference. See "
        "docs/compare.md.",
    )
    parser.add_argument("baseline", metavar="BASELINE_DIR", help="the baseline's run directory")
    parser.add_argument("run", metavar="RUN_DIR", help="the run directory to judge")
    parser.add_argument(
        "--tolerance",
        metavar="SPEC",
        help="e.g. 'ttft_p90_ms:+10%%,output_tok_s:-5%%': + higher is worse, - lower is worse "
        "(no sign: the figure's own); a family (ttft, itl, latency, tps, ttfo) sets all its "
        "figures",
    )
    parser.add_argument(
        "--allow-different-settings",
        action="store_true",
        help="compare runs whose request or workload settings differ (each difference is "
        "listed above the table); without it they exit 2",
    )
    parser.add_argument("--markdown", metavar="FILE", type=Path, help="also write the table here")
    parser.add_argument("--json", metavar="FILE", type=Path, help="write the cells as JSON here")
    parser.add_argument(
        "--bootstrap",
        type=non_negative(int),
        default=1000,
        metavar="N",
        help="bootstrap draws per run and figure (default 1000; 0: no intervals, never worse)",
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument(
        "--percentile-method",
        choices=percentiles.METHODS,
        default=percentiles.LINEAR,
        help="as the report's (default linear)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    limits = tolerances.parse(args.tolerance)  # before any run is read: a typo fails fast
    settings = Settings(args.percentile_method, False, args.bootstrap, args.seed)
    baseline, other = compare.load_pair(args.baseline, args.run)
    result = compare.compare(
        baseline,
        other,
        limits,
        settings,
        (args.baseline, args.run),
        allow_different_settings=args.allow_different_settings,
    )
    text = compare_markdown.render(result)
    if args.markdown is not None:
        compare_markdown.write(result, args.markdown)
    if args.json is not None:
        compare_json.write(result, args.json)
    sys.stdout.write(text)
    return EXIT_CHECK_FAILED if result.worse else 0


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """``[--prog NAME] BASELINE_DIR RUN_DIR [options]``; ``--prog`` names the command in
    messages (``sparkload compare`` runs this module)."""
    prog, args = split_prog(argv, prog)
    return guarded(prog, lambda: run(build_parser(prog).parse_args(args)))


if __name__ == "__main__":
    sys.exit(main())
