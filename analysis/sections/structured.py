"""Structured output (``--response-format``): per level, the share of replies that match the
schema and that parse, each failure kind counted apart, beside the level's TTFT and ITL."""

from __future__ import annotations

from analysis.document import Section
from analysis.figures import structured
from analysis.sections import Context
from analysis.views.tables import Table, slug

TITLE = "Structured output"
COLUMNS = {
    "concurrency": "C",
    "n": "n",
    "schema_valid_ratio": "schema valid",
    "json_parse_ratio": "parses",
    "structured_parse_error": "parse errors",
    "parse_error_kinds": "parse errors by kind",
    "structured_schema_error": "schema errors",
    "structured_truncated": "truncated",
    "ttft_ms_p50": "TTFT p50 ms",
    "itl_ms_p50": "ITL p50 ms",
}
FORMATS = {
    "schema valid": "{:.1%}",
    "parses": "{:.1%}",
    "TTFT p50 ms": "{:.1f}",
    "ITL p50 ms": "{:.2f}",
}


def build(context: Context) -> Section | None:
    summary = context.summary
    if structured.SCHEMA_VALID_RATIO not in summary:
        return None
    tables = [
        Table(
            f"{slug(str(label))}_structured",
            f"{label}: structured replies per level",
            levels[list(COLUMNS)].rename(columns=COLUMNS),
            FORMATS,
        )
        for label, levels in summary.groupby("label", sort=False)
        if levels[structured.COUNT_COLUMNS].fillna(0).to_numpy().sum()
    ]
    if not tables:
        return None
    return Section(
        TITLE,
        [
            "Every reply of a run with `--response-format` is judged: valid (parses and matches "
            "the schema; json_object: is a JSON object), parse error (not JSON: a markdown fence "
            "is not stripped; named by its kind: empty, not_json (prose, a fence), "
            "control_character (a raw control character inside a string, which JSON wants "
            "escaped), incomplete (the reply ended before its JSON did), trailing_data (more "
            "after a whole value), syntax (any other)), schema error (JSON that does not match), "
            "truncated (cut by max_tokens, whatever its text). Schema valid = valid / (valid + "
            "parse errors + schema errors): truncated replies are counted apart and left out (a "
            "longer max_tokens, not the server, fixes them); parses = (valid + schema errors) / "
            "the same. Ok measured requests; a failed request has no verdict. `--check "
            "'schema_valid_ratio>=0.99'` holds a run to it.",
            *tables,
        ],
    )
