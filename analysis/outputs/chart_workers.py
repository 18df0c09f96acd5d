"""The charts' files (PNG and interactive HTML) written by worker processes, started before the
records are read so that drawing overlaps the parent's computing.

matplotlib costs about 0.2 s of CPU a chart whatever the records' count (31 charts at 1,000,000
records: 6 s) and 0.5 s to import. ``ChartWorkers`` forks ``PROCESSES`` workers when the command
starts, while the parent holds no records (a worker's memory is not the records'); each imports
matplotlib while the parent reads the records, and draws each chart as soon as the report has
listed it, while the parent builds the sections and tables (at 10,000,000 records every chart
is drawn before the tables are). The workers run a little below the parent's priority: two of
them weigh about as much as the parent, so the scheduler leaves the parent, the report's critical
path, a core of its own, yet on a machine busy with other work they are not starved. Where fork
is not available, ``finish`` draws the charts in the parent, one at a time.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from types import TracebackType

from analysis.outputs import charts_html
from analysis.views.charts import Chart

PROCESSES = 2  # issue 47's machine has two cores; more would not pay for their memory
NICENESS = 3  # a weight of 526 to the parent's 1024 (Linux's CFS)


def _start_worker() -> None:
    os.nice(NICENESS)
    from analysis.outputs import charts_png  # noqa: F401  matplotlib, while the records are read


def _nothing() -> None:
    """A first task: forked workers all start at the first one."""


def write_chart(chart: Chart, out_dir: Path) -> None:
    """A chart's PNG and HTML page, in its folder of ``out_dir``."""
    # imported here, not at the top: the parent, which draws nothing, never imports matplotlib
    from analysis.outputs import charts_png

    folder = out_dir / chart.folder
    charts_png.render(chart, folder / f"{chart.key}.png")
    charts_html.render(chart, folder / f"{chart.key}.html", out_dir)


class ChartWorkers:
    """``write`` hands charts to the workers and returns at once; ``finish`` waits for their
    files and raises what a drawing raised. Used as a context manager, the workers end on leaving
    it (after their last chart; after the one they are drawing when an error left it)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        if "fork" in multiprocessing.get_all_start_methods():
            self._pool = ProcessPoolExecutor(
                PROCESSES, multiprocessing.get_context("fork"), _start_worker
            )
            self._pool.submit(_nothing)
        self._drawing: list[Future] = []
        self._waiting: list[tuple[Chart, Path]] = []  # without fork: drawn by finish

    def write(self, charts: Sequence[Chart], out_dir: Path) -> None:
        for folder in sorted({chart.folder for chart in charts}):
            (out_dir / folder).mkdir(parents=True, exist_ok=True)
        if self._pool is None:
            self._waiting += [(chart, out_dir) for chart in charts]
            return
        self._drawing += [self._pool.submit(write_chart, chart, out_dir) for chart in charts]

    def finish(self) -> None:
        for chart, out_dir in self._waiting:
            write_chart(chart, out_dir)
        self._waiting = []
        for drawing in self._drawing:
            drawing.result()
        self._drawing = []

    def __enter__(self) -> ChartWorkers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=error is not None)
        self._pool = None  # left twice (the command's and the writer's): ended once
