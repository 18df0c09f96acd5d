"""What the shape of a level's streams says about the path between client and model server.

An intermediary (a buffering proxy, a gateway) can reshape a stream so that the client's
figures measure it instead of the model server: tokens collapsed into one burst make TTFT the
proxy's buffering time and ITL zero; headers held back until the first token make TTFB a copy
of TTFT; a late end makes latency carry the path's tail. None of this shows in the figures
themselves, so each level's records are checked once, afterwards (pure: records in, verdict out).

Records are dicts as written to requests.jsonl, durations in seconds of wire time (not scaled
to a time-scaled simulator's time: the thresholds are about real packets).
"""

from __future__ import annotations

import statistics

# A model server emits tokens at least a decode step apart, hundreds of microseconds even for a
# tiny model on a fast GPU; consecutive events closer than this were released together.
COLLAPSED_GAP_S = 0.0002
# ...and when the first token arrives this close to the end, the whole answer came at once.
COLLAPSED_TTFT_SHARE = 0.9
# A server that sends its headers on accepting the request does so a prefill before the first
# token (milliseconds at least); headers within this of the first token were held back for it.
HEADERS_HELD_S = 0.001
# After the last token a server sends the usage chunk and [DONE] at once; an end later than
# this many token times (and this much absolute time) after the last token is the path's tail.
TAIL_ITL_MULTIPLE = 3.0
TAIL_MIN_S = 0.005
# Requests whose stamps had to be raised to keep time monotonic (``clock_adjusted``).
CLOCK_ADJUSTED_SHARE = 0.01


def level_stream_shape(records: list[dict]) -> tuple[dict, list[str]]:
    """One level's stream-shape summary (medians over its successful requests) and its flags."""
    ok = [r for r in records if r.get("status") == "ok" and r.get("ttft") is not None]
    summary: dict = {"requests": len(ok)}
    if not ok:
        return summary, []
    gap = _median(r.get("chunk_gap_p50") for r in ok)
    ttft_share = _median(r["ttft"] / r["latency"] for r in ok if r.get("latency"))
    headers_lead = _median(r["ttft"] - r["ttfb"] for r in ok if r.get("ttfb") is not None)
    tail = _median(
        r["latency"] - r["t_last_token"]
        for r in ok
        if r.get("latency") is not None and r.get("t_last_token") is not None
    )
    itl = _median(r.get("itl") for r in ok)
    adjusted = sum(bool(r.get("clock_adjusted")) for r in ok)
    summary.update(
        chunk_gap_p50_ms=_ms(gap),
        ttft_share_of_latency=None if ttft_share is None else round(ttft_share, 3),
        ttft_minus_ttfb_ms=_ms(headers_lead),
        tail_ms=_ms(tail),
        itl_ms=_ms(itl),
        clock_adjusted=adjusted,
        resent=sum(bool(r.get("resent")) for r in ok),
    )
    flags = []
    if gap is not None and gap < COLLAPSED_GAP_S and (ttft_share or 0) > COLLAPSED_TTFT_SHARE:
        flags.append(
            f"collapsed stream: tokens arrive in one burst (median gap {1000 * gap:.3f} ms, first "
            f"token at {100 * (ttft_share or 0):.0f} % of latency): TTFT and ITL measure the "
            "intermediary's buffering, not the model server"
        )
    if headers_lead is not None and headers_lead < HEADERS_HELD_S:
        flags.append(
            f"headers held back until the first token (TTFT − TTFB median "
            f"{1000 * headers_lead:.3f} ms): TTFB is not a separate measurement here"
        )
    if tail is not None and tail > max(TAIL_MIN_S, TAIL_ITL_MULTIPLE * (itl or 0.0)):
        flags.append(
            f"long tail after the last token (median {1000 * tail:.1f} ms"
            + (f", {tail / itl:.0f}x the ITL" if itl else "")
            + "): latency includes the path's tail"
        )
    if adjusted > CLOCK_ADJUSTED_SHARE * len(ok):
        flags.append(
            f"receive stamps raised to stay monotonic in {adjusted}/{len(ok)} requests: "
            "their times are bounded by the read, not the packet's arrival"
        )
    return summary, flags


def _median(values) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(1000 * seconds, 3)
