"""A "sparkload levels" tab in Locust's web UI: the exact per-level table, live.

The stock UI renders extra tables from ``template_args`` plus an ``extended_stats`` entry in the
``/stats/requests`` JSON it polls. It camel-cases JSON keys, so our keys are camelCase already.

The table's columns are the live table's (``livetable.columns_for``): TTFO's too once the run's
records reasoned or called tools. The UI reads the columns with the page, so they are set for
every page served from the rows at hand: a page opened before a thinking run's first records
shows the TTFO columns once reloaded (the rows, polled, and the CSV carry them at once).

A script may drive the UI over HTTP (``POST /swarm``, ``POST /stop``, docs/web-ui.md); a wrong
method gets a JSON answer naming the right one, not Werkzeug's HTML page.
"""

from __future__ import annotations

import csv
import io
import json

from flask import Response, jsonify, request
from werkzeug.exceptions import MethodNotAllowed

from sparkload.run.livetable import columns_for

TAB_KEY = "sparkload-levels"
CSV_ROUTE = "/sparkload/levels.csv"
# The start form's "Number of users" and "Ramp up" mean nothing to sparkload's shapes (Locust
# only greys them out): hidden, with a line saying what START runs instead.
START_FORM_STYLE = b"""<style>
.MuiFormControl-root:has(input[name="userCount"]),
.MuiFormControl-root:has(input[name="spawnRate"]) { display: none; }
form:has(input[name="userCount"])::before {
  content: "START runs sparkload's load plan: the ladder, steps or open-loop rates set under \
'Custom parameters' (sparkload: load plan).";
  display: block; margin: 8px 0; color: gray;
}
</style>"""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def ui_rows(rows: list[dict]) -> list[dict]:
    """Rows with camelCase keys and values rounded for display."""
    columns = columns_for(rows)
    return [{_camel(key): _display(row.get(key)) for key, _ in columns} for row in rows]


def table_structure(rows: list[dict]) -> list[dict]:
    """The tab's columns for ``rows`` (camelCase keys, titles)."""
    return [{"key": _camel(key), "title": title} for key, title in columns_for(rows)]


def _display(value: object) -> object:
    if value is None:
        return ""
    return round(value, 2) if isinstance(value, float) else value


def method_not_allowed(error: MethodNotAllowed) -> Response:
    """A wrong method (``GET /stop``) answered as Locust's routes answer: JSON, saying which
    method to use, with the ``Allow`` header."""
    methods = list(error.valid_methods or ())
    usable = [method for method in methods if method not in ("HEAD", "OPTIONS")] or methods
    message = f"{request.method} {request.path} is not allowed: use {' or '.join(usable)}"
    response = jsonify(success=False, message=message)
    response.status_code = error.code or 405
    response.headers["Allow"] = ", ".join(methods)
    return response


def extend(web_ui, controller) -> None:
    def current_rows() -> list[dict]:
        return (
            controller.collector.rows()
            if controller.collector is not None
            else controller.last_rows
        )

    def set_structure(rows: list[dict]) -> None:
        web_ui.template_args["extended_tables"] = [
            {"key": TAB_KEY, "structure": table_structure(rows)}
        ]

    web_ui.template_args["extended_tabs"] = [{"title": "sparkload levels", "key": TAB_KEY}]
    set_structure([])
    web_ui.template_args["extended_csv_files"] = [
        {"href": CSV_ROUTE, "title": "Download the sparkload per-level table (CSV)"}
    ]

    web_ui.app.register_error_handler(MethodNotAllowed, method_not_allowed)

    @web_ui.app.before_request
    def columns_of_the_run() -> None:
        if (request.endpoint or "").endswith("index"):  # the page reads its columns once
            set_structure(current_rows())

    @web_ui.app.after_request
    def add_level_table(response: Response) -> Response:
        if (request.endpoint or "").endswith("index") and response.status_code == 200:
            response.direct_passthrough = False
            page = response.get_data()
            response.set_data(page.replace(b"</head>", START_FORM_STYLE + b"</head>", 1))
            return response
        if request.path != "/stats/requests" or response.status_code != 200 or not response.is_json:
            return response
        data = response.get_json()
        data["extended_stats"] = [{"key": TAB_KEY, "data": ui_rows(current_rows())}]
        response.set_data(json.dumps(data))
        return response

    @web_ui.app.route(CSV_ROUTE)
    @web_ui.auth_required_if_enabled
    def level_table_csv() -> Response:
        out = io.StringIO()
        rows = current_rows()
        fields = [key for key, _ in columns_for(rows)]
        writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        return Response(
            out.getvalue(),
            mimetype="text/csv",
            headers={"Content-Disposition": "attachment; filename=sparkload_levels.csv"},
        )
