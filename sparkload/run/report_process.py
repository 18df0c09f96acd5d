"""The analysis as a child process: how the load side asks for a report or a service-level check.

The load side never imports ``analysis``; the two meet in results directories. ``sparkload
report``, the matrix's combined report and ``--check`` all run ``python -m analysis``;
``sparkload compare`` runs ``python -m analysis.compare.compare_cli``.
"""

from __future__ import annotations

import json
import subprocess
import sys

from sparkload.records import ProbeVerdict

# -P: the working directory is not put first on the import path, so a user's own ``analysis/``
# folder where ``sparkload report`` is started cannot stand in for the installed package.
_PYTHON = [sys.executable, "-P", "-m"]


def report_command(args: list[str]) -> list[str]:
    """``sparkload report ARGS`` (the analysis package's own entry point)."""
    return [*_PYTHON, "analysis", "--prog", "sparkload report", *args]


def compare_command(args: list[str]) -> list[str]:
    """``sparkload compare ARGS``: a run held to a baseline run (``analysis.compare.compare``)."""
    return [*_PYTHON, "analysis.compare.compare_cli", "--prog", "sparkload compare", *args]


def fidelity_command(args: list[str]) -> list[str]:
    """``sparkload fidelity ARGS``: a run's kept outputs held to a reference's
    (``analysis.fidelity.fidelity``)."""
    return [*_PYTHON, "analysis.fidelity.fidelity_cli", "--prog", "sparkload fidelity", *args]


def check_options(args: list[str]) -> str | None:
    """None when the report accepts ``args`` (e.g. ``--slo ...``), else its one-line reason."""
    check = subprocess.run(
        report_command(["--check-options", *args]),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if check.returncode == 0:
        return None
    lines = check.stderr.strip().splitlines()
    problem = lines[-1] if lines else "rejected"
    return problem.split(": error: ", 1)[-1].removesuffix(" (see --help)")


def check_levels(spec: str, run_dir: str) -> tuple[int, str]:
    """Evaluate service levels on a finished run with the report's own definitions: the
    analysis's exit code (0 all hold, ``EXIT_CHECK_FAILED`` a breach) and what it printed."""
    result = subprocess.run(
        report_command(["--check", spec, "--quiet", run_dir]),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return result.returncode, (result.stdout + result.stderr).strip()


def judge_level(specs: list[str], run_dir: str, index: int) -> list[ProbeVerdict]:
    """One level of a run judged as ``--check`` judges it, under each of ``specs`` (the capacity
    searches' probe; one set of bounds per --tier): the analysis's verdicts, one JSON line each,
    from one child process; ValueError with its words if it could not judge the level (or what
    it printed is not one verdict per set of bounds)."""
    checks = [arg for spec in specs for arg in ("--check", spec)]
    result = subprocess.run(
        report_command([*checks, "--check-level", str(index), "--quiet", run_dir]),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip().splitlines()
        raise ValueError(said[-1] if said else f"the analysis exited with {result.returncode}")
    verdicts = [ProbeVerdict.from_dict(json.loads(line)) for line in result.stdout.splitlines()]
    if len(verdicts) != len(specs):
        raise ValueError(f"{len(verdicts)} verdicts for {len(specs)} sets of bounds")
    return verdicts
