"""Output fidelity: each run that kept its replies (``--keep-outputs``), every level held to its
own lowest concurrency, by prompt (``analysis/fidelity/fidelity.py`` defines every figure;
``sparkload fidelity --reference DIR`` holds a run to another run)."""

from __future__ import annotations

import pandas as pd

from analysis.document import Block, Section
from analysis.errors import InputError
from analysis.fidelity import fidelity
from analysis.sections import Context
from analysis.views.tables import Table

TITLE = "Output fidelity"


def build(context: Context) -> Section | None:
    kept = [run for run in context.dataset.runs if run.manifest.outputs_kept is True]
    if not kept:
        return None
    blocks: list[Block] = [
        fidelity.METHOD + " Here the reference is each run's own lowest concurrency; "
        "`sparkload fidelity RUN --reference DIR` holds a run to another run (a variant, a "
        "draft length)."
    ]
    for number, run in enumerate(kept, start=1):
        try:
            result = fidelity.fidelity_of(run.path)
        except (InputError, OSError) as exc:
            blocks.append(f"`{run.label}`: no comparison: {exc}")
            continue
        blocks += fidelity.summary_lines(result)
        frame = pd.DataFrame(fidelity.rows(result))
        blocks.append(Table(f"fidelity_{number}", f"Output fidelity of `{run.label}`", frame))
    return Section(TITLE, blocks)
