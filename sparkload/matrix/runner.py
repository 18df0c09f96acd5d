"""Run a matrix: each target in turn as its own Locust run, then one combined report.

Each target runs as the command a user would type (printed first, API key redacted), so a
target that misbehaves can be rerun by hand with the same line. Its whole output goes to
``logs/<label>.log``; the console gets sparkload's own lines (progress, the per-level table,
errors). A target that cannot be deployed, never gets healthy or writes no complete run is
reported in the summary and skipped; the others still run. A target's teardown command runs
after it whatever happened, Ctrl-C included. The results directory::

    <results_dir>/
      matrix.yaml            the matrix as run
      matrix-summary.txt     one line per target: status, run directory, reason
      logs/<label>.log       each target's deploy, health, Locust and teardown output
      <UTC timestamp>-<label>/   one run directory per target (manifest.json, requests.parquet)
      report/                the combined report over all of them (report.md, summary.csv, ...)
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from sparkload.matrix import health, process
from sparkload.matrix.spec import Matrix, Target
from sparkload.paths import LOCUSTFILE
from sparkload.records import (
    EXIT_INTERRUPTED,
    MANIFEST_FILE,
    STATUS_COMPLETE,
    Manifest,
    read_manifest,
)
from sparkload.redact import redacted_command
from sparkload.run.report_process import report_command

SUMMARY_FILE = "matrix-summary.txt"
MATRIX_FILE = "matrix.yaml"
LOGS_FOLDER = "logs"
REPORT_FOLDER = "report"

COMPLETE = "complete"  # the run finished and every request succeeded
ERRORS = "errors"  # the run finished; some requests failed (they are in the report)
SKIPPED = "skipped"  # deploy or health failed: nothing was run
FAILED = "failed"  # the run did not finish (bad option, unreachable endpoint, crash)
STOPPED = "stopped"  # Ctrl-C
NOT_RUN = "not run"  # after a Ctrl-C

_LOG_LINE = re.compile(r"^\[[^\]]*\] [^/]*/(?P<level>[A-Z]+)/(?P<logger>[\w.]+): (?P<message>.*)$")
_TABLE_START = "sparkload per-level results"
_RESULTS_LINE = "results: "
_ERROR_LINE = "sparkload: error: "


@dataclass
class Outcome:
    target: Target
    status: str
    run_dirs: tuple[Path, ...] = ()  # every run the target wrote (--repeat: one per repetition)
    reason: str = ""
    seconds: float = 0.0
    teardown_problem: str = ""  # the teardown command failed: the next target may find it up

    @property
    def clean(self) -> bool:
        """Complete, and torn down if it had a teardown."""
        return self.status == COMPLETE and not self.teardown_problem

    @property
    def run_dir(self) -> Path | None:
        return self.run_dirs[-1] if self.run_dirs else None


@dataclass
class MatrixResult:
    results_dir: Path
    outcomes: list[Outcome] = field(default_factory=list)
    report: Path | None = None
    interrupted: bool = False

    @property
    def exit_code(self) -> int:
        """0 only when every target ran to completion without failed requests, was torn down
        and the report was written; 130 after Ctrl-C; else 1."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        all_clean = all(o.clean for o in self.outcomes)
        return 0 if all_clean and self.report is not None else 1


def default_results_dir(prefix: str = "matrix") -> Path:
    return Path("results") / f"{prefix}-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}"


def locust_executable() -> list[str]:
    """The ``locust`` beside this Python (the venv's), else ``python -m locust``."""
    script = Path(sys.executable).with_name("locust")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "locust"]


def locust_command(matrix: Matrix, target: Target, results_dir: Path) -> list[str]:
    """The headless Locust run of one target, as a user would type it."""
    command = [
        *locust_executable(),
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "--label",
        target.label,
        "--variant",
        target.variant,
        "--tp",
        str(target.tp),
        "--nodes",
        str(target.nodes),
        *matrix.run_args(target),
    ]
    if target.simulator is not None:
        command += target.simulator.args()
    elif len(target.endpoints) == 1:
        command += ["-H", target.endpoints[0]]
    else:
        command += ["--endpoints", ",".join(target.endpoints)]
    return [*command, "--results-dir", str(results_dir), *matrix.locust_args, *target.locust_args]


def printable(command: list[str]) -> str:
    """The command as one shell line, with the value of any secret option replaced."""
    return shlex.join(redacted_command(command))


class _ChildOutput:
    """Every line to the log; sparkload's own lines and errors to the console as well."""

    def __init__(self, log: TextIO, say: Callable[[str], None]) -> None:
        self.log, self.say = log, say
        self.in_table = False
        self.last_error = ""

    def __call__(self, line: str) -> None:
        self.log.write(line + "\n")
        self.log.flush()
        match = _LOG_LINE.match(line)
        if match:
            level, logger, message = match.group("level", "logger", "message")
            if level in ("ERROR", "CRITICAL"):
                self.last_error = message.removeprefix("sparkload: ")
            if logger.startswith("sparkload") or level in ("WARNING", "ERROR", "CRITICAL"):
                self.say("    " + message)
            return
        if line.startswith(_ERROR_LINE):  # bad input: one line, then exit code 2
            self.last_error = line.removeprefix(_ERROR_LINE)
            self.say("    " + line)
        if line.startswith(_TABLE_START):
            self.in_table = True
        if self.in_table:
            self.say("    " + line)
            self.in_table = not line.startswith(_RESULTS_LINE)


class _CommandOutput:
    """Deploy and health command output: to the log, and (deploy) indented on the console."""

    def __init__(self, log: TextIO, say: Callable[[str], None] | None) -> None:
        self.log, self.say = log, say

    def __call__(self, line: str) -> None:
        self.log.write(line + "\n")
        self.log.flush()
        if self.say is not None:
            self.say("    | " + line)


def run_matrix(
    matrix: Matrix, results_dir: Path, say: Callable[[str], None] = print
) -> MatrixResult:
    """Every target in turn, the summary, then the combined report over the runs written."""
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / LOGS_FOLDER).mkdir(exist_ok=True)
    if matrix.text:
        (results_dir / MATRIX_FILE).write_text(matrix.text, encoding="utf-8")
    result = MatrixResult(results_dir)
    total = len(matrix.targets)
    say(f"sparkload matrix {matrix.source}: {total} target(s), results in {results_dir}")
    if matrix.note:
        say(matrix.note)
    for index, target in enumerate(matrix.targets, start=1):
        if result.interrupted:
            result.outcomes.append(Outcome(target, NOT_RUN, reason="after Ctrl-C"))
            continue
        outcome = run_target(
            matrix, target, f"target {index}/{total} {target.label}", results_dir, say
        )
        result.outcomes.append(outcome)
        result.interrupted = outcome.status == STOPPED
    summary = summary_table(result.outcomes)
    (results_dir / SUMMARY_FILE).write_text(
        (matrix.note + "\n\n" if matrix.note else "") + summary + "\n", encoding="utf-8"
    )
    say("")
    say(f"matrix summary ({results_dir / SUMMARY_FILE}):")
    say(summary)
    run_dirs = [run_dir for o in result.outcomes for run_dir in o.run_dirs]
    if run_dirs:
        say(f"building the combined report over {len(run_dirs)} run(s)…")
        result.report = build_report(run_dirs, results_dir / REPORT_FOLDER, matrix.report_args)
    if result.report is not None:
        say(f"report: {result.report}")
    else:
        say(
            "no report: "
            + ("no target wrote a run" if not run_dirs else "the report failed (see above)")
        )
    if matrix.note:
        say(matrix.note)
    return result


def run_target(
    matrix: Matrix, target: Target, head: str, results_dir: Path, say: Callable[[str], None]
) -> Outcome:
    """Deploy, wait for health, run the ladder, tear down; a failure of any becomes the
    outcome, so the matrix goes on."""
    started = time.monotonic()
    before = _run_dirs(results_dir)
    with (results_dir / LOGS_FOLDER / f"{target.label}.log").open("w", encoding="utf-8") as log:
        try:
            outcome = _prepare_and_run(matrix, target, head, results_dir, before, log, say)
        except KeyboardInterrupt:
            say(f"{head}: stopped (Ctrl-C)")
            outcome = Outcome(target, STOPPED, _new_run_dirs(results_dir, target, before), "Ctrl-C")
        if target.teardown:
            _tear_down(outcome, head, log, say)
    outcome.seconds = time.monotonic() - started
    if outcome.status not in (COMPLETE, STOPPED):
        say(f"{head}: {outcome.status}: {outcome.reason}")
    if outcome.teardown_problem:
        say(f"{head}: {outcome.teardown_problem}")
    return outcome


def _tear_down(outcome: Outcome, head: str, log: TextIO, say: Callable[[str], None]) -> None:
    """The target's teardown command into ``outcome``; a Ctrl-C during it stops the matrix."""
    say(f"{head}: tearing down: {outcome.target.teardown}")
    try:
        outcome.teardown_problem = health.teardown(outcome.target, _CommandOutput(log, say))
    except KeyboardInterrupt:
        say(f"{head}: teardown stopped (Ctrl-C)")
        outcome.teardown_problem = "teardown command stopped (Ctrl-C)"
        outcome.status = STOPPED


def _prepare_and_run(
    matrix: Matrix,
    target: Target,
    head: str,
    results_dir: Path,
    before: set[Path],
    log: TextIO,
    say: Callable[[str], None],
) -> Outcome:
    try:
        if target.deploy:
            say(f"{head}: deploying: {target.deploy}")
            health.deploy(target, _CommandOutput(log, say))
        if target.endpoints:
            say(f"{head}: waiting until healthy (up to {target.health_timeout:g} s)…")
            health.wait_healthy(target, _CommandOutput(log, None))  # repeats: log only
    except health.NotReady as exc:
        return Outcome(target, SKIPPED, reason=str(exc))
    command = locust_command(matrix, target, results_dir)
    say(f"{head}: running…")
    say("    $ " + printable(command))
    log.write("$ " + printable(command) + "\n")
    output = _ChildOutput(log, say)
    finished = process.run(command, output)
    run_dirs = _new_run_dirs(results_dir, target, before)
    return _judge(target, finished, run_dirs, output.last_error, results_dir)


def _judge(
    target: Target,
    finished: process.Finished,
    run_dirs: tuple[Path, ...],
    last_error: str,
    results_dir: Path,
) -> Outcome:
    """The outcome from the runs' manifests (every repetition must be complete) and the exit."""
    log = results_dir / LOGS_FOLDER / f"{target.label}.log"
    why = last_error or next((line.strip() for line in reversed(finished.tail) if line.strip()), "")
    if not run_dirs:
        return Outcome(
            target, FAILED, (), f"no run written (exit {finished.returncode}): {why} [log: {log}]"
        )
    for run_dir in run_dirs:
        manifest = _manifest(run_dir)
        if manifest is None or manifest.status != STATUS_COMPLETE:
            status = manifest.status if manifest is not None else "unreadable manifest"
            because = f": {manifest.abort_reason}" if manifest and manifest.abort_reason else ""
            return Outcome(
                target,
                FAILED,
                run_dirs,
                f"run ended {status!r}{because} (exit {finished.returncode}) [log: {log}]",
            )
    if finished.returncode != 0:
        return Outcome(
            target, ERRORS, run_dirs, f"some requests failed (exit {finished.returncode})"
        )
    return Outcome(target, COMPLETE, run_dirs)


def _run_dirs(results_dir: Path) -> set[Path]:
    return {p.parent for p in results_dir.glob(f"*/{MANIFEST_FILE}")}


def _new_run_dirs(results_dir: Path, target: Target, before: set[Path]) -> tuple[Path, ...]:
    """The run directories this target's Locust run created (new since ``before``, its label;
    several with ``repeat``), oldest first."""
    return tuple(p for p in sorted(_run_dirs(results_dir) - before) if _label(p) == target.label)


def _manifest(run_dir: Path) -> Manifest | None:
    try:
        return read_manifest(run_dir)
    except (OSError, ValueError, TypeError):
        return None


def _label(run_dir: Path) -> str | None:
    manifest = _manifest(run_dir)
    return manifest.label if manifest is not None else None


def summary_table(outcomes: list[Outcome]) -> str:
    rows = [("target", "variant", "tp", "status", "time", "run directory", "reason")]
    for o in outcomes:
        minutes, seconds = divmod(round(o.seconds), 60)
        rows.append(
            (
                o.target.label,
                o.target.variant,
                str(o.target.tp),
                o.status,
                f"{minutes}:{seconds:02d}" if o.seconds else "-",
                o.run_dir.name if o.run_dir else "-",
                "; ".join(part for part in (o.reason, o.teardown_problem) if part),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        (
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
            + "  "
            + row[-1]
        ).rstrip()
        for row in rows
    )


def build_report(run_dirs: list[Path], out: Path, report_args: tuple[str, ...]) -> Path | None:
    """The combined report (``sparkload report RUN_DIR... --out DIR``); None when it failed.

    The analysis runs as its own process: the load side and the analysis meet only in the
    results directories."""
    command = report_command([*map(str, run_dirs), "--out", str(out), *report_args])
    code = subprocess.run(command, stdin=subprocess.DEVNULL, check=False).returncode
    return out / "report.md" if code == 0 else None
