"""The report as data: sections of paragraphs, tables and images, plus the charts to draw.

``analysis.report`` fills it; every writer in ``analysis.outputs`` reads it, so Markdown, CSV
and the index page can never disagree about what the report contains.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis.views.charts import Chart
from analysis.views.tables import Table
from analysis.views.timeline import Timeline


@dataclass
class Image:
    path: str  # relative to the report folder
    alt: str


Block = str | Table | Image


@dataclass
class Section:
    """A titled part of the report; its number comes from its position (``report.SECTIONS``)."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    subsections: list[Section] = field(default_factory=list)

    def walk(self, depth: int = 0) -> Iterator[tuple[Section, int]]:
        """This section and its subsections, depth first, each with its depth (0 = top)."""
        yield self, depth
        for sub in self.subsections:
            yield from sub.walk(depth + 1)


@dataclass
class Report:
    title: str
    summary: pd.DataFrame
    sections: list[Section]
    charts: list[Chart]
    method: dict[str, Any] = field(default_factory=dict)  # how the figures were computed
    # frames summary.json carries beside the levels, by key (e.g. energy per level and node)
    json_tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    timelines: list[Timeline] = field(default_factory=list)  # interactive pages only
    figures: dict[str, Any] = field(default_factory=dict)  # summary.json's further entries

    @property
    def tables(self) -> list[Table]:
        return [
            b
            for top in self.sections
            for s, _ in top.walk()
            for b in s.blocks
            if isinstance(b, Table)
        ]
