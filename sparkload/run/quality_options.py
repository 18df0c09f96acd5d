"""``sparkload quality``'s options: the parser and their settling into a ``Plan``.

The options are rows of the option table: the command's own (``quality.options.ROWS``, typed as
``QualityOptions``), the rows it shares with ``run`` and the simulator's (typed in their own
groups of a ``RunOptions``). Settling parses every row, checks the rules across them and reads
every dataset, so a mistake is one ``ConfigError`` before anything is contacted.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Any

from sparkload import config
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.quality import datasets, probes
from sparkload.quality.items import KIND_ARITHMETIC, KIND_BFCL, KIND_RETRIEVAL, ItemSet
from sparkload.quality.options import (
    HOW,
    ROWS,
    SHARED_ROWS,
    SHORT_FLAGS,
    WHAT,
    QualityOptions,
    quality_options,
    shared_options,
)
from sparkload.run.results import check_writable

PROG = "sparkload quality"


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
    for title in (WHAT, HOW):
        group = parser.add_argument_group(title)
        for row in ROWS:
            if row.group == title:
                _add_row(group, row, own=True)
    shared = parser.add_argument_group("shared with sparkload run")
    for row in SHARED_ROWS:
        _add_row(shared, row)
    simulated = parser.add_argument_group("built-in simulator (no --host)")
    for row in config.SIMULATOR_OPTIONS:
        _add_row(simulated, row)
    return parser


def _add_row(group: argparse._ArgumentGroup, option: config.Option, own: bool = False) -> None:
    """One row of the option table as an option of this command, parsed by the row's parser
    later (``settle``). The command's own rows state their defaults in their help and take
    them from argparse; a shared row's default is the row's (a secret's its environment
    variable's, as ``run``'s)."""
    kwargs: dict[str, Any] = {"default": None, "help": option.help}
    if own:
        kwargs["default"] = option.default
    elif option.secret:
        kwargs["default"] = os.environ.get(option.env_var)
    elif option.default not in (None, "", [], False):
        kwargs["help"] += f" (default: {option.default})"
    if option.is_flag:
        kwargs["action"] = "store_true"
        kwargs["default"] = False
    if option.choices:
        kwargs["choices"] = option.choices
    kwargs.update(option.argparse_extra)
    if kwargs.get("action") == "append" and isinstance(kwargs["default"], str):
        kwargs["default"] = [kwargs["default"]]  # an environment's one header
    kwargs["help"] = kwargs["help"].replace("%", "%%")
    flags = [SHORT_FLAGS[option.flag]] if option.flag in SHORT_FLAGS else []
    group.add_argument(*flags, option.flag, dest=option.dest, **kwargs)


@dataclass
class Plan:
    """The settled options: what to ask, how, and of whom."""

    quality: QualityOptions
    # The rows shared with run (this host's secrets in place) and the simulator's, typed in
    # their groups; the rows this command has not are their defaults.
    options: config.RunOptions
    sets: list[ItemSet]  # what can be made before the target is known (datasets, arithmetic)
    retrieval: bool  # the retrieval probe, made once the target can count tokens


def settle(argv: list[str]) -> Plan:
    """Parse and check the options and read every dataset: a ConfigError before anything is
    contacted."""
    args = build_parser().parse_args(argv)
    values = vars(args)
    own = quality_options(values)
    options = HostSecrets.capture(args).into(shared_options(values))
    if not own.dataset and not own.probe:
        raise ConfigError("give --dataset FILE or --probe NAME (see --help)")
    sets = [
        datasets.read_dataset(
            path, own.format, own.match, own.tolerance, answers=own.answers
        ).limited(own.limit)
        for path in own.dataset
    ]
    if own.answers and not any(s.kind == KIND_BFCL for s in sets):
        raise ConfigError("--answers: no BFCL --dataset to take the answers of")
    if KIND_ARITHMETIC in own.probe:
        sets.append(probes.arithmetic(own.probe_items, own.seed, own.steps))
    if KIND_RETRIEVAL in own.probe:  # its parameters checked now, its items made later
        probes.check_retrieval(own.context_tokens, own.depth)
    names_seen = [s.name for s in sets]
    twice = sorted({name for name in names_seen if names_seen.count(name) > 1})
    if twice:
        raise ConfigError(
            f"--dataset: two datasets named {', '.join(twice)}: results go by file name, rename one"
        )
    check_writable(options.results.results_dir)
    return Plan(own, options, sets, KIND_RETRIEVAL in own.probe)
