"""Running ``sparkload`` as a user does, and writing matrix files, for the matrix tests.

A uniquely named module rather than conftest.py, so test modules can import it without clashing
with other test folders' conftest modules.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.conftest import ROOT

SPARKLOAD = str(Path(sys.executable).with_name("sparkload"))
# Small and fast: two levels, two requests per user, short answers, a fast simulator.
FAST = {"ladder": [1, 2], "requests_per_user": 2, "max_tokens": 32, "report_args": ["--no-charts"]}


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str


def write_matrix(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def sim_target(label: str, variant: str = "fp8", tp: int = 1) -> dict:
    return {
        "label": label,
        "variant": variant,
        "tp": tp,
        "simulator": {"profile": variant, "time_scale": 40},
    }


def run_sparkload(*args: str, timeout: float = 120) -> Finished:
    proc = subprocess.run(
        [SPARKLOAD, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    return Finished(proc.returncode, proc.stdout, proc.stderr)


def default_sigint() -> None:
    """Ctrl-C's default action in a child, whatever this suite inherited: a background job
    (``nohup bash .ci/run &``) starts with SIGINT ignored, and an ignored signal stays ignored
    across exec, so a matrix would never see the signal a test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_dirs(results: Path) -> list[Path]:
    return sorted(p.parent for p in results.glob("*/manifest.json"))


def summary(results: Path) -> dict[str, dict[str, str]]:
    """matrix-summary.txt as {target label: {column: cell}}, cut at the header's columns."""
    lines = (results / "matrix-summary.txt").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("target "))
    header = lines[start]
    names = header.split("  ")
    names = [n.strip() for n in names if n.strip()]
    starts = [header.index(name) for name in names]
    bounds = list(zip(starts, starts[1:] + [None], strict=False))
    return {
        line[: starts[1]].strip(): {
            n: line[a:b].strip() for n, (a, b) in zip(names, bounds, strict=False)
        }
        for line in lines[start + 1 :]
        if line.strip()
    }
