"""Which deployment each run measured (its ``Setup``: build, drafting, batch budget, prefix
caching, workload) and the figures the notes' tables read, per label and level."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.reading import server_metrics
from analysis.reading.load import Dataset
from analysis.views.throughput_views import per_run_levels
from sparkload.records import Manifest

BUILD_NAMES = {"fp8": "FP8", "int4": "MixedInt4", "nvfp4": "NVFP4"}  # the notes' order
SIM_PREFIX = "qwen3.8-"
DEFAULT_WORD = "default"  # the budget column's word for vLLM's own budget
VLLM_DEFAULT_BUDGET = "2048"  # vLLM's max_num_batched_tokens on GB10: shown as "default"
METADATA_KEYS = ("build", "spec", "budget")
UNKNOWN = "?"
_OFF = {"off", "false", "no", "0", "disabled"}
TOK_S = "{:.2f}"


@dataclass(frozen=True)
class Setup:
    """The deployment a run measured and the workload it sent."""

    build: str  # fp8 | int4 | nvfp4 (other builds keep their given name)
    spec: str  # none | mtp:K | dspark:K
    budget: str  # default | a number of tokens
    prefix_caching: bool
    workload: str
    identical: bool


@dataclass(frozen=True)
class Entry:
    """One label of the report with its setup and its closed-loop levels."""

    label: str
    setup: Setup
    levels: tuple[int, ...]

    @property
    def single_stream(self) -> bool:
        return self.levels == (1,)


# ----- which run is which ------------------------------------------------------------------------
def build_name(text: str) -> str:
    """fp8 / int4 / nvfp4 from a metadata value or a simulator profile (MixedInt4 is int4)."""
    name = text.strip().lower().removeprefix(SIM_PREFIX)
    return "int4" if name.startswith("mixedint4") else name


def spec_name(text: str) -> str:
    return re.sub(r"\s+", "", text.lower())


def budget_name(value: object) -> str:
    text = "" if value is None else str(value).strip().lower().replace(",", "")
    return DEFAULT_WORD if text in (DEFAULT_WORD, VLLM_DEFAULT_BUDGET) else text


def spec_depth(spec: str) -> int:
    """K of ``method:K`` (0 for none)."""
    return int(spec.rsplit(":", 1)[1]) if ":" in spec and spec.rsplit(":", 1)[1].isdigit() else 0


def setup_of(manifest: Manifest) -> Setup | None:
    """The notes' setup of one run, or None when its manifest says nothing of one.

    Metadata first; else the simulator's setup as its manifest entry records it (an older
    manifest's: the simulator's defaults of its time, ``records.LEGACY_SIMULATOR_SETUP``). A
    real run's setting that its metadata does not give stays unknown ("?"), so the run fills no
    cell it may not belong to.
    """
    metadata = {key.lower(): value for key, value in manifest.metadata.items()}
    sim = manifest.simulator
    if sim is not None and not sim.profile.startswith(SIM_PREFIX):
        sim = None  # another model's simulator: nothing of the notes' setup
    if sim is None and not any(key in metadata for key in METADATA_KEYS):
        return None
    prefix = metadata.get("prefix_caching")
    return Setup(
        build=build_name(metadata.get("build") or (sim.profile if sim else UNKNOWN)),
        spec=spec_name(metadata.get("spec") or (sim.spec if sim else None) or UNKNOWN),
        budget=budget_name(
            metadata.get("budget") or (sim.max_num_batched_tokens if sim else None) or UNKNOWN
        ),
        prefix_caching=prefix.strip().lower() not in _OFF
        if prefix is not None
        else sim is None or sim.prefix_caching,
        workload=manifest.workload_name,
        identical=bool(manifest.workload.identical_prompts),
    )


def catalogue(dataset: Dataset, summary: pd.DataFrame) -> list[Entry]:
    """Every closed-loop label whose first run carries the notes' setup, in input order."""
    entries = []
    for label in dict.fromkeys(summary["label"]):
        run = next((r for r in dataset.runs if r.label == label and not r.open_loop), None)
        setup = setup_of(run.manifest) if run is not None else None
        if setup is not None:
            levels = tuple(
                sorted(int(c) for c in summary.loc[summary["label"] == label, "concurrency"])
            )
            entries.append(Entry(label, setup, levels))
    return entries


def find(entries: Iterable[Entry], single: bool, **wanted) -> Entry | None:
    """The first entry of that kind (single stream or concurrency) whose setup has ``wanted``."""
    for entry in entries:
        if entry.single_stream == single and all(
            getattr(entry.setup, key) == value for key, value in wanted.items()
        ):
            return entry
    return None


def builds_of(entries: Iterable[Entry]) -> list[str]:
    """The builds present, the notes' order first."""
    present = list(dict.fromkeys(entry.setup.build for entry in entries))
    return sorted(present, key=lambda b: list(BUILD_NAMES).index(b) if b in BUILD_NAMES else 9)


def display(build: str) -> str:
    return BUILD_NAMES.get(build, build)


def describe_spec(spec: str) -> str:
    """``dspark:7`` → "DSpark k=7", ``mtp:3`` → "MTP k=3", ``none`` → "no speculation"."""
    if ":" not in spec:
        return "no speculation" if spec == "none" else spec
    method, k = spec.split(":", 1)
    return f"{'DSpark' if method == 'dspark' else method.upper()} k={k}"


# ----- figures -----------------------------------------------------------------------------------
@dataclass
class Figures:
    """The figures the tables read, per label and level."""

    summary: pd.DataFrame
    server: pd.DataFrame
    per_run: pd.DataFrame  # throughput_views.per_run_levels (empty without raw records)
    kv_tokens: dict[str, int]

    def value(self, label: str, c: int, column: str) -> float:
        rows = self.summary[(self.summary["label"] == label) & (self.summary["C"] == c)]
        return float(rows[column].iloc[0]) if not rows.empty else np.nan

    def runs(self, label: str, c: int = 1) -> list[float]:
        """Per-run tps means at level ``c``, in run order (one pooled value without records)."""
        if not self.per_run.empty:
            rows = self.per_run[(self.per_run["label"] == label) & (self.per_run["C"] == c)]
            if not rows.empty:
                return [float(v) for v in rows.sort_values("run")["tps"]]
        mean = self.value(label, c, "tps_mean")
        return [] if np.isnan(mean) else [mean]

    def server_value(self, label: str, column: str, c: int = 1) -> float:
        if self.server.empty or column not in self.server:
            return np.nan
        rows = self.server[(self.server["label"] == label) & (self.server["concurrency"] == c)]
        return float(rows[column].iloc[0]) if not rows.empty else np.nan


def figures(dataset: Dataset, summary: pd.DataFrame, server: pd.DataFrame) -> Figures:
    per_run = per_run_levels(dataset.records)
    kv = {}
    for run in dataset.runs:
        if run.label not in kv and (tokens := server_metrics.kv_capacity_tokens(run)) is not None:
            kv[run.label] = tokens
    return Figures(
        summary.rename(columns={"concurrency": "C"}),
        server,
        per_run.rename(columns={"concurrency": "C"}) if not per_run.empty else per_run,
        kv,
    )


def runs_cell(values: list[float]) -> float | str:
    """One run: its value; several: "a / b" in run order (the notes' two consecutive runs)."""
    if not values:
        return np.nan
    if len(values) == 1:
        return values[0]
    return " / ".join(TOK_S.format(v) for v in values)


def mean_of(values: list[float]) -> float:
    return float(np.mean(values)) if values else np.nan


def change(base: float, other: float) -> float:
    """(other − base) / base × 100."""
    return (other / base - 1) * 100 if base and np.isfinite(base) else np.nan
