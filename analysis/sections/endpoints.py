"""Per-endpoint breakdown for labels served by several endpoints (one replica per Spark)."""

from __future__ import annotations

from analysis.document import Section
from analysis.figures.metrics import CLOSED, loop_records
from analysis.sections import Context
from analysis.views import endpoints

TITLE = "Per-endpoint breakdown"


def build(context: Context) -> Section:
    table = endpoints.breakdown(loop_records(context.dataset.records, CLOSED), context.settings)
    if table is None:
        return Section(TITLE, ["Every label was served by one endpoint: no per-endpoint table."])
    return Section(
        TITLE,
        [
            "For labels served by several endpoints (e.g. one replica per Spark, `--endpoints`): "
            "the measured requests each endpoint served, per concurrency. Users are dealt to "
            "endpoints in turn, so at C=1 only the first endpoint serves; compare endpoints "
            "within a level, not across levels.",
            table,
        ],
    )
