"""Tested variants (the quantization report's 1.2): each label's quantization format, drafting
method and depth, TP size and nodes, and its size where the run recorded one.

Drafting is ``analysis.figures.drafting``'s reading (metadata, the simulator's setting, the target's
spec-decode counters, else the variant name), the one the MTP section pairs by. The format is
read from the user's ``--metadata`` first (``quantization``, ``build``), then the names the run
gave (variant, simulator profile, model, label), in which a known format's name (``nvfp4``,
``fp8``, ``awq``, ...) is read. What none of them says is shown as unknown, never guessed.
"""

from __future__ import annotations

import re

import pandas as pd

from analysis.document import Section
from analysis.figures import drafting
from analysis.reading.load import Run
from analysis.sections import Context
from analysis.views.tables import Table
from sparkload.records import Manifest

UNKNOWN = "—"
# Known formats, most specific first (so "nvfp4" is not read as "fp4"), each with what it is.
FORMATS = (
    ("nvfp4", "NVFP4", "NVIDIA 4-bit floating point"),
    ("mxfp4", "MXFP4", "microscaling 4-bit floating point"),
    ("fp8", "FP8", "8-bit floating point"),
    ("awq", "AWQ", "activation-aware 4-bit weights"),
    ("gptq", "GPTQ", "4-bit weights, GPTQ"),
    ("int4", "INT4", "4-bit integer weights"),
    ("int8", "INT8", "8-bit integer weights"),
    ("bf16", "BF16", "16-bit brain floating point, unquantized"),
    ("fp16", "FP16", "16-bit floating point, unquantized"),
)
METHODS = {"mtp": "MTP", "dspark": "DSpark", "eagle": "EAGLE", "ngram": "n-gram", "none": "none"}
QUANTIZATION_KEYS = ("quantization", "quant", "format", "build")
SIZE_KEYS = ("size", "weights", "model_size")


def _said(manifest: Manifest, keys: tuple[str, ...]) -> str | None:
    """The first of these metadata keys the run was given."""
    return next((manifest.metadata[k] for k in keys if manifest.metadata.get(k)), None)


def _names(run: Run) -> list[str]:
    """The names a run goes by, the most deliberate first."""
    sim = run.manifest.simulator
    return [run.variant, sim.profile if sim else "", run.manifest.model, run.label]


def quantization(run: Run) -> str:
    """The format and what it is, e.g. "FP8 (8-bit floating point)"."""
    said = _said(run.manifest, QUANTIZATION_KEYS)
    texts = [said] if said else _names(run)
    for text in texts:
        for token, name, what in FORMATS:
            if re.search(rf"(?<![a-z0-9]){token}", text.lower()):
                return f"{name} ({what})"
    return said or UNKNOWN


def row(run: Run, deployment: drafting.Deployment) -> dict[str, object]:
    """One label's row; drafting is ``analysis.figures.drafting``'s reading, the one the MTP section
    pairs by."""
    drafted = deployment.drafting
    method = METHODS.get(drafted.method, drafted.method) if drafted.drafts else "none"
    return {
        "Label": run.label,
        "Variant": run.variant,
        "Quantization": quantization(run),
        "Drafting": method,
        "Draft depth": drafted.depth or UNKNOWN,
        "Drafting from": drafted.source,
        "TP": run.tp if run.tp is not None else UNKNOWN,
        "Nodes": run.nodes if run.nodes is not None else UNKNOWN,
        "Size": _said(run.manifest, SIZE_KEYS) or UNKNOWN,
    }


def build(context: Context) -> Section | None:
    first: dict[str, Run] = {}
    for run in context.dataset.runs:
        first.setdefault(run.label, run)
    if not first:
        return None
    return Section(
        "Tested variants",
        [
            Table(
                "variants",
                "Variants",
                pd.DataFrame(
                    [row(run, drafting.deployment(run, context.server)) for run in first.values()]
                ),
            ),
            "Quantization as given with the run (quantization= or build=), else as its variant, "
            "model or label names it; drafting as the MTP section reads it (Drafting from: the "
            "run's spec=, the simulator, the target's /metrics, else the variant name); — where "
            "none says.",
        ],
    )
