"""What every process knows about the current run: built once per test, then only read.

The master (or local process) builds it once it has settled the target (``run/setup.py``: the
model, the time scale and the fitted prompts, ``sparkload_synthetic``); workers build theirs
from the options the master sends with the test's start (``RunContext.from_options``), so every
process sends the same requests, each with its own host's secrets (``sparkload.hostsecrets``):
the master sends none.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

from sparkload import config
from sparkload.apis import wire_api
from sparkload.body import BodyTemplate
from sparkload.config import RunOptions
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.inputs.schemas import JSON_SCHEMA, ReplyChecker, ResponseFormat
from sparkload.model_mix import ModelMix
from sparkload.quality.items import ItemSet
from sparkload.transport.client import build_headers
from sparkload.transport.target import Endpoint
from sparkload.workloads import registry
from sparkload.workloads.contract import PlannedRequest, Synthetic, Workload
from sparkload.workloads.images import RequestImages
from sparkload.workloads.tenants import TenantsWorkload


@dataclass(frozen=True)
class RunContext:
    options: RunOptions  # settled by the workload's rules
    workload: Workload[Any]
    endpoints: tuple[Endpoint, ...]
    headers: dict[str, str]  # every request's headers, this host's API key included (never written)
    # settled by the master before the load starts: one model, or a mix's spec (``model_mix``)
    model: str = ""
    time_scale: float = 1.0  # > 1 when the target is the time-scaled built-in simulator
    # --quality-probe's items (run/quality_probe.py), the master's: a probe runs in one process
    probe: ItemSet | None = None
    # the models the requests ask for: each user deals its own from it (``UserSession``)
    models: ModelMix = field(init=False)
    # every request body's template, composed once from the fields above (a mix's first model
    # unless a request names its own)
    body: BodyTemplate = field(init=False)
    # the verdict on every reply under --response-format (its validator compiled once)
    checker: ReplyChecker | None = field(init=False)
    # --images: the run's synthetic images, made once (None: none)
    images: RequestImages | None = field(init=False)
    # --tenants: each class's own body (its options' sampling and extras), by class name
    bodies: dict[str, BodyTemplate] = field(init=False)
    # --tenants: each class's models (its ``model``, one or a mix), by the class's spec of them
    class_models: dict[str, ModelMix] = field(init=False)
    _checkers: dict[int, ReplyChecker] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        workload = self.workload
        models = ModelMix.parse(self.model)
        object.__setattr__(self, "models", models)
        first = models.names[0] if models.names else ""
        body = BodyTemplate.for_run(self.options, workload.sampling, workload.max_tokens, first)
        object.__setattr__(self, "body", body)
        bodies, class_models = {}, {}
        if isinstance(workload, TenantsWorkload):
            class_models = {
                tenant.model: ModelMix.parse(tenant.model)
                for tenant in workload.classes
                if tenant.model is not None
            }
            bodies = {
                tenant.name: BodyTemplate.for_run(own, part.sampling, part.max_tokens, self.model)
                for tenant, part, own in zip(
                    workload.classes, workload.workloads, workload.options, strict=True
                )
            }
        object.__setattr__(self, "bodies", bodies)
        object.__setattr__(self, "class_models", class_models)
        fmt = self.options.request.response_format
        object.__setattr__(self, "checker", ReplyChecker(fmt) if fmt else None)
        object.__setattr__(self, "images", RequestImages.for_run(self.options))

    def body_for(self, planned: PlannedRequest) -> BodyTemplate:
        """The template ``planned`` is encoded with: its traffic class's, else the run's."""
        if planned.tenant is None:
            return self.body
        return self.bodies.get(planned.tenant, self.body)

    def models_for(self, planned: PlannedRequest) -> ModelMix:
        """The models ``planned`` may ask for: its class's (one, or a mix), else the run's."""
        if planned.model is None:
            return self.models
        return self.class_models.get(planned.model) or ModelMix.single(planned.model)

    def checker_for(self, planned: PlannedRequest) -> ReplyChecker | None:
        """The checker of ``planned``'s reply: its own schema's (compiled once per schema: a
        dataset's schemas live all run), else the run's ``--response-format``'s, else None."""
        if planned.schema is None:
            return self.checker
        own = self._checkers.get(id(planned.schema))
        if own is None:
            own = self._checkers[id(planned.schema)] = ReplyChecker(
                ResponseFormat(JSON_SCHEMA, "prompt", planned.schema)
            )
        return own

    @classmethod
    def from_options(
        cls, parsed: argparse.Namespace, host: str | None, secrets: HostSecrets | None = None
    ) -> RunContext:
        """A worker's context: the options the master sent carry what it settled (the model, the
        time scale, the fitted prompts). A ConfigError with one line if they are bad."""
        options = settled_options(parsed, secrets)
        synthetic = getattr(parsed, "sparkload_synthetic", None)
        return cls(
            options=options,
            workload=registry.load(
                options, Synthetic.from_message(synthetic) if synthetic else None
            ),
            endpoints=endpoints_of(options, host),
            headers=request_headers(options),
            model=str(getattr(parsed, "model", "") or ""),
            time_scale=float(getattr(parsed, "sparkload_time_scale", 1.0)),
        )


def settled_options(parsed: argparse.Namespace, secrets: HostSecrets | None) -> RunOptions:
    """The options validated, with this process's own secrets (``secrets``; None: the options
    still hold them), and settled by the chosen workload's rules."""
    own = secrets if secrets is not None else HostSecrets.capture(parsed)
    return registry.settle(own.into(config.from_namespace(parsed)))


def endpoints_of(options: RunOptions, host: str | None) -> tuple[Endpoint, ...]:
    """--endpoints, else the host (the built-in simulator's URL once it runs)."""
    urls = options.target.endpoints or ((host,) if host else ())
    return tuple(Endpoint.parse(url) for url in urls)


def request_headers(options: RunOptions) -> dict[str, str]:
    """Every request's headers: the API key (in its API's form), what the client accepts, the
    API's own (``WireApi.headers``: Messages' ``anthropic-version``) under the user's --header."""
    api, key = wire_api(options.request.api), options.target.api_key
    credentials = api.auth(key) if key else None
    given = {name.lower() for name in options.request.header}
    own = {name: value for name, value in api.headers.items() if name.lower() not in given}
    extra = {**own, **options.request.header}
    try:
        return build_headers(credentials, options.request.accept_encoding, extra)
    except ValueError as exc:
        raise ConfigError(f"--header: {exc}") from None
