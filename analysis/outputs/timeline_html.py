"""Request timelines as interactive pages (plotly): a horizontal bar per request.

Each request is two bars on its row: sent → first token (waiting: queue and prefill) and first →
last token (decoding); a failed request is one bar from its send to its end. The pages share the
report's ``plotly.min.js`` like the charts (``analysis.outputs.charts_html``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from analysis.outputs.charts_html import PLOTLY_JS
from analysis.views.timeline import Timeline

WAITING, DECODING, FAILED = "#f0a030", "#3070c0", "#d03030"


def _bars(
    rows: np.ndarray, start: np.ndarray, stop: np.ndarray, name: str, color: str, hover: list[str]
) -> go.Bar:
    return go.Bar(
        y=rows.tolist(),
        base=start.tolist(),
        x=(stop - start).tolist(),
        orientation="h",
        name=name,
        marker=dict(color=color, line=dict(width=0)),
        hovertext=hover,
        hoverinfo="text",
    )


def figure(timeline: Timeline) -> go.Figure:
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
    result = go.Figure(traces)
    result.update_layout(
        title=dict(text=f"{timeline.title}<br><sub>{timeline.subtitle}</sub>"),
        barmode="overlay",
        bargap=0.15,
        xaxis=dict(title="Seconds since the level's first send", rangemode="tozero"),
        yaxis=dict(title="Request (send order)", autorange="reversed"),
        template="plotly_white",
        height=min(4000, 250 + 6 * timeline.shown),
    )
    return result


def render(timeline: Timeline, path: Path, report_dir: Path) -> None:
    script = os.path.relpath(report_dir / PLOTLY_JS, path.parent).replace(os.sep, "/")
    page = pio.to_html(figure(timeline), include_plotlyjs=script, full_html=True)
    path.write_text(page, encoding="utf-8")
