"""The report as data: sections of paragraphs, tables and images, plus the charts to draw.

``analysis.report`` fills it; every writer in ``analysis.outputs`` reads it, so Markdown, CSV
and the index page can never disagree about what the report contains.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from analysis.charts import Chart
from analysis.tables import Table


@dataclass
class Image:
    path: str  # relative to the report folder
    alt: str


Block = str | Table | Image


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)
    level: int = 2


@dataclass
class Report:
    title: str
    summary: pd.DataFrame
    sections: list[Section]
    charts: list[Chart]

    @property
    def tables(self) -> list[Table]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Table)]
