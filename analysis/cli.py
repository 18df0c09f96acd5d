"""Command line: ``python -m analysis RUN_DIR [RUN_DIR ...]`` (also ``sparkload report``).

Bad input — a missing directory, a directory without records, an unreadable --slo, an unknown
option — prints one line on stderr and exits with code 2, never a traceback. Progress goes to
stderr, one line per stage.

``--check BOUNDS`` writes no report: it holds every level to the bounds (the --slo syntax and
definitions) and fails every level whose streams were collapsed on the way (its stream check),
prints one line per breach, or one line saying all hold, on stdout, and exits 0 or
EXIT_CHECK_FAILED. The load side runs it at the end of a run. With ``--check-level INDEX`` it
judges that one level of one run and prints its verdict as one JSON object
(``analysis.figures.probe``), exit 0 whether it meets the bounds or not: the capacity search asks
it after every probe. ``--check`` given several times with ``--check-level`` prints one verdict a
line, one per ``--check`` in order (the load side's ``--tier``: every tier's, from one reading).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

from analysis import report
from analysis.arguments import Parser, non_negative
from analysis.errors import InputError, guarded, split_prog
from analysis.figures import percentiles, probe, slices, slo, sustain, tenants
from analysis.figures.metrics import Settings, summarize
from analysis.outputs.chart_workers import ChartWorkers
from analysis.reading import load
from sparkload.records import CHECK_TENANTS, EXIT_CHECK_FAILED


def build_parser(prog: str = "python -m analysis") -> argparse.ArgumentParser:
    parser = Parser(
        prog=prog,
        description="Turn sparkload results directories into the benchmark report: summary.csv, "
        "report.md, comparison tables (CSV), charts (PNG + interactive HTML) and index.html.",
        epilog="A directory that holds run directories (e.g. results/) stands for all of them. "
        "Runs are grouped by label; variant, tp and nodes from each manifest drive the "
        "comparisons.",
    )
    parser.add_argument(
        "runs", nargs="+", metavar="RUN_DIR", help="results directory (or a folder of them)"
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=Path,
        help="output folder (default: RUN_DIR/report for one run, else <common parent>/report)",
    )
    parser.add_argument(
        "--percentile-method",
        choices=percentiles.METHODS,
        default=percentiles.LINEAR,
        help="linear interpolation (default) or cordatus: the reference tool's "
        "statistics.median and nearest-rank p90",
    )
    parser.add_argument(
        "--itl-null-as-zero",
        action="store_true",
        help="enter ITL 0 for single-token responses, as the reference tool does "
        "(default: left out)",
    )
    parser.add_argument(
        "--slo",
        metavar="BOUNDS",
        help="service level, e.g. 'ttft_p90_ms<=1000,tps_p10>=15,itl_p90_ms<=60': goodput per "
        "level, highest concurrency meeting it, users by Little's law",
    )
    parser.add_argument(
        "--check",
        metavar="BOUNDS",
        action="append",
        help="write no report: hold every level to these bounds (the --slo syntax, plus "
        "failure_ratio and stream_flags) and fail every level whose streams were collapsed "
        "wholly or partly ('tenants': each --tenants class to its own slo), print each "
        f"breach, exit 0 when all hold, {EXIT_CHECK_FAILED} when any breaks; several, with "
        "--check-level only: one verdict per --check",
    )
    parser.add_argument(
        "--check-level",
        type=non_negative(int),
        metavar="INDEX",
        help="with --check and one run: judge only the level of this index (the manifest's) and "
        "print its verdict as JSON (meets, each bound's figure, breaches); exit 0 either way",
    )
    parser.add_argument(
        "--think-time",
        type=non_negative(float),
        default=10.0,
        metavar="SECONDS",
        help="think time Z between a user's requests for the Little's-law user count (default 10)",
    )
    parser.add_argument(
        "--slice-duration",
        type=non_negative(float),
        metavar="SECONDS",
        help="cut every level into windows of this many seconds of the target's time "
        "(simulated time for a simulator run) for the time-slice table, charts and drift flag; "
        "0 = none (default: each run's own --slice-duration, from its manifest)",
    )
    parser.add_argument(
        "--drift-threshold",
        type=non_negative(float),
        default=slices.DEFAULT_DRIFT_THRESHOLD_PCT,
        metavar="PERCENT",
        help="flag a level whose steady windows' output tokens/s fall by more than this share "
        "from the first to the last (default %(default)g)",
    )
    parser.add_argument(
        "--bootstrap",
        type=non_negative(int),
        default=1000,
        metavar="N",
        help="bootstrap resamples for the p50/p90 90%% confidence intervals "
        "(default 1000, 0 = none)",
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--no-charts", action="store_true", help="skip PNG and HTML charts")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def _default_out(runs: list[load.Run]) -> Path:
    if len(runs) == 1:
        return runs[0].path / "report"
    return Path(os.path.commonpath([str(r.path.resolve()) for r in runs])) / "report"


def _progress(quiet: bool):
    started = time.perf_counter()

    def progress(message: str) -> None:
        if not quiet:
            print(
                f"[analysis {time.perf_counter() - started:6.1f}s] {message}",
                file=sys.stderr,
                flush=True,
            )

    return progress


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(args.percentile_method, args.itl_null_as_zero, args.bootstrap, args.seed)


def run(args: argparse.Namespace) -> int:
    if args.check_level is not None and args.check is None:
        raise InputError("--check-level judges a level against --check's bounds: give --check")
    if args.check is not None:
        return check(args)
    progress = _progress(args.quiet)
    bounds = slo.parse(args.slo) if args.slo is not None else None
    settings = _settings(args)
    # the chart workers start before the records are read: see analysis.outputs.chart_workers
    with ChartWorkers() if not args.no_charts else nullcontext() as workers:
        dataset = load.load(args.runs, progress)
        progress(f"loaded {len(dataset.records):,} records from {len(dataset.runs)} run(s)")
        out = args.out or _default_out(dataset.runs)
        slicing = slices.Slicing(args.slice_duration, args.drift_threshold)
        document = report.build(
            dataset,
            settings,
            bounds,
            args.think_time,
            slicing,
            charts_listed=(lambda charts: workers.write(charts, out)) if workers else None,
        )
        progress(f"computed {len(document.summary)} levels and {len(document.tables)} tables")
        report.write(document, out, not args.no_charts, progress, workers)
    print(out / "report.md")
    return 0


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def check(args: argparse.Namespace) -> int:
    """Every bound at every level, with the report's summary and SLO definitions."""
    if args.check == [CHECK_TENANTS]:
        if args.check_level is not None:
            settings = replace(_settings(args), bootstrap_resamples=0)
            dataset = load.load(args.runs, _progress(args.quiet))
            verdict = tenants.level_verdict(dataset, args.check_level, settings)
            print(json.dumps(verdict.to_dict()))
            return 0
        return check_tenants(args)
    if len(args.check) > 1 and args.check_level is None:
        raise InputError("--check: give it once (several only with --check-level)")
    each = [slo.parse(spec, "--check") for spec in args.check]
    # the bounds are on statistics, never on their confidence intervals: no bootstrap
    settings = replace(_settings(args), bootstrap_resamples=0)
    dataset = load.load(args.runs, _progress(args.quiet))
    if args.check_level is not None and sustain.is_sustain_level(dataset, args.check_level):
        dataset = sustain.alone(dataset)  # --sustain's level: judged over its own records
    summary = summarize(dataset, settings)
    if args.check_level is not None:
        for bounds in each:
            levels = slo.evaluate(dataset.records, summary, bounds, settings)
            verdict = probe.level_verdict(dataset, levels, bounds, args.check_level, settings)
            print(json.dumps(verdict.to_dict()))
        return 0
    (bounds,) = each
    levels = slo.evaluate(dataset.records, summary, bounds, settings)
    if levels.empty:
        raise InputError("--check: no level with raw records to check (Locust CSV input)")
    found = [*slo.breaches(levels, bounds), *slo.stream_failures(dataset)]
    for breach in found:
        print(f"check failed: {breach}")
    if not found:
        holds = "holds" if len(bounds) == 1 else "hold"
        print(
            f"check passed: {_counted(len(bounds), 'bound')} {holds} at every level "
            f"({_counted(len(levels), 'level')})"
        )
    return EXIT_CHECK_FAILED if found else 0


def check_tenants(args: argparse.Namespace) -> int:
    """``--check tenants``: every class of a ``--tenants`` run held to its own SLO at every
    level; one line per breach naming the class, then the classes that failed."""
    settings = replace(_settings(args), bootstrap_resamples=0)
    dataset = load.load(args.runs, _progress(args.quiet))
    verdicts = [v for v in tenants.judge(dataset, settings) if v.spec.slo]
    if not verdicts:
        raise InputError("--check tenants: no run with --tenants classes that name an slo")
    found = [f"class {v.spec.name}: {breach}" for v in verdicts for breach in v.breaches]
    found += [str(failure) for failure in slo.stream_failures(dataset)]
    for breach in found:
        print(f"check failed: {breach}")
    failing = list(dict.fromkeys(v.spec.name for v in verdicts if v.breaches))
    if failing:
        print(f"check failed: classes missing their SLO: {', '.join(failing)}")
    elif not found:
        names = ", ".join(dict.fromkeys(v.spec.name for v in verdicts))
        print(f"check passed: every class meets its SLO at every level ({names})")
    return EXIT_CHECK_FAILED if found else 0


def main(argv: list[str] | None = None, prog: str = "python -m analysis") -> int:
    """``[--prog NAME] [--check-options] RUN_DIR... [options]``.

    ``--prog`` names the command in messages (``sparkload report`` runs this module);
    ``--check-options`` only validates the options (a matrix's ``report_args``) and reads no run.
    """
    prog, args = split_prog(argv, prog)
    if args[:1] == ["--check-options"]:
        return guarded(
            prog, lambda: _check_options(build_parser(prog).parse_args(["RUN_DIR", *args[1:]]))
        )
    return guarded(prog, lambda: run(build_parser(prog).parse_args(args)))


def _check_options(parsed: argparse.Namespace) -> int:
    """0 when the bounds parse; InputError otherwise (no run is read)."""
    if parsed.slo is not None:
        slo.parse(parsed.slo)
    for spec in parsed.check or []:
        if spec != CHECK_TENANTS:
            slo.parse(spec, "--check")
    return 0
