"""What every process knows about the current run: built once per test, then only read.

The master (or local process) builds it from its options and settles the model, the time
scale and the ``--input-tokens`` prompts (``sparkload_synthetic``); workers build theirs from
the options the master sends with the test's start, so every process sends the same requests.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from typing import Any

from sparkload import config, workloads
from sparkload.client import build_headers
from sparkload.config import RunOptions
from sparkload.errors import ConfigError
from sparkload.target import Endpoint
from sparkload.workloads import Workload


@dataclass(frozen=True)
class RunContext:
    options: RunOptions
    workload: Workload
    endpoints: tuple[Endpoint, ...]
    headers: dict[str, str]  # every request's headers, the API key included (never written)
    # merged into every body: the workload's sampling, the shortcuts, --extra-body
    body_extras: dict[str, Any]
    model: str = ""  # settled by the master before the load starts
    time_scale: float = 1.0  # > 1 when the target is the time-scaled built-in simulator

    @classmethod
    def from_options(cls, parsed: argparse.Namespace, host: str | None) -> RunContext:
        """Validate the options and load the workload: a ConfigError with one line if bad."""
        options = config.from_namespace(parsed)
        urls = options.endpoints or ((host,) if host else ())
        synthetic = getattr(parsed, "sparkload_synthetic", None)
        workload = workloads.load(
            options, workloads.Synthetic.from_message(synthetic) if synthetic else None
        )
        try:
            headers = build_headers(options.api_key, options.accept_encoding, options.header)
        except ValueError as exc:
            raise ConfigError(f"--header: {exc}") from None
        return cls(
            options=options,
            workload=workload,
            endpoints=tuple(Endpoint.parse(url) for url in urls),
            headers=headers,
            body_extras=options.body_extras(workload.sampling),
            model=str(getattr(parsed, "model", "") or ""),
            time_scale=float(getattr(parsed, "sparkload_time_scale", 1.0)),
        )

    def extras_for(self, max_tokens: int | None) -> dict[str, Any]:
        """The body extras of a request asking for its own ``max_tokens`` (a dataset line's;
        None: the run's, built once)."""
        if max_tokens is None:
            return self.body_extras
        return self.options.body_extras(self.workload.sampling_for(max_tokens))

    def targeting(self, host: str) -> RunContext:
        """The context with ``host`` as its endpoint when no --endpoints were given (the built-in
        simulator's URL is known only once it runs)."""
        if self.options.endpoints:
            return self
        return dataclasses.replace(self, endpoints=(Endpoint.parse(host),))
