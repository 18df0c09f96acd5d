"""The report's sections, one module each; ``analysis.report.SECTIONS`` orders and numbers them.

Each module exposes ``build(context) -> Section | None`` (None: nothing to say for this input).
Titles and table keys carry no numbers: the report derives them from the section's position, so
moving a section renumbers its title, its tables' file names and every cross-reference at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from analysis.document import Image
from analysis.figures import slo
from analysis.figures.knee import KneeFinding
from analysis.figures.metrics import Settings
from analysis.figures.operating_points import CapacityFinding
from analysis.figures.slices import LevelSlices
from analysis.reading.load import Dataset
from analysis.views.timeline import Timeline


@dataclass(frozen=True)
class Context:
    """Everything a section may read: the loaded runs, the summary and the report's options.

    ``summary`` holds the closed-loop levels (by C), which every section but the runs and the
    open-loop one is about; ``open_loop`` the open-loop levels (by offered rate).
    """

    dataset: Dataset
    settings: Settings
    summary: pd.DataFrame
    server: pd.DataFrame  # server figures per closed-loop level (empty without server metrics)
    bounds: list[slo.Bound] | None = None
    think_time_s: float = 10.0
    numbers: dict[str, int] = field(default_factory=dict)  # section module name → its number
    open_loop: pd.DataFrame = field(default_factory=pd.DataFrame)
    telemetry: pd.DataFrame = field(default_factory=pd.DataFrame)  # per level and node
    slices: list[LevelSlices] = field(default_factory=list)  # levels cut into time windows
    points: pd.DataFrame = field(default_factory=pd.DataFrame)  # analysis.figures.operating_points
    capacities: list[CapacityFinding] = field(default_factory=list)  # the runs' capacity searches
    timelines: list[Timeline] = field(default_factory=list)
    knees: list[KneeFinding] = field(default_factory=list)  # each label's throughput knee
    # the sections a build referred to (``ref``, ``holds``): its text depends on their numbers
    asked: set[str] = field(default_factory=set)

    def ref(self, name: str) -> str:
        """A cross-reference to another section of this report, e.g. "§5"."""
        self.asked.add(name)
        return f"§{self.numbers[name]}"

    def holds(self, name: str) -> bool:
        """Whether the report has that section (one with nothing to say is left out)."""
        self.asked.add(name)
        return name in self.numbers


def image(folder: str, key: str, alt: str) -> Image:
    """A chart of ``analysis.views.charts`` (written as ``folder/key.png``)."""
    return Image(f"{folder}/{key}.png", alt)
