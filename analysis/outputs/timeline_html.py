"""Request timelines as interactive pages (plotly): a horizontal bar per request.

Each request is two bars on its row: sent → first token (waiting: queue and prefill) and first →
last token (decoding); a failed request is one bar from its send to its end. The pages share the
report's ``plotly.min.js`` and are written as the charts are (``analysis.outputs.charts_html``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from analysis.outputs.charts_html import write_page
from analysis.views.timeline import Timeline

WAITING, DECODING, FAILED = "#f0a030", "#3070c0", "#d03030"


def _bars(
    rows: np.ndarray, start: np.ndarray, stop: np.ndarray, name: str, color: str, hover: list[str]
) -> dict[str, Any]:
    return {
        "type": "bar",
        "y": rows.tolist(),
        "base": start.tolist(),
        "x": (stop - start).tolist(),
        "orientation": "h",
        "name": name,
        "marker": {"color": color, "line": {"width": 0}},
        "hovertext": hover,
        "hoverinfo": "text",
    }


def figure(timeline: Timeline) -> dict[str, Any]:
    """The timeline as plotly.js's ``data`` (the waiting, decoding and failed bars) and
    ``layout``."""
    rows = np.arange(timeline.shown)
    ok = timeline.ok
    hover = [
        f"request {i}: sent {s:.3f} s, first token {f:.3f} s, last token {t:.3f} s, {n:.0f} tokens"
        for i, s, f, t, n in zip(
            rows,
            timeline.sent,
            timeline.first_token,
            timeline.last_token,
            timeline.output_tokens,
            strict=True,
        )
    ]
    traces = [
        _bars(
            rows[ok],
            timeline.sent[ok],
            timeline.first_token[ok],
            "sent → first token (queue + prefill)",
            WAITING,
            [h for h, good in zip(hover, ok, strict=True) if good],
        ),
        _bars(
            rows[ok],
            timeline.first_token[ok],
            timeline.last_token[ok],
            "first → last token (decoding)",
            DECODING,
            [h for h, good in zip(hover, ok, strict=True) if good],
        ),
    ]
    if (~ok).any():
        failed = [
            f"request {i}: failed, sent {s:.3f} s"
            for i, s in zip(rows[~ok], timeline.sent[~ok], strict=True)
        ]
        traces.append(
            _bars(rows[~ok], timeline.sent[~ok], timeline.end[~ok], "failed", FAILED, failed)
        )
    layout = {
        "title": {"text": f"{timeline.title}<br><sub>{timeline.subtitle}</sub>"},
        "barmode": "overlay",
        "bargap": 0.15,
        "xaxis": {"title": {"text": "Seconds since the level's first send"}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": "Request (send order)"}, "autorange": "reversed"},
        "height": min(4000, 250 + 6 * timeline.shown),
    }
    return {"data": traces, "layout": layout}


def render(timeline: Timeline, path: Path, report_dir: Path) -> None:
    write_page(figure(timeline), path, report_dir)
