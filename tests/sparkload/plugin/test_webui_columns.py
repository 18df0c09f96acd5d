"""The web UI tab's columns follow the run: TTFO's once records reasoned or called tools, the
plain table's otherwise (in the page's structure, the polled rows and the CSV alike)."""

from __future__ import annotations

import json
from types import SimpleNamespace

from flask import Flask, jsonify

from sparkload.plugin import webui
from sparkload.run.livetable import COLUMNS, THINKING_COLUMNS

PLAIN_ROW = {"level": 1, "n": 3, "failures": 0, "ttft_ms_mean": 30.0, "client": "ok"}
THINKING_ROW = {**PLAIN_ROW, "ttfo_ms_mean": 300.123, "ttfo_ms_p50": 299.0, "no_answer": 1}


def served(rows: list[dict]):
    """A Flask app standing in for Locust's web UI (an index page, the polled statistics), with
    the sparkload tab on it; the controller's rows are ``rows``."""
    app = Flask(__name__)
    app.add_url_rule("/", "index", lambda: "<html><head></head></html>")
    app.add_url_rule("/stats/requests", "request_stats", lambda: jsonify({"stats": []}))
    ui = SimpleNamespace(template_args={}, app=app, auth_required_if_enabled=lambda view: view)
    controller = SimpleNamespace(collector=None, last_rows=rows)
    webui.extend(ui, controller)
    return ui, app.test_client()


def structure_keys(ui) -> list[str]:
    (table,) = ui.template_args["extended_tables"]
    return [column["key"] for column in table["structure"]]


def test_a_plain_runs_tab_has_the_plain_columns():
    ui, client = served([PLAIN_ROW])
    client.get("/")
    assert structure_keys(ui) == [webui._camel(key) for key, _ in COLUMNS]
    data = client.get("/stats/requests").get_json()["extended_stats"][0]["data"]
    assert "ttfoMsMean" not in data[0]
    assert client.get(webui.CSV_ROUTE).text.splitlines()[0] == ",".join(k for k, _ in COLUMNS)


def test_a_thinking_runs_tab_gets_the_ttfo_columns_with_the_page():
    ui, client = served([THINKING_ROW])
    assert "ttfoMsMean" not in structure_keys(ui)  # nothing measured when the tab was set up
    client.get("/")
    assert structure_keys(ui) == [webui._camel(key) for key, _ in THINKING_COLUMNS]
    data = json.loads(client.get("/stats/requests").data)["extended_stats"][0]["data"]
    assert (data[0]["ttfoMsMean"], data[0]["noAnswer"]) == (300.12, 1)
    header = client.get(webui.CSV_ROUTE).text.splitlines()[0].split(",")
    assert header[6:10] == ["ttfo_ms_mean", "ttfo_ms_p50", "ttfo_ms_p90", "no_answer"]
