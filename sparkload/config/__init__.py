"""Every sparkload option, defined once: flag, default, help, group, environment name, parser.

The table is one group of rows per module, each beside its typed options: ``plan.py`` (the load
plan), ``precision.py`` (``--target-precision`` and its bounds), ``target.py``, ``request.py``,
``workload.py``, ``results.py``, ``server_metrics.py``,
``distributed.py`` and ``simulator.py`` (the simulator's own options as ``--sim-*``); the value
parsers are ``parsers.py``'s; ``table.py`` composes the groups into ``OPTIONS`` and one run's
``RunOptions`` (``opts.plan.ladder``, ``opts.workload.name``).

``OPTIONS`` is the single source. From it come Locust's command-line, ``locust.conf``,
environment (``SPARKLOAD_<OPTION>``) and web-UI options (``sparkload.plugin.options``), the
validated ``RunOptions`` of a run (``from_namespace``), the keys a matrix file may set
(``matrix/spec.py``) and the environment docker-compose passes through (``environment_names``; a
test holds the compose file to it). Values from the web UI arrive as strings, so each option's
parser validates whatever the source. What a workload makes of the options (prefill's own
ladder, the output length) is the workload's: ``sparkload.workloads.registry.settle``.
"""

from sparkload.config.distributed import DistributedOptions
from sparkload.config.option import GROUP_ORDER, SIMULATOR, Option
from sparkload.config.plan import (
    ARRIVAL,
    ARRIVAL_PROCESSES,
    CONSTANT,
    GAMMA,
    LADDER,
    POISSON,
    STEPS,
    PlanOptions,
)
from sparkload.config.precision import PrecisionOptions
from sparkload.config.request import RequestOptions
from sparkload.config.results import ResultsOptions
from sparkload.config.server_metrics import ServerMetricsOptions
from sparkload.config.simulator import SIM_PROFILES, SimulatorOptions
from sparkload.config.table import (
    BY_DEST,
    GROUPS,
    OPTIONS,
    SIMULATOR_OPTIONS,
    RunOptions,
    changed,
    default,
    environment_names,
    from_namespace,
)
from sparkload.config.target import TargetOptions
from sparkload.config.workload import (
    HISTORIES,
    HISTORY_DATASET,
    HISTORY_MODEL,
    HISTORY_SERVER,
    OUTPUT_TOKENS,
    WorkloadOptions,
)

__all__ = [
    "ARRIVAL",
    "ARRIVAL_PROCESSES",
    "BY_DEST",
    "CONSTANT",
    "GAMMA",
    "GROUPS",
    "GROUP_ORDER",
    "HISTORIES",
    "HISTORY_DATASET",
    "HISTORY_MODEL",
    "HISTORY_SERVER",
    "LADDER",
    "OPTIONS",
    "OUTPUT_TOKENS",
    "POISSON",
    "SIMULATOR",
    "SIMULATOR_OPTIONS",
    "SIM_PROFILES",
    "STEPS",
    "DistributedOptions",
    "Option",
    "PlanOptions",
    "PrecisionOptions",
    "RequestOptions",
    "ResultsOptions",
    "RunOptions",
    "ServerMetricsOptions",
    "SimulatorOptions",
    "TargetOptions",
    "WorkloadOptions",
    "changed",
    "default",
    "environment_names",
    "from_namespace",
]
