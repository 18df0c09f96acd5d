"""A run's options as Locust parses them and the workload settles them, for tests."""

from __future__ import annotations

from locust.argument_parser import LocustArgumentParser

from sparkload import config
from sparkload.plugin.options import register
from sparkload.workloads import registry


def parsed_options(*args: str) -> config.RunOptions:
    """The options of ``locust ... ARGS`` as the option table validates them."""
    parser = LocustArgumentParser()
    register(parser)
    return config.from_namespace(parser.parse_args(list(args)))


def run_options(*args: str) -> config.RunOptions:
    """The options a run of ``locust ... ARGS`` runs with (settled by its workload)."""
    return registry.settle(parsed_options(*args))
