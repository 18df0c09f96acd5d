"""``sparkload quality``'s options: the parser and their settling into a ``Plan``.

The command shares some rows of the options table with ``run`` (``SHARED``: the same flag,
help and parser) and adds its own; settling checks every option and reads every dataset, so
a mistake is one ``ConfigError`` before anything is contacted.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparkload import config
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.quality import datasets, probes
from sparkload.quality.items import (
    DATASET_KINDS,
    GENERIC_MATCHES,
    KIND_ARITHMETIC,
    KIND_RETRIEVAL,
    PROBES,
    ItemSet,
)
from sparkload.run.results import check_writable

PROG = "sparkload quality"
DEFAULT_MAX_TOKENS = 512
DEFAULT_CONCURRENCY = 4
MAX_CONCURRENCY = 64
DEFAULT_PROBE_ITEMS = 100

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
DEFAULTS = {"temperature": 0.0}  # greedy by default: an accuracy figure should not be sampled
HELP = {
    "temperature": "Sampling temperature of every request (default 0: greedy)",
    "tokenizer": "A Hugging Face tokenizer.json that counts the retrieval probe's context "
    "(default: the target's /tokenize, else 4 characters a token)",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Send every item of a dataset or a built-in probe once, grade each reply by "
        "a well-known rule, and write a run directory with quality.json: per dataset or probe, "
        "items graded, correct, accuracy with its 95 % Wilson interval, and the wrong items' "
        "ids. No --host: the built-in simulator (whose replies are filler text, accuracy 0, "
        "unless --sim-accuracy P: the built-in probes answered right for a share P). "
        "sparkload report RUN_DIR adds the accuracy section.",
        epilog="Grading: GSM8K and the arithmetic probe by the reply's final number (#### N, "
        "else the last number), as lighteval and aiperf; multiple choice by the letter given "
        "('Answer: X', else a first line '(B)', 'B)', 'B.'); generic files exact, numeric or "
        "regex; retrieval by the planted key appearing in the reply. Exit 0, 1 when a request "
        "failed, 2 on bad input (nothing sent), 130 when stopped (what was graded is kept).",
        allow_abbrev=False,
    )
    what = parser.add_argument_group("what to ask (one or more)")
    what.add_argument(
        "--dataset",
        action="append",
        default=[],
        metavar="FILE",
        type=Path,
        help="a dataset file (repeatable): GSM8K JSONL (question, answer ending '#### N'), "
        "multiple choice in MMLU's layout (question, choices or A/B/C/D, answer as a letter or "
        "an index; JSON, JSONL or CSV), or a generic JSONL of prompt and expected",
    )
    what.add_argument(
        "--format",
        choices=DATASET_KINDS,
        help="the datasets' form (default: told by each file's first item)",
    )
    what.add_argument(
        "--match",
        choices=GENERIC_MATCHES,
        help="a generic file's match where a line names none (default exact)",
    )
    what.add_argument(
        "--tolerance",
        type=float,
        metavar="X",
        help="a generic numeric match's absolute tolerance where a line gives none (default 1e-6)",
    )
    what.add_argument(
        "--probe",
        action="append",
        default=[],
        metavar="NAME",
        help=f"a built-in probe (repeatable, or comma-separated): {', '.join(PROBES)}",
    )
    what.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="the first N items of each dataset; the items of each probe "
        f"(default: a dataset's all, a probe's {DEFAULT_PROBE_ITEMS})",
    )
    what.add_argument(
        "--steps",
        type=int,
        default=probes.DEFAULT_STEPS,
        metavar="N",
        help="arithmetic: operations per problem, its difficulty (default %(default)s)",
    )
    what.add_argument(
        "--context-tokens",
        type=int,
        default=probes.DEFAULT_CONTEXT_TOKENS,
        metavar="N",
        help="retrieval: the context's length in tokens (default %(default)s)",
    )
    what.add_argument(
        "--depth",
        type=float,
        default=probes.DEFAULT_DEPTH,
        metavar="D",
        help="retrieval: where the key is planted, 0 (start) to 1 (end) (default %(default)s)",
    )
    how = parser.add_argument_group("how to send it")
    how.add_argument(
        "-H",
        "--host",
        default="",
        metavar="URL",
        help="the server's base URL (default: start the built-in simulator)",
    )
    how.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"requests in flight at once, 1-{MAX_CONCURRENCY} (default %(default)s)",
    )
    how.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        metavar="N",
        help="output tokens each reply may take (default %(default)s; a reply cut off there is "
        "graded as it is and counted as truncated)",
    )
    how.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the requests' sampling seed and the built-in probes' generator (default 0)",
    )
    how.add_argument(
        "--keep-outputs",
        action="store_true",
        help="also keep every item's expected and extracted answer and its reply in "
        "quality.json (off by default: outputs may be private)",
    )
    shared = parser.add_argument_group("shared with sparkload run")
    for dest in SHARED:
        _add_row(shared, config.BY_DEST[dest])
    simulated = parser.add_argument_group("built-in simulator (no --host)")
    for row in config.SIMULATOR_OPTIONS:
        _add_row(simulated, row)
    return parser


def _add_row(group: argparse._ArgumentGroup, option: config.Option) -> None:
    """One row of the option table as an option of this command, parsed by its own parser
    later (``_row_values``); a secret's default is its environment variable's, as ``run``'s."""
    kwargs: dict[str, Any] = {"default": None, "help": HELP.get(option.dest, option.help)}
    default = DEFAULTS.get(option.dest, option.default)
    if option.secret:
        kwargs["default"] = os.environ.get(option.env_var)
    elif option.dest not in HELP and default not in (None, "", [], False):
        kwargs["help"] += f" (default: {default})"
    if option.is_flag:
        kwargs["action"] = "store_true"
        kwargs["default"] = False
    if option.choices:
        kwargs["choices"] = option.choices
    kwargs.update(option.argparse_extra)
    if kwargs.get("action") == "append" and isinstance(kwargs["default"], str):
        kwargs["default"] = [kwargs["default"]]  # an environment's one header
    kwargs["help"] = kwargs["help"].replace("%", "%%")
    group.add_argument(option.flag, dest=option.dest, **kwargs)


def _row_values(args: argparse.Namespace) -> dict[str, Any]:
    """The shared and simulator rows' values, each by its own parser (a ConfigError names it)."""
    rows = [config.BY_DEST[dest] for dest in SHARED] + list(config.SIMULATOR_OPTIONS)
    values = {}
    for row in rows:
        raw = getattr(args, row.dest)
        if raw is None and row.dest in DEFAULTS:
            raw = DEFAULTS[row.dest]
        values[row.dest] = row.value(raw)
    return values


@dataclass
class Plan:
    """The settled options: what to ask, how, and of whom."""

    args: argparse.Namespace
    values: dict[str, Any]
    secrets: HostSecrets
    sets: list[ItemSet]  # what can be made before the target is known (datasets, arithmetic)
    retrieval: bool  # the retrieval probe, made once the target can count tokens
    simulator: config.SimulatorOptions

    @property
    def probe_items(self) -> int:
        return self.args.limit or DEFAULT_PROBE_ITEMS


def settle(argv: list[str]) -> Plan:
    """Parse and check the options and read every dataset: a ConfigError before anything is
    contacted."""
    args = build_parser().parse_args(argv)
    values = _row_values(args)
    names = [name.strip() for text in args.probe for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in PROBES]
    if unknown:
        raise ConfigError(f"--probe: {', '.join(unknown)}: choose from {', '.join(PROBES)}")
    if not args.dataset and not names:
        raise ConfigError("give --dataset FILE or --probe NAME (see --help)")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit: give 1 or more items, not {args.limit}")
    if not 1 <= args.concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"--concurrency: give 1 to {MAX_CONCURRENCY}, not {args.concurrency}")
    if args.max_tokens < 1:
        raise ConfigError(f"--max-tokens: give 1 or more, not {args.max_tokens}")
    if args.tolerance is not None and not args.tolerance >= 0:
        raise ConfigError(f"--tolerance: give a number >= 0, not {args.tolerance:g}")
    secrets = HostSecrets.capture(args)
    sets = [
        datasets.read_dataset(path, args.format, args.match, args.tolerance).limited(args.limit)
        for path in args.dataset
    ]
    count = args.limit or DEFAULT_PROBE_ITEMS
    if KIND_ARITHMETIC in names:
        sets.append(probes.arithmetic(count, args.seed, args.steps))
    if KIND_RETRIEVAL in names:  # its parameters checked now, its items made later
        probes.check_retrieval(args.context_tokens, args.depth)
    names_seen = [s.name for s in sets]
    twice = sorted({name for name in names_seen if names_seen.count(name) > 1})
    if twice:
        raise ConfigError(
            f"--dataset: two datasets named {', '.join(twice)}: results go by file name, rename one"
        )
    simulator = config.SimulatorOptions(
        **{row.field_name: values[row.dest] for row in config.SIMULATOR_OPTIONS}
    )
    check_writable(values["results_dir"])
    return Plan(args, values, secrets, sets, KIND_RETRIEVAL in names, simulator)
