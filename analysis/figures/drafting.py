"""Which labels differ in drafting (speculative decoding) only: the MTP section's pairs.

A label's deployment is its quantization and its drafting (method and depth k), each taken from
the first record that says it, and named with where it came from:
  drafting      the user's ``--metadata spec=METHOD:K`` (or ``none``; the single-Spark notes'
                key), else the simulator's own setting (manifest ``simulator.spec``), else the
                target's /metrics: vLLM has spec-decode counters only while drafting, so a
                label with /metrics snapshots but no drafts drafts nothing, and one with drafts
                drafts k = Δ draft tokens / Δ drafts (the method is not in /metrics: "drafting")
  quantization  ``--metadata quantization=…`` (or ``build=…``), else the simulator's weights
                (manifest ``simulator.quantization``: fp8-mtp's are fp8), else the served model
                (a real server drafts on the checkpoint it serves without drafting)
A label none of these describe (a Locust CSV, a manifest from before) falls back to its variant
name: "X-MTP" drafts with MTP and pairs with "X". Two labels pair when one drafts and the other
does not and everything else agrees: quantization, TP size, nodes, workload and output length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.reading.load import Dataset, Run

NONE = "none"
MTP_SUFFIX = "-mtp"
FROM_METADATA = "--metadata"
FROM_SIMULATOR = "simulator"
FROM_METRICS = "/metrics"
FROM_NAME = "variant name"
FROM_MODEL = "served model"


@dataclass(frozen=True)
class Drafting:
    """A drafting method and its depth k (0 where unknown or none), and where it was read."""

    method: str
    depth: int
    source: str

    @property
    def drafts(self) -> bool:
        return self.method != NONE

    def describe(self) -> str:
        if not self.drafts:
            return "none"
        return f"{self.method} k={self.depth}" if self.depth else self.method


@dataclass(frozen=True)
class Deployment:
    """What a label ran: its quantization and drafting, each with its source."""

    label: str
    quantization: str
    quantization_source: str
    drafting: Drafting
    rest: tuple  # TP size, nodes, workload, output length: what must agree besides


def parse(text: str, source: str) -> Drafting:
    """``none``, ``METHOD`` or ``METHOD:K`` (any method name: mtp, dspark, ngram, eagle, ...)."""
    method, _, depth = text.strip().lower().partition(":")
    return Drafting(method or NONE, int(depth) if depth.isdigit() else 0, source)


def _metadata(run: Run, *keys: str) -> str | None:
    lowered = {key.lower(): value for key, value in run.manifest.metadata.items()}
    return next((lowered[key] for key in keys if lowered.get(key)), None)


def _from_metrics(label: str, server: pd.DataFrame) -> Drafting | None:
    """From the label's /metrics deltas (None: no snapshots of it)."""
    rows = server[server["label"] == label] if not server.empty else server
    if rows.empty:
        return None
    drafts = float(np.nansum(rows["drafts"])) if "drafts" in rows else 0.0
    if drafts <= 0:
        return Drafting(NONE, 0, FROM_METRICS)
    depth = float(np.nansum(rows["draft_tokens"])) / drafts
    return Drafting("drafting", int(round(depth)), FROM_METRICS)


def _from_name(variant: str) -> Drafting:
    drafts = variant.lower().endswith(MTP_SUFFIX)
    return Drafting("mtp" if drafts else NONE, 0, FROM_NAME)


def drafting_of(run: Run, server: pd.DataFrame) -> Drafting:
    """The run's drafting from the first record that says it (see the module docstring)."""
    if spec := _metadata(run, "spec"):
        return parse(spec, FROM_METADATA)
    sim = run.manifest.simulator
    if sim is not None and sim.spec:
        return parse(sim.spec, FROM_SIMULATOR)
    return _from_metrics(run.label, server) or _from_name(run.variant)


def deployment(run: Run, server: pd.DataFrame) -> Deployment:
    """The label's deployment as its first run records it (see the module docstring)."""
    manifest, sim = run.manifest, run.manifest.simulator
    drafting = drafting_of(run, server)
    given = _metadata(run, "quantization", "build")
    if given:
        quantization, source = given.lower(), FROM_METADATA
    elif drafting.source == FROM_NAME:  # nothing recorded: the name says both
        quantization, source = run.variant.lower().removesuffix(MTP_SUFFIX), FROM_NAME
    elif sim is not None and sim.quantization:
        quantization, source = sim.quantization, FROM_SIMULATOR
    else:
        quantization, source = manifest.model or run.variant.lower(), FROM_MODEL
    rest = (run.tp, run.nodes, manifest.workload_name, manifest.workload.max_tokens)
    return Deployment(run.label, quantization, source, drafting, rest)


def deployments(dataset: Dataset, server: pd.DataFrame) -> dict[str, Deployment]:
    """Label → its deployment, for every closed-loop label in input order."""
    out: dict[str, Deployment] = {}
    for run in dataset.runs:
        if not run.open_loop and run.label not in out:
            out[run.label] = deployment(run, server)
    return out


def pairs(found: dict[str, Deployment]) -> list[tuple[str, str]]:
    """(label without drafting, label with drafting) for every two labels that differ in
    drafting only; a base pairs with each of its drafting twins (mtp:3, mtp:8, ...)."""
    out = []
    for drafted in found.values():
        if not drafted.drafting.drafts:
            continue
        for base in found.values():
            if (
                not base.drafting.drafts
                and base.quantization == drafted.quantization
                and base.rest == drafted.rest
            ):
                out.append((base.label, drafted.label))
    return out
