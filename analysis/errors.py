"""The one exception the command line turns into "one line on stderr, exit code 2".

The exit codes are the results contract's (``sparkload.records``): the load side runs
``python -m analysis --check ...`` at the end of a run and passes its exit code on.
``guarded`` is that turning, for every command of the analysis.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from sparkload.records import EXIT_BAD_INPUT


class InputError(Exception):
    """Input the user can fix: a missing directory, a run without records, a bad option value."""


def split_prog(argv: list[str] | None, prog: str) -> tuple[str, list[str]]:
    """The command's name and its arguments: a leading ``--prog NAME`` (how ``sparkload
    report`` and its kin name themselves when they run a module) replaces ``prog``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--prog"] and len(args) > 1:
        return args[1], args[2:]
    return prog, args


def guarded(prog: str, body: Callable[[], int]) -> int:
    """``body``'s exit code; an InputError or OSError is one line on stderr and exit 2, never a
    traceback; argparse's exit (``--help``, a bad option) keeps its code."""
    try:
        return body()
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(
            f"{prog}: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except SystemExit as exc:
        return int(exc.code or 0)
