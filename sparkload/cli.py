"""The ``sparkload`` command: one entry point for the simulator, the report, matrices and the demo.

The load itself runs through Locust (``locust -f locustfiles/chat.py``); this command gathers
what is not Locust. Each subcommand owns its options (``sparkload SUBCOMMAND --help``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

USAGE = """usage: sparkload COMMAND [options]

commands:
  sim      serve the built-in DGX Spark simulator (an OpenAI-compatible vLLM look-alike)
  report   turn results directories into tables, charts and report.md
  matrix   run the ladder against every target of a matrix file, then one combined report
  demo     run the five quantization variants on the simulator and write the full report

The load test itself: locust -f locustfiles/chat.py --headless   (see README.md)
"""


def _sim(argv: list[str]) -> int:
    from sparkload.sim.__main__ import main

    return main(argv)


def _report(argv: list[str]) -> int:
    from sparkload.matrix.runner import report_command

    return subprocess.run(report_command(argv), check=False).returncode


def _matrix(argv: list[str]) -> int:
    from sparkload.matrix.__main__ import main

    return main(argv)


def _demo(argv: list[str]) -> int:
    from sparkload.demo import main

    return main(argv)


COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "sim": _sim,
    "report": _report,
    "matrix": _matrix,
    "demo": _demo,
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    command = COMMANDS.get(args[0])
    if command is None:
        sys.stderr.write(
            f"sparkload: error: unknown command {args[0]!r} (choose from {', '.join(COMMANDS)})\n"
        )
        return 2
    return command(args[1:])


if __name__ == "__main__":
    sys.exit(main())
