"""One row of the option table: an option's flag, default, help, group and parser.

Each group of rows lives beside its typed options (``plan.py``, ``target.py``, ...); the package
(``sparkload.config``) composes them into the one table every surface reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sparkload.config.parsers import Parse

# The groups, as ``--help`` titles them, in the table's order.
PLAN = "load plan"
TARGET = "target"
REQUEST = "request"
WORKLOAD = "workload"
RESULTS = "results"
SERVER_METRICS = "server metrics"
DISTRIBUTED = "distributed"
SIMULATOR = "built-in simulator"
GROUP_ORDER = (PLAN, TARGET, WORKLOAD, REQUEST, RESULTS, SERVER_METRICS, DISTRIBUTED, SIMULATOR)


@dataclass(frozen=True)
class Option:
    flag: str
    default: Any
    help: str
    group: str
    parse: Parse
    choices: tuple[str, ...] | None = None
    secret: bool = False  # never in the web UI (Locust would embed it in the page), never written
    env: str = ""  # default: SPARKLOAD_<OPTION>
    per_target: bool = False  # a deployment's identity: set per matrix target, not matrix-wide
    argparse_extra: dict[str, Any] = field(default_factory=dict)
    attr: str = ""  # its field in the group's options (default: ``dest``)

    @property
    def dest(self) -> str:
        """The option's name everywhere a user writes it as a key (argparse, matrix files)."""
        return self.flag.lstrip("-").replace("-", "_")

    @property
    def field_name(self) -> str:
        """Its field in the group's typed options (``RunOptions.<group>.<field_name>``)."""
        return self.attr or self.dest

    @property
    def env_var(self) -> str:
        return self.env or "SPARKLOAD_" + self.dest.upper()

    @property
    def is_flag(self) -> bool:
        return isinstance(self.default, bool)

    def value(self, raw: Any) -> Any:
        """The validated value of ``raw`` (None: the default)."""
        return self.parse(self.flag, self.default if raw is None else raw)
