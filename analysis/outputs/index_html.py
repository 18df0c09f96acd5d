"""index.html: one page linking the report, the CSVs and every chart (PNG thumbnails)."""

from __future__ import annotations

import html
from pathlib import Path

from analysis.document import Report
from analysis.outputs.csv import SUMMARY_FILE, TABLES_FOLDER
from analysis.outputs.markdown import REPORT_FILE
from analysis.outputs.summary_json import FILE as SUMMARY_JSON
from analysis.views.charts import COMPARISON_FOLDER
from analysis.views.tables import labels_of, slug
from analysis.views.timeline import FOLDER as TIMELINES_FOLDER

SUMMARY_FILES = (SUMMARY_FILE, SUMMARY_JSON)
_STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px}
.grid{display:flex;flex-wrap:wrap;gap:12px}.grid figure{margin:0;width:320px}
.grid img{width:320px;border:1px solid #ddd}figcaption{font-size:.85em}"""


def _chart_grid(charts, folder: str) -> str:
    figures = []
    for chart in charts:
        if chart.folder != folder:
            continue
        base, title = html.escape(f"{folder}/{chart.key}"), html.escape(chart.title)
        figures.append(
            f'<figure><a href="{base}.html"><img src="{base}.png" alt="{title}"></a>'
            f'<figcaption>{title} (<a href="{base}.html">interactive</a>)</figcaption></figure>'
        )
    return '<div class="grid">' + "".join(figures) + "</div>"


def write(report: Report, out_dir: Path, with_charts: bool) -> None:
    body = [
        f"<h1>{html.escape(report.title)}</h1>",
        "<p>"
        + " · ".join(f'<a href="{name}">{name}</a>' for name in (REPORT_FILE, *SUMMARY_FILES))
        + "</p>",
    ]
    if with_charts:
        body += ["<h2>Comparison</h2>", _chart_grid(report.charts, COMPARISON_FOLDER)]
    for label in labels_of(report.summary):
        folder = slug(label)
        body.append(
            f'<h2>{html.escape(label)}</h2><p><a href="{folder}/{folder}.csv">{folder}.csv</a></p>'
        )
        if with_charts:
            body.append(_chart_grid(report.charts, folder))
    if with_charts and report.timelines:
        pages = "".join(
            f'<li><a href="{TIMELINES_FOLDER}/{html.escape(t.key)}.html">{html.escape(t.title)}'
            "</a></li>"
            for t in report.timelines
        )
        body.append(f"<h2>Request timelines</h2><ul>{pages}</ul>")
    links = "".join(
        f'<li><a href="{TABLES_FOLDER}/{t.key}.csv">{html.escape(t.title)}</a></li>'
        for t in report.tables
    )
    body.append(f"<h2>Tables (CSV)</h2><ul>{links}</ul>")
    page = (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(report.title)}</title>"
        f"<style>{_STYLE}</style></head><body>{''.join(body)}</body></html>"
    )
    (out_dir / "index.html").write_text(page, encoding="utf-8")
