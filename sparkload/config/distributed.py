"""The distributed run's options: who may join the master."""

from __future__ import annotations

from dataclasses import dataclass

from sparkload.config.option import DISTRIBUTED, Option
from sparkload.config.parsers import text

ROWS: tuple[Option, ...] = (
    Option(
        "--worker-token",
        "",
        "A shared secret every worker must prove it holds when it connects (HMAC challenge: "
        "the token never crosses the network); workers without it are refused. Set it on the "
        "master and on every worker (default: $SPARKLOAD_WORKER_TOKEN; none: any worker joins)",
        DISTRIBUTED,
        text,
        secret=True,
    ),
)


@dataclass(frozen=True)
class DistributedOptions:
    worker_token: str  # this process's own (sparkload.hostsecrets), never sent
