"""Requests by model (a mix of a base model and its LoRA adapters, ``--model A:0.7,B:0.3``):
the shares sent and each model's TTFT, ITL, TPS and latency, per level."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context
from analysis.views import models

TITLE = "By model"


def build(context: Context) -> Section | None:
    named = models.model_records(context.dataset.records)
    if named.empty:
        return None
    found = ", ".join(dict.fromkeys(named["model"].astype(str)))
    return Section(
        TITLE,
        [
            f"Measured requests of closed-loop levels of runs that spread their requests over "
            f"several models ({found}; a base model and its LoRA adapters share the server's "
            "batches): per level and model, the requests sent (failures included) and their "
            "share of the level's, the model's share of the output tokens, and TTFT, ITL (ms), "
            "output tok/s per user (TPS) and latency (s) over its successful requests. An "
            "adapter not loaded when its request arrives is loaded first (vLLM's "
            "`--max-loras` slots): switching shows as a higher TTFT than one adapter alone.",
            models.model_table(models.by_model(named, context.settings)),
        ],
    )
