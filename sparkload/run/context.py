"""What every process knows about the current run: built once per test, then only read.

The master (or local process) builds it from its options and settles the model, the time
scale and the ``--input-tokens`` prompts (``sparkload_synthetic``); workers build theirs from
the options the master sends with the test's start, so every process sends the same requests,
each with its own host's secrets (``sparkload.hostsecrets``): the master sends none.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from sparkload import config
from sparkload.body import BodyTemplate
from sparkload.config import RunOptions
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.transport.client import build_headers
from sparkload.transport.target import Endpoint
from sparkload.workloads import registry
from sparkload.workloads.contract import Synthetic, Workload


@dataclass(frozen=True)
class RunContext:
    options: RunOptions  # settled by the workload's rules
    workload: Workload[Any]
    endpoints: tuple[Endpoint, ...]
    headers: dict[str, str]  # every request's headers, this host's API key included (never written)
    model: str = ""  # settled by the master before the load starts
    time_scale: float = 1.0  # > 1 when the target is the time-scaled built-in simulator
    # every request body's template: composed from the fields above whenever they change
    body: BodyTemplate = field(init=False)

    def __post_init__(self) -> None:
        workload = self.workload
        body = BodyTemplate.for_run(
            self.options, workload.sampling, workload.max_tokens, self.model
        )
        object.__setattr__(self, "body", body)

    @classmethod
    def from_options(
        cls, parsed: argparse.Namespace, host: str | None, secrets: HostSecrets | None = None
    ) -> RunContext:
        """Validate the options and load the workload: a ConfigError with one line if bad.
        ``secrets`` are this process's own (None: the options still hold them)."""
        own = secrets if secrets is not None else HostSecrets.capture(parsed)
        options = registry.settle(own.into(config.from_namespace(parsed)))
        urls = options.target.endpoints or ((host,) if host else ())
        synthetic = getattr(parsed, "sparkload_synthetic", None)
        workload = registry.load(options, Synthetic.from_message(synthetic) if synthetic else None)
        try:
            headers = build_headers(
                options.target.api_key, options.request.accept_encoding, options.request.header
            )
        except ValueError as exc:
            raise ConfigError(f"--header: {exc}") from None
        return cls(
            options=options,
            workload=workload,
            endpoints=tuple(Endpoint.parse(url) for url in urls),
            headers=headers,
            model=str(getattr(parsed, "model", "") or ""),
            time_scale=float(getattr(parsed, "sparkload_time_scale", 1.0)),
        )

    def targeting(self, host: str) -> RunContext:
        """The context with ``host`` as its endpoint when no --endpoints were given (the built-in
        simulator's URL is known only once it runs)."""
        if self.options.target.endpoints:
            return self
        return dataclasses.replace(self, endpoints=(Endpoint.parse(host),))
