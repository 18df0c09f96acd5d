"""--prometheus-port's glue: the server listens where the options say, moves when they change,
and the run's collector gets the metrics as its watcher only when the port is set."""

from __future__ import annotations

import dataclasses

import requests

from sparkload import config
from sparkload.plugin.prometheus import PrometheusPlugin
from tests.conftest import free_port


def results(port: int) -> config.ResultsOptions:
    defaults = {row.field_name: row.value(None) for row in config.GROUPS["results"][1]}
    options = config.ResultsOptions(**defaults)
    return dataclasses.replace(options, prometheus_port=port, prometheus_host="127.0.0.1")


def answers(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/metrics", timeout=2).status_code == 200
    except requests.ConnectionError:
        return False


def test_the_live_metrics_are_off_by_default():
    assert config.default("prometheus_port") == 0
    assert PrometheusPlugin().serve(results(0)) is None


def test_a_port_serves_the_metrics_the_collector_is_given():
    plugin, port = PrometheusPlugin(), free_port()
    try:
        watcher = plugin.serve(results(port))
        assert watcher is plugin.metrics and answers(port)
    finally:
        plugin.stop()
    assert not answers(port)


def test_the_same_options_again_keep_the_server_that_listens():
    plugin, port = PrometheusPlugin(), free_port()
    try:
        plugin.serve(results(port))
        server = plugin.server
        plugin.serve(results(port))
        assert plugin.server is server
    finally:
        plugin.stop()


def test_the_server_moves_when_the_next_run_names_another_port():
    plugin, first, second = PrometheusPlugin(), free_port(), free_port()
    try:
        plugin.serve(results(first))
        plugin.serve(results(second))
        assert answers(second) and not answers(first)
        assert plugin.serve(results(0)) is None and not answers(second)
    finally:
        plugin.stop()
