"""The option table composed: its groups' rows in one table, and one run's typed options.

``OPTIONS`` is every group's ``ROWS`` in order; ``RunOptions`` holds one typed options object
per group (``opts.plan.ladder``, ``opts.request.api``), each field named by its row
(``Option.field_name``), so the table and the types cannot drift apart without
``from_namespace`` failing (a test holds each group's fields to its rows).
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from typing import Any

from sparkload.config import (
    distributed,
    plan,
    precision,
    request,
    results,
    scenario,
    server_metrics,
    simulator,
    target,
    workload,
)
from sparkload.config.option import Option


@dataclass(frozen=True)
class RunOptions:
    """One run's validated options (``from_namespace``); every process builds the same."""

    plan: plan.PlanOptions
    precision: precision.PrecisionOptions
    target: target.TargetOptions
    request: request.RequestOptions
    workload: workload.WorkloadOptions
    results: results.ResultsOptions
    server_metrics: server_metrics.ServerMetricsOptions
    distributed: distributed.DistributedOptions
    simulator: simulator.SimulatorOptions
    scenario: scenario.ScenarioOptions

    @property
    def mode(self) -> str:
        """The manifest's mode: scenario (``--scenario``), else the plan's own (ladder, steps,
        arrival)."""
        return scenario.SCENARIO if self.scenario.scenario else self.plan.mode

    @property
    def level_count(self) -> int:
        """Levels of one run of the plan: a scenario's phases, else the plan's levels."""
        return len(self.scenario.phases) or self.plan.level_count


# RunOptions' field -> the group's typed options and its rows, in the table's order
GROUPS: dict[str, tuple[type, tuple[Option, ...]]] = {
    "plan": (plan.PlanOptions, plan.ROWS),
    "precision": (precision.PrecisionOptions, precision.ROWS),
    "target": (target.TargetOptions, target.ROWS),
    "request": (request.RequestOptions, request.ROWS),
    "workload": (workload.WorkloadOptions, workload.ROWS),
    "results": (results.ResultsOptions, results.ROWS),
    "server_metrics": (server_metrics.ServerMetricsOptions, server_metrics.ROWS),
    "distributed": (distributed.DistributedOptions, distributed.ROWS),
    "simulator": (simulator.SimulatorOptions, simulator.ROWS),
    "scenario": (scenario.ScenarioOptions, scenario.ROWS),
}
OPTIONS: tuple[Option, ...] = tuple(row for _, rows in GROUPS.values() for row in rows)
BY_DEST: dict[str, Option] = {option.dest: option for option in OPTIONS}
_GROUP_OF: dict[str, str] = {row.dest: name for name, (_, rows) in GROUPS.items() for row in rows}
SIMULATOR_OPTIONS = simulator.ROWS


def default(dest: str) -> Any:
    """An option's parsed default (``default("ladder") == (1, 2, 4, 8, 16)``)."""
    return BY_DEST[dest].value(None)


def environment_names() -> list[str]:
    return [option.env_var for option in OPTIONS]


def from_namespace(ns: argparse.Namespace) -> RunOptions:
    """Validate Locust's parsed options (CLI, conf file, env or web form) into RunOptions, each
    by its own parser, and the load plan's rules across options (the chosen workload settles
    them further: ``workloads.registry.settle``)."""
    options = RunOptions(
        **{
            name: cls(**{row.field_name: row.value(getattr(ns, row.dest, None)) for row in rows})
            for name, (cls, rows) in GROUPS.items()
        }
    )
    options.plan.check()
    options.precision.check(options.plan)
    options.scenario.check(options.plan)
    return options


def changed(opts: RunOptions, **values: Any) -> RunOptions:
    """``opts`` with some options set anew, each named by its ``dest`` as the table names it
    (``changed(opts, workload="trace", max_tokens=1)``), already parsed values."""
    by_group: dict[str, dict[str, Any]] = {}
    for dest, value in values.items():
        by_group.setdefault(_GROUP_OF[dest], {})[BY_DEST[dest].field_name] = value
    return dataclasses.replace(
        opts,
        **{
            name: dataclasses.replace(getattr(opts, name), **fields)
            for name, fields in by_group.items()
        },
    )
