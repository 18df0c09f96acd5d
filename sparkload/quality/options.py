"""``sparkload quality``'s own options: rows of the option table (``config.Option``) in one typed
group, ``QualityOptions``, beside the table's rows the command shares with ``run``.

The shared rows (``SHARED``) are the table's own, so their flag, help and parser cannot drift
from ``run``'s; two say something else here (``OVERRIDES``: greedy sampling by default, what
``--tokenizer`` counts). Every row parses its own value, so a bad one is one ``ConfigError``
naming the flag; the command's ``--help`` is built from the same rows
(``sparkload.run.quality_options``).
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparkload import config
from sparkload.config import Option
from sparkload.config.parsers import boolean, integer, text
from sparkload.errors import ConfigError
from sparkload.quality import probes
from sparkload.quality.items import DATASET_KINDS, GENERIC_MATCHES, PROBES

# The command's own groups, as ``--help`` titles them.
WHAT = "what to ask (one or more)"
HOW = "how to send it"

DEFAULT_MAX_TOKENS = 512
DEFAULT_CONCURRENCY = 4
MAX_CONCURRENCY = 64
DEFAULT_PROBE_ITEMS = 100


def _paths(_flag: str, value: Any) -> tuple[Path, ...]:
    return tuple(Path(item) for item in value or ())


def _optional_choice(_flag: str, value: Any) -> str | None:
    """A choice argparse has checked, or None (not given)."""
    return None if value is None else str(value)


def _tolerance(flag: str, value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    if not number >= 0:
        raise ConfigError(f"{flag}: give a number >= 0, not {number:g}")
    return number


def _probes(flag: str, value: Any) -> tuple[str, ...]:
    """The probes named, repeated or comma-separated; an unknown name is one line."""
    names = tuple(name.strip() for item in value or () for name in item.split(",") if name.strip())
    unknown = [name for name in names if name not in PROBES]
    if unknown:
        raise ConfigError(f"{flag}: {', '.join(unknown)}: choose from {', '.join(PROBES)}")
    return names


def _limit(flag: str, value: Any) -> int | None:
    if value is None:
        return None
    if int(value) < 1:
        raise ConfigError(f"{flag}: give 1 or more items, not {value}")
    return int(value)


def _concurrency(flag: str, value: Any) -> int:
    if not 1 <= int(value) <= MAX_CONCURRENCY:
        raise ConfigError(f"{flag}: give 1 to {MAX_CONCURRENCY}, not {value}")
    return int(value)


def _max_tokens(flag: str, value: Any) -> int:
    if int(value) < 1:
        raise ConfigError(f"{flag}: give 1 or more, not {value}")
    return int(value)


def _number(_flag: str, value: Any) -> float:
    return float(value)


ROWS: tuple[Option, ...] = (
    Option(
        "--dataset",
        [],
        "a dataset file (repeatable): GSM8K JSONL (question, answer ending '#### N'), "
        "multiple choice in MMLU's layout (question, choices or A/B/C/D, answer as a letter or "
        "an index; JSON, JSONL or CSV), a generic JSONL of prompt and expected, or BFCL's "
        "tool-call format (question, function, ground_truth inline or in possible_answer/NAME "
        "beside it); each may be gzip-compressed (.gz)",
        WHAT,
        _paths,
        argparse_extra={"action": "append", "metavar": "FILE", "type": Path},
    ),
    Option(
        "--answers",
        [],
        "a BFCL possible-answer file (repeatable): the ground truth of BFCL items that hold "
        "none, by id (default: BFCL's possible_answer/NAME beside each file, when there)",
        WHAT,
        _paths,
        argparse_extra={"action": "append", "metavar": "FILE", "type": Path},
    ),
    Option(
        "--format",
        None,
        "the datasets' form (default: told by each file's first item)",
        WHAT,
        _optional_choice,
        choices=DATASET_KINDS,
    ),
    Option(
        "--match",
        None,
        "a generic file's match where a line names none (default exact)",
        WHAT,
        _optional_choice,
        choices=GENERIC_MATCHES,
    ),
    Option(
        "--tolerance",
        None,
        "a generic numeric match's absolute tolerance where a line gives none (default 1e-6)",
        WHAT,
        _tolerance,
        argparse_extra={"type": float, "metavar": "X"},
    ),
    Option(
        "--probe",
        [],
        f"a built-in probe (repeatable, or comma-separated): {', '.join(PROBES)}",
        WHAT,
        _probes,
        argparse_extra={"action": "append", "metavar": "NAME"},
    ),
    Option(
        "--limit",
        None,
        "the first N items of each dataset; the items of each probe "
        f"(default: a dataset's all, a probe's {DEFAULT_PROBE_ITEMS})",
        WHAT,
        _limit,
        argparse_extra={"type": int, "metavar": "N"},
    ),
    Option(
        "--steps",
        probes.DEFAULT_STEPS,
        f"arithmetic: operations per problem, its difficulty (default {probes.DEFAULT_STEPS})",
        WHAT,
        integer,
        argparse_extra={"type": int, "metavar": "N"},
    ),
    Option(
        "--context-tokens",
        probes.DEFAULT_CONTEXT_TOKENS,
        f"retrieval: the context's length in tokens (default {probes.DEFAULT_CONTEXT_TOKENS})",
        WHAT,
        integer,
        argparse_extra={"type": int, "metavar": "N"},
    ),
    Option(
        "--depth",
        probes.DEFAULT_DEPTH,
        "retrieval: where the key is planted, 0 (start) to 1 (end) "
        f"(default {probes.DEFAULT_DEPTH})",
        WHAT,
        _number,
        argparse_extra={"type": float, "metavar": "D"},
    ),
    Option(
        "--host",
        "",
        "the server's base URL (default: start the built-in simulator)",
        HOW,
        text,
        argparse_extra={"metavar": "URL"},
    ),
    Option(
        "--concurrency",
        DEFAULT_CONCURRENCY,
        f"requests in flight at once, 1-{MAX_CONCURRENCY} (default {DEFAULT_CONCURRENCY})",
        HOW,
        _concurrency,
        argparse_extra={"type": int, "metavar": "N"},
    ),
    Option(
        "--max-tokens",
        DEFAULT_MAX_TOKENS,
        f"output tokens each reply may take (default {DEFAULT_MAX_TOKENS}; a reply cut off "
        "there is graded as it is and counted as truncated)",
        HOW,
        _max_tokens,
        argparse_extra={"type": int, "metavar": "N"},
    ),
    Option(
        "--seed",
        0,
        "the requests' sampling seed and the built-in probes' generator (default 0)",
        HOW,
        integer,
        argparse_extra={"type": int},
    ),
    Option(
        "--keep-outputs",
        False,
        "also keep every item's expected and extracted answer and its reply in "
        "quality.json (off by default: outputs may be private)",
        HOW,
        boolean,
    ),
)
SHORT_FLAGS = {"--host": "-H"}  # as ``run``'s (Locust's) -H


@dataclass(frozen=True)
class QualityOptions:
    """What to ask and how to send it (``ROWS``, a field each)."""

    dataset: tuple[Path, ...]
    answers: tuple[Path, ...]  # BFCL's possible-answer files
    format: str | None  # None: told by each file's first item
    match: str | None  # None: a generic line's own, else exact
    tolerance: float | None
    probe: tuple[str, ...]
    limit: int | None  # None: a dataset's all, a probe's DEFAULT_PROBE_ITEMS
    steps: int
    context_tokens: int
    depth: float
    host: str  # "": the built-in simulator
    concurrency: int
    max_tokens: int
    seed: int
    keep_outputs: bool

    @property
    def probe_items(self) -> int:
        return self.limit or DEFAULT_PROBE_ITEMS


# Rows of the option table this command shares with ``run``: the same flag, help and parser.
SHARED = (
    "model",
    "label",
    "variant",
    "tp",
    "api_key",
    "secrets_file",
    "header",
    "insecure",
    "request_timeout",
    "temperature",
    "top_p",
    "no_thinking",
    "extra_body",
    "tokenizer",
    "results_dir",
    "metadata",
)
# Where a shared row says something else here: an accuracy figure should not be sampled.
OVERRIDES: dict[str, dict[str, Any]] = {
    "temperature": {
        "default": 0.0,
        "help": "Sampling temperature of every request (default 0: greedy)",
    },
    "tokenizer": {
        "help": "A Hugging Face tokenizer.json that counts the retrieval probe's context "
        "(default: the target's /tokenize, else 4 characters a token)",
    },
}
SHARED_ROWS: tuple[Option, ...] = tuple(
    dataclasses.replace(config.BY_DEST[dest], **OVERRIDES.get(dest, {})) for dest in SHARED
)


def quality_options(values: dict[str, Any]) -> QualityOptions:
    """The command's own options from their raw values (by ``dest``), each by its row's
    parser: a ConfigError names the flag."""
    return QualityOptions(**{row.field_name: row.value(values.get(row.dest)) for row in ROWS})


def shared_options(values: dict[str, Any]) -> config.RunOptions:
    """The shared and simulator rows' values, typed in the groups the table keeps them in (a
    ``RunOptions`` whose other rows hold their defaults), each by its own parser; the
    overridden defaults in place of ``run``'s."""
    raw = {row.dest: values.get(row.dest) for row in (*SHARED_ROWS, *config.SIMULATOR_OPTIONS)}
    for row in SHARED_ROWS:
        if raw[row.dest] is None:
            raw[row.dest] = row.default
    return config.from_namespace(argparse.Namespace(**raw))
