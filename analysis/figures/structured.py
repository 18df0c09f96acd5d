"""Structured output per level (``--response-format``): how many replies parse and match.

Over a level's ok measured requests that carry a verdict (``RequestRecord.structured``):
  structured_valid, structured_parse_error, structured_schema_error, structured_truncated
                       replies of each kind (``sparkload.records.STRUCTURED_VERDICTS``)
  schema_valid_ratio   valid / (valid + parse_error + schema_error): the share of the replies
                       that finished which match the schema (json_object: are a JSON object).
                       A reply cut by max_tokens (truncated) is counted apart and left out: a
                       cut reply says max_tokens was short, not that the server broke the
                       schema. NaN where no reply finished.
  json_parse_ratio     (valid + schema_error) / the same replies: the share that parse as JSON
  parse_error_kinds    the parse errors by kind (``RequestRecord.structured_error``), most
                       first: "control_character 3, incomplete 1" (empty, not_json,
                       control_character, incomplete, trailing_data, syntax; "unnamed" for
                       records from before kinds were named); empty where there were none
Failed requests have no verdict (they are the level's ``failures``). Only where some record
carries a verdict (``has_structured``): a plain run's summary keeps its columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.reading import text_columns
from sparkload.records import (
    STRUCTURED_PARSE_ERROR,
    STRUCTURED_SCHEMA_ERROR,
    STRUCTURED_VALID,
    STRUCTURED_VERDICTS,
)

SCHEMA_VALID_RATIO = "schema_valid_ratio"
UNNAMED = "unnamed"  # a parse error of a record from before kinds were named
COUNT_COLUMNS = [f"structured_{verdict}" for verdict in STRUCTURED_VERDICTS]
PARSE_ERROR_KINDS = "parse_error_kinds"
COLUMNS = [SCHEMA_VALID_RATIO, "json_parse_ratio", *COUNT_COLUMNS, PARSE_ERROR_KINDS]


def has_structured(records: pd.DataFrame) -> bool:
    """Whether some record carries a structured reply's verdict."""
    return "structured" in records and bool((~text_columns.equals(records["structured"], "")).any())


def structured_stats(verdicts: pd.Series, records: pd.DataFrame) -> dict:
    """One level's counts and ratios (the module docstring's) from its ok requests' verdicts
    and their ``records`` (the parse errors' kinds)."""
    counts = verdicts.astype(str).value_counts()
    row: dict = {f"structured_{v}": int(counts.get(v, 0)) for v in STRUCTURED_VERDICTS}
    valid, schema_error = counts.get(STRUCTURED_VALID, 0), counts.get(STRUCTURED_SCHEMA_ERROR, 0)
    finished = valid + schema_error + counts.get(STRUCTURED_PARSE_ERROR, 0)
    row[SCHEMA_VALID_RATIO] = valid / finished if finished else np.nan
    row["json_parse_ratio"] = (valid + schema_error) / finished if finished else np.nan
    row[PARSE_ERROR_KINDS] = parse_error_kinds(verdicts, records)
    return row


def parse_error_kinds(verdicts: pd.Series, records: pd.DataFrame) -> str:
    """The parse errors' kinds with their counts, most first ("" where there were none)."""
    failed = verdicts.astype(str).to_numpy() == STRUCTURED_PARSE_ERROR
    if "structured_error" in records:
        kinds = records["structured_error"].astype(str).to_numpy()[failed]
    else:
        kinds = np.full(int(failed.sum()), "")
    counted = pd.Series(np.where(kinds == "", UNNAMED, kinds)).value_counts()
    return ", ".join(f"{kind} {count}" for kind, count in counted.items())
