"""The ``sparkload`` command: the main job, the simulator, the report, matrices and the demo.

``sparkload run`` is ``locust -f <sparkload's locustfile>``: the same run, with every sparkload
option in its ``--help``. Each other subcommand owns its options (``sparkload COMMAND --help``).
Bad input anywhere: one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable

import sparkload
from sparkload.records import EXIT_BAD_INPUT

USAGE = """usage: sparkload COMMAND [options]

commands:
  run         the main job: the concurrency ladder against a server, or the built-in
              simulator when no --host is given (locust -f <sparkload's locustfile> [options])
  sim         serve the built-in DGX Spark simulator (an OpenAI-compatible vLLM look-alike)
  report      turn results directories into tables, charts and report.md
  compare     hold a run to a baseline run, level by level, with both runs' noise: a
              Markdown table of changes and verdicts; exit 4 when a figure got worse
  fidelity    does a variant or a concurrency change what the model says: a run's kept
              greedy replies (--keep-outputs) against a reference's, per level
  export      a run directory's records in another format: --jsonl RUN_DIR [--out FILE]
              writes them as JSON lines (earlier versions' requests.jsonl)
  quality     an accuracy probe alone: a dataset (GSM8K, multiple choice, generic) or a
              built-in probe (arithmetic, retrieval) sent once, graded, with its interval
  matrix      run the ladder against every target of a matrix file, then one combined report
  demo        run the quantization report's variants on the simulator and write the full report
  node-exporter
              serve this machine's GPU power, clocks and temperature (nvidia-smi) and its
              CPU and memory as Prometheus text, for run --scrape (machines without DCGM)
  locustfile  print the path of sparkload's locustfile (for locust -f)

sparkload --version · sparkload COMMAND --help
"""


def _as_sparkload_run(parser: argparse.ArgumentParser) -> None:
    """Locust's parser names itself after ``sys.argv[0]`` ("locust: error: ..."); under
    ``sparkload run`` its help and its errors name the command the user typed."""
    parser.prog = "sparkload run"


def _run(argv: list[str]) -> int:
    from locust import events  # gevent's patches first, as in every Locust process

    from sparkload.paths import LOCUSTFILE
    from sparkload.plugin.options import register

    events.init_command_line_parser.add_listener(_as_sparkload_run)
    if {"-h", "--help"} & set(argv):
        from locust.argument_parser import get_parser

        events.init_command_line_parser.add_listener(register)
        parser = get_parser()
        parser.usage = "sparkload run [options]   (= locust -f <sparkload's locustfile> [options])"
        parser.print_help()
        return 0
    from locust.main import main as locust_main

    sys.argv = ["locust", "-f", str(LOCUSTFILE), *argv]
    try:
        locust_main()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def _node_exporter(argv: list[str]) -> int:
    from sparkload.node_exporter import main

    return main(argv)


def _locustfile(argv: list[str]) -> int:
    from sparkload.paths import LOCUSTFILE

    if argv:
        sys.stderr.write("sparkload locustfile: error: takes no options\n")
        return EXIT_BAD_INPUT
    print(LOCUSTFILE)
    return 0


def _sim(argv: list[str]) -> int:
    from sparkload.sim.__main__ import main

    return main(argv)


def _report(argv: list[str]) -> int:
    from sparkload.run.report_process import report_command

    return subprocess.run(report_command(argv), check=False).returncode


def _compare(argv: list[str]) -> int:
    from sparkload.run.report_process import compare_command

    return subprocess.run(compare_command(argv), check=False).returncode


def _fidelity(argv: list[str]) -> int:
    from sparkload.run.report_process import fidelity_command

    return subprocess.run(fidelity_command(argv), check=False).returncode


def _export(argv: list[str]) -> int:
    from sparkload.run.export import main

    return main(argv)


def _quality(argv: list[str]) -> int:
    from gevent import monkey

    monkey.patch_all()  # before requests and ssl are imported, as in every Locust process
    from sparkload.run.quality import main

    return main(argv)


def _matrix(argv: list[str]) -> int:
    from sparkload.matrix.__main__ import main

    return main(argv)


def _demo(argv: list[str]) -> int:
    from sparkload.demo import main

    return main(argv)


COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "run": _run,
    "sim": _sim,
    "report": _report,
    "compare": _compare,
    "fidelity": _fidelity,
    "export": _export,
    "quality": _quality,
    "matrix": _matrix,
    "demo": _demo,
    "node-exporter": _node_exporter,
    "locustfile": _locustfile,
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if args else EXIT_BAD_INPUT
    if args[0] in ("-V", "--version"):
        from importlib.metadata import version

        print(f"sparkload {sparkload.__version__} (locust {version('locust')})")
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        sys.stderr.write(
            f"sparkload: error: unknown command {args[0]!r} (choose from {', '.join(COMMANDS)})\n"
        )
        return EXIT_BAD_INPUT
    return command(args[1:])


if __name__ == "__main__":
    sys.exit(main())
