"""Locust glue: thin plugins on Locust's events (the rest of sparkload knows nothing of Locust).

Every process gets a ``Node`` (level signal, record shipper, users' sessions); the master or
local process also gets a ``RunController`` (the run itself). ``install`` registers both for a
locustfile; ``setup`` attaches them to one Environment (tests may hold several). Each process
takes its own secrets from its options first and blanks them there, so the options Locust sends
to workers carry none (``sparkload.hostsecrets``).
"""

from __future__ import annotations

import logging
import signal
import sys
from typing import Any, NoReturn

import gevent
from locust import events
from locust.env import Environment
from locust.runners import Runner, WorkerRunner

from sparkload import hostsecrets
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets
from sparkload.plugin import weblogin, webui
from sparkload.plugin.controller import RunController
from sparkload.plugin.node import Node
from sparkload.plugin.options import register
from sparkload.records import EXIT_BAD_INPUT

logger = logging.getLogger("sparkload")


def setup(environment: Environment) -> tuple[Node, RunController | None]:
    """Attach sparkload to one Environment; call once its runner exists (from ``init``).
    A ConfigError (a bad --secrets-file) comes out with its one line."""
    parsed = environment.parsed_options
    assert parsed is not None, "sparkload runs inside Locust's main"
    secrets = HostSecrets.capture(parsed)
    hostsecrets.blank(parsed)
    node = Node(environment, secrets)
    environment.sparkload_node = node  # type: ignore[attr-defined]
    controller = None if node.is_worker else RunController(environment, secrets)
    environment.sparkload_controller = controller  # type: ignore[attr-defined]

    def on_test_start(**_kwargs) -> None:
        node.begin_test(controller.context if controller is not None else None)

    def on_test_stop(**_kwargs) -> None:
        node.end_test()
        if controller is not None:
            controller.finish_run()
            controller.reset_run()

    options: Any = environment.parsed_options

    def on_quit(**_kwargs) -> None:
        if controller is not None and controller.final_summary and options.headless:
            print(controller.final_summary, flush=True)

    environment.events.test_start.add_listener(on_test_start)
    environment.events.test_stop.add_listener(on_test_stop)
    environment.events.quit.add_listener(on_quit)
    if controller is not None:
        environment.events.quitting.add_listener(lambda **_: controller.shut_down())
        if environment.web_ui:
            webui.extend(environment.web_ui, controller)
    return node, controller


def install() -> None:
    """Register the options and the init hook on Locust's global events (for locustfiles)."""
    events.init_command_line_parser.add_listener(register)
    events.init.add_listener(_on_init)


def _on_init(environment: Environment, runner: Runner, **_kwargs) -> None:
    try:
        _node, controller = setup(environment)
    except ConfigError as exc:
        _bad_input(exc)
    options: Any = environment.parsed_options
    if isinstance(runner, WorkerRunner) or controller is None:
        return
    # Locust installs its SIGTERM handler only after a headless shape run has ended; until then
    # SIGTERM (docker stop, kill) would end the process with the manifest still "running".
    gevent.signal_handler(signal.SIGTERM, lambda: _terminate(runner))
    try:
        if environment.web_ui and options.web_login:
            weblogin.enable(environment.web_ui, options.web_base_path or "")
        controller.prepare()
        if options.headless:
            controller.resolve_target()  # fail before any load, with one line
    except ConfigError as exc:
        controller.shut_down()
        _bad_input(exc)


def _bad_input(exc: ConfigError) -> NoReturn:
    sys.stderr.write(f"sparkload: error: {exc}\n")
    sys.stderr.flush()
    raise SystemExit(EXIT_BAD_INPUT) from None


def _terminate(runner: Runner) -> None:
    logger.warning("sparkload: SIGTERM received: stopping the run, keeping its records")
    gevent.spawn(runner.quit)
