"""Locust glue: thin plugins on Locust's events (the rest of sparkload knows nothing of Locust)."""

from __future__ import annotations

import logging
import signal
import sys

import gevent
from locust import events
from locust.env import Environment
from locust.runners import WorkerRunner

from sparkload import options
from sparkload.options import ConfigError
from sparkload.plugin import core, weblogin, webui


def setup(environment: Environment) -> core.Sparkload:
    """Attach sparkload to one Environment; call once its runner exists (from ``init``)."""
    plugin = core.Sparkload(environment)
    environment.sparkload = plugin  # type: ignore[attr-defined]
    environment.events.test_start.add_listener(lambda **_: plugin.start_test())
    environment.events.test_stop.add_listener(lambda **_: _stop(plugin))
    environment.events.quitting.add_listener(lambda **_: _quit(plugin))
    environment.events.quit.add_listener(lambda **_: _print_summary(plugin))
    if environment.web_ui:
        webui.extend(environment.web_ui, plugin)
    return plugin


def _stop(plugin: core.Sparkload) -> None:
    plugin.stop_test()
    if not plugin.is_worker:
        plugin.finish_run()
        plugin.reset_run()


def _quit(plugin: core.Sparkload) -> None:
    if plugin.simulator is not None:
        plugin.simulator.stop()


def _print_summary(plugin: core.Sparkload) -> None:
    if plugin.final_summary and plugin.environment.parsed_options.headless:
        print(plugin.final_summary, flush=True)


def install() -> None:
    """Register the options and the init hook on Locust's global events (for locustfiles)."""
    events.init_command_line_parser.add_listener(options.register)
    events.init.add_listener(_on_init)


def _on_init(environment: Environment, runner, **_kwargs) -> None:
    plugin = setup(environment)
    if isinstance(runner, WorkerRunner):
        return
    # Locust installs its SIGTERM handler only after a headless shape run has ended; until then
    # SIGTERM (docker stop, kill) would end the process with the manifest still "running".
    gevent.signal_handler(signal.SIGTERM, lambda: _terminate(runner))
    try:
        if environment.web_ui and environment.parsed_options.web_login:
            weblogin.enable(environment.web_ui, environment.parsed_options.web_base_path or "")
        plugin.prepare()
        if environment.parsed_options.headless:
            plugin.resolve_target()  # fail before any load, with one line
    except ConfigError as exc:
        _exit_with(plugin, str(exc))


def _terminate(runner) -> None:
    logging.getLogger("sparkload").warning(
        "sparkload: SIGTERM received: stopping the run, keeping its records"
    )
    gevent.spawn(runner.quit)


def _exit_with(plugin: core.Sparkload, message: str) -> None:
    if plugin.simulator is not None:
        plugin.simulator.stop()
    sys.stderr.write(f"sparkload: error: {message}\n")
    sys.stderr.flush()
    raise SystemExit(2)
