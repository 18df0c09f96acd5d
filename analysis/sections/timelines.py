"""Request timelines: one interactive page per level, a bar per request."""

from __future__ import annotations

from analysis.document import Block, Section
from analysis.sections import Context
from analysis.views.timeline import MAX_BARS

INTRO = (
    "One interactive page per level (plotly, in the report folder's `timelines/`; not written "
    "with `--no-charts`): a row per measured request in send order, its bar from the send to "
    "the first token (queue and prefill) and on to the last token (decoding); a failed request "
    "is one red bar to its end. Times are seconds since the level's first send, in the "
    "target's time. A long prefill that stalls every decoding stream shows as a column of "
    f"stretched decode bars. A level of more than {MAX_BARS} requests shows {MAX_BARS} "
    "consecutive ones from the middle of its send order (a stall is seen only beside every "
    "stream that ran with it), and its page says which."
)


def build(context: Context) -> Section | None:
    if not context.timelines:
        return None
    by_run: dict[tuple[str, str], list[str]] = {}
    for timeline in context.timelines:
        sampled = f" ({timeline.shown} of {timeline.total})" if timeline.sampled else ""
        by_run.setdefault((timeline.label, timeline.run), []).append(
            f"[{timeline.level}{sampled}]({timeline.folder}/{timeline.key}.html)"
        )
    blocks: list[Block] = [INTRO]
    blocks += [
        f"**{label}** (`{run}`): " + " · ".join(links) for (label, run), links in by_run.items()
    ]
    return Section("Request timelines", blocks)
