"""Command line: ``python -m analysis.fidelity.fidelity_cli RUN_DIR [--reference DIR]
[options]`` (also ``sparkload fidelity``).

Holds every level of a run's kept greedy replies (``--keep-outputs``) to a reference's, by
prompt: another run's level, or, without ``--reference``, a level of the same run (its lowest
concurrency unless ``--reference-level``). Prints the Markdown on stdout (and writes it to
``--markdown FILE``, its figures as JSON to ``--json FILE``); exit 0. Bad input (a directory
without records, a run that kept no outputs, no prompt in common) is one line on stderr and
exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis.arguments import Parser
from analysis.errors import guarded, split_prog
from analysis.fidelity import fidelity, fidelity_json, fidelity_markdown

PROG = "python -m analysis.fidelity.fidelity_cli"


def _concurrency(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a concurrency (1 or more): {text!r}")
    return int(text)


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = Parser(
        prog=prog,
        description="Does a variant, a draft length or a concurrency change what the model "
        "says? Each level's kept replies (sparkload run --keep-outputs, at --temperature 0) "
        "against a reference's replies to the same prompts: exact-match share with its 95% "
        "Wilson interval, and where differing replies first part (chunk index and character).",
    )
    parser.add_argument("run", metavar="RUN_DIR", help="the run directory to judge")
    parser.add_argument(
        "--reference",
        metavar="DIR",
        type=Path,
        help="the reference's run directory (default: RUN_DIR itself)",
    )
    parser.add_argument(
        "--reference-level",
        metavar="C",
        type=_concurrency,
        help="the reference's level, by concurrency (default: its lowest)",
    )
    parser.add_argument("--markdown", metavar="FILE", type=Path, help="also write it here")
    parser.add_argument("--json", metavar="FILE", type=Path, help="write the figures as JSON here")
    return parser


def run(args: argparse.Namespace) -> int:
    result = fidelity.fidelity_of(args.run, args.reference, args.reference_level)
    if args.markdown is not None:
        fidelity_markdown.write(result, args.markdown)
    if args.json is not None:
        fidelity_json.write(result, args.json)
    sys.stdout.write(fidelity_markdown.render(result))
    return 0


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """``[--prog NAME] RUN_DIR [options]``; ``--prog`` names the command in messages."""
    prog, args = split_prog(argv, prog)
    return guarded(prog, lambda: run(build_parser(prog).parse_args(args)))


if __name__ == "__main__":
    sys.exit(main())
