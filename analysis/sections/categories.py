"""Requests by category (a dataset line's ``category``): TTFT, ITL, TPS and tokens per level and
category, so that a level's pooled figures do not hide what each kind of prompt costs."""

from __future__ import annotations

from analysis.document import Section
from analysis.sections import Context
from analysis.views import categories

TITLE = "By category"


def build(context: Context) -> Section | None:
    named = categories.category_records(context.dataset.records)
    if named.empty:
        return None
    tables = [
        categories.category_table(categories.by_category(named, label, context.settings), label)
        for label in categories.labels(named)
    ]
    found = ", ".join(categories.categories(named))
    return Section(
        TITLE,
        [
            f"Measured requests of closed-loop levels whose dataset line names a category "
            f"({found}): per level and category, TTFT and ITL (ms), output tok/s per user "
            "(TPS) and the mean prompt and output tokens, over the successful requests; "
            "failures are counted and left out. Speculative decoding accepts more drafts "
            "where the answer is predictable (code, extraction) than where it is not "
            "(creative writing), so its gain differs by category: with drafting on and off "
            "under two labels, the MTP section gives the speed-up per category.",
            *tables,
        ],
    )
