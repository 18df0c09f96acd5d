"""What the shape of a level's streams says about the path between client and model server.

Something on the path can reshape a stream so that the client's figures no longer time the
model's decode steps: tokens collapsed into one burst make TTFT the time the whole answer took
and leave ITL undefined or near zero; part of the tokens held and released together (a proxy that
buffers the first N kilobytes) does the same to part of each request; headers held back until the
first token make TTFB a copy of TTFT; a late end makes latency carry the path's tail. None of this
shows in the figures themselves, so each level's records are checked once, afterwards (pure:
records in, verdict out).

Bursts are blamed only on what the evidence names (``PathEvidence``): an intermediary when the
responses identified one, else the client when its own check flagged the level (a starved client
reads late and finds several events at once), else the server's own delivery (a server that
sends a whole reply as one event, or releases its tokens in batches).

Every rule is a ratio to what the level itself measured, with a wide margin between what a
model server does and what a reshaped stream looks like, so the same path gets the same flags
run after run (a fixed threshold near a gateway's own delay would flip).

Records are dicts as the master takes them (``RequestRecord.to_dict``), durations in seconds of
wire time (not scaled to a time-scaled simulator's time: the thresholds are about real packets).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from sparkload.records import (
    STREAM_CLOCK_ADJUSTED,
    STREAM_COLLAPSED,
    STREAM_HEADERS_HELD,
    STREAM_LONG_TAIL,
    STREAM_PARTIAL_BURST,
)

# A model server emits tokens at least a decode step apart, hundreds of microseconds even for a
# tiny model on a fast GPU; consecutive events closer than this were released together.
COLLAPSED_GAP_S = 0.0002
# ...and when the first token arrives this close to the end, the whole answer came at once.
COLLAPSED_TTFT_SHARE = 0.9
# Share of a request's token chunks in its longest burst (``RequestRecord.burst_chunks``: chunks
# released together, see ``records.longest_burst``): a model server releases one chunk per step,
# so even a busy client's merged reads leave it at a few percent; from this share of the median
# request on, a quarter of every answer was held back by something in the path.
PARTIAL_BURST_SHARE = 0.25
COLLAPSED_BURST_SHARE = 0.9  # ...and from this share on, nearly the whole answer was
# Requests shorter than this say nothing about bursts, nor does a burst of fewer chunks: a
# server process descheduled for a few token times (a busy host) releases a few at once; a proxy
# that buffers holds kilobytes, dozens of events.
BURST_MIN_CHUNKS = 16
BURST_MIN_SIZE = 8
# A server that sends its headers on accepting the request does so a whole prefill (and queue)
# before the first token: TTFT − TTFB is most of TTFT. Headers held back for the first token
# leave only the intermediary's own processing between them, a few percent of TTFT.
HEADERS_HELD_SHARE = 0.2
# After the last token a server sends the usage chunk and [DONE] at once (at most a decode step
# later); an end later than this many token times (and this much absolute time) after the last
# token is the path's tail.
TAIL_ITL_MULTIPLE = 2.0
TAIL_MIN_S = 0.005
# Requests whose stamps had to be raised to keep time monotonic (``clock_adjusted``).
CLOCK_ADJUSTED_SHARE = 0.01


# Records of a level the check keeps at most: medians of a uniform sample of this many are as
# good as of all, and a level of a million requests then costs no more memory than one of this.
SAMPLE_SIZE = 4096
_SAMPLED_FIELDS = (
    "status",
    "ttfb",
    "ttft",
    "latency",
    "t_last_token",
    "chunk_gap_p50",
    "itl",
    "chunks",
    "burst_chunks",
    "output_tokens",
)


@dataclass
class LevelSample:
    """What the stream check keeps of a level's measured records: exact counts of the successful,
    the clock-adjusted and the resent ones, and the fields the rules read of a uniform sample of
    at most ``SAMPLE_SIZE`` of them (a seeded reservoir)."""

    seed: int = 0
    records: list[dict] = field(default_factory=list)
    ok: int = 0
    clock_adjusted: int = 0
    resent: int = 0
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def add(self, record: dict) -> None:
        if record.get("status") != "ok" or record.get("ttft") is None:
            return
        self.ok += 1
        self.clock_adjusted += bool(record.get("clock_adjusted"))
        self.resent += bool(record.get("resent"))
        kept = {name: record.get(name) for name in _SAMPLED_FIELDS}
        if len(self.records) < SAMPLE_SIZE:
            self.records.append(kept)
            return
        slot = self._rng.randrange(self.ok)
        if slot < SAMPLE_SIZE:
            self.records[slot] = kept

    def check(self, evidence: PathEvidence | None = None) -> LevelStreams:
        return level_stream_shape(self.records, self, evidence)


# What made a level's bursts (``StreamCheck.burst_cause``), as far as the evidence goes.
CAUSE_INTERMEDIARY = "intermediary"
CAUSE_CLIENT = "client"
CAUSE_SERVER = "server"


@dataclass(frozen=True)
class PathEvidence:
    """What else the run knows of the path a level's bursts could come from: the response
    headers that identified an intermediary (``transport.identity.intermediaries``) and the
    level's client-check flags (``clientcheck.level_verdict``)."""

    intermediaries: Sequence[str] = ()
    client_flags: Sequence[str] = ()

    def writers_only(self) -> PathEvidence:
        """The evidence for a burst the sender framed as one event: a late reader can join
        events that arrived apart, never make one, so the client's flags do not count."""
        return PathEvidence(self.intermediaries, ())

    def cause(self) -> str:
        if self.intermediaries:
            return CAUSE_INTERMEDIARY
        return CAUSE_CLIENT if self.client_flags else CAUSE_SERVER

    def blame(self, whole: bool) -> str:
        """What a burst's figures measure, naming only the cause the evidence supports
        (``whole``: the answer came in one burst, not part of it)."""
        cause = self.cause()
        if cause == CAUSE_INTERMEDIARY:
            return (
                f"TTFT and ITL measure the buffering of the intermediary on the path "
                f"({'; '.join(self.intermediaries)}), not the model server"
            )
        if cause == CAUSE_CLIENT:
            return (
                "the client read late (its client check flagged this level): TTFT and ITL "
                "measure the load generator, not the server"
            )
        return (
            f"arrived {'in one burst' if whole else 'in bursts'} from the server (no intermediary "
            "identified, client check ok): TTFT and ITL measure its bursty delivery, not steady "
            "decode steps"
        )


class LevelStreams(NamedTuple):
    """A level's stream-shape figures (medians over its successful requests), the flags raised
    (what each saw, in words) and their kinds (``records.STREAM_*``), in the same order."""

    summary: dict
    flags: list[str]
    kinds: list[str]


def level_stream_shape(
    records: list[dict],
    counts: LevelSample | None = None,
    evidence: PathEvidence | None = None,
) -> LevelStreams:
    """One level's stream check: from all its records, or from a ``LevelSample``'s sampled
    records and exact counts; ``evidence`` names what a burst is blamed on (none: the server)."""
    evidence = evidence or PathEvidence()
    ok = [r for r in records if r.get("status") == "ok" and r.get("ttft") is not None]
    total = counts.ok if counts else len(ok)
    summary: dict = {"requests": total}
    if not ok:
        return LevelStreams(summary, [], [])
    gap = _median(r.get("chunk_gap_p50") for r in ok)
    ttft_share = _median(r["ttft"] / r["latency"] for r in ok if r.get("latency"))
    headers_lead = _median(r["ttft"] - r["ttfb"] for r in ok if r.get("ttfb") is not None)
    headers_share = _median(
        (r["ttft"] - r["ttfb"]) / r["ttft"] for r in ok if r.get("ttfb") is not None and r["ttft"]
    )
    tail = _median(
        r["latency"] - r["t_last_token"]
        for r in ok
        if r.get("latency") is not None and r.get("t_last_token") is not None
    )
    itl = _median(r.get("itl") for r in ok)
    burst = _median_burst(ok)
    if burst is not None and burst.one_event:
        evidence = evidence.writers_only()
    adjusted = counts.clock_adjusted if counts else sum(bool(r.get("clock_adjusted")) for r in ok)
    resent = counts.resent if counts else sum(bool(r.get("resent")) for r in ok)
    summary.update(
        chunk_gap_p50_ms=_ms(gap),
        ttft_share_of_latency=_round(ttft_share),
        ttft_minus_ttfb_ms=_ms(headers_lead),
        ttft_minus_ttfb_share=_round(headers_share),
        tail_ms=_ms(tail),
        itl_ms=_ms(itl),
        burst_chunks=burst.chunks if burst else None,
        burst_of_chunks=burst.of if burst else None,
        clock_adjusted=adjusted,
        resent=resent,
    )
    flags: list[str] = []
    kinds: list[str] = []

    def flag(kind: str, text: str) -> None:
        kinds.append(kind)
        flags.append(text)

    collapsed_by_time = (
        gap is not None and gap < COLLAPSED_GAP_S and (ttft_share or 0) > COLLAPSED_TTFT_SHARE
    )
    if collapsed_by_time or (burst is not None and burst.holds(COLLAPSED_BURST_SHARE)):
        where = (
            f"median gap {1000 * gap:.3f} ms" if collapsed_by_time and gap is not None else burst
        )
        summary["burst_cause"] = evidence.cause()
        flag(
            STREAM_COLLAPSED,
            f"collapsed stream: tokens arrive in one burst ({where}, first token at "
            f"{100 * (ttft_share or 0):.0f} % of latency): {evidence.blame(whole=True)}",
        )
    elif burst is not None and burst.holds(PARTIAL_BURST_SHARE):
        summary["burst_cause"] = evidence.cause()
        flag(
            STREAM_PARTIAL_BURST,
            f"partial burst: {burst} (first token at {100 * (ttft_share or 0):.0f} % of "
            f"latency): {evidence.blame(whole=False)}",
        )
    if headers_share is not None and headers_share < HEADERS_HELD_SHARE:
        flag(
            STREAM_HEADERS_HELD,
            f"headers held back until the first token (TTFT − TTFB median "
            f"{1000 * (headers_lead or 0):.3f} ms, {100 * headers_share:.0f} % of TTFT), by the "
            "server or something in front of it: TTFB is not a separate measurement here",
        )
    if tail is not None and tail > max(TAIL_MIN_S, TAIL_ITL_MULTIPLE * (itl or 0.0)):
        flag(
            STREAM_LONG_TAIL,
            f"long tail after the last token (median {1000 * tail:.1f} ms"
            + (f", {tail / itl:.0f}x the ITL" if itl else "")
            + "): latency includes the path's tail",
        )
    if adjusted > CLOCK_ADJUSTED_SHARE * total:
        flag(
            STREAM_CLOCK_ADJUSTED,
            f"receive stamps raised to stay monotonic in {adjusted}/{total} requests: "
            "their times are bounded by the read, not the packet's arrival",
        )
    return LevelStreams(summary, flags, kinds)


class _Burst(NamedTuple):
    """The median request's longest burst: ``chunks`` of its ``of`` token chunks."""

    chunks: int
    of: int
    tokens_are_chunks: bool
    one_event: bool = False  # the reply's tokens came in one event: framed so by its sender

    @property
    def share(self) -> float:
        return self.chunks / self.of

    def holds(self, share: float) -> bool:
        """At least ``share`` of the request came in this burst, and the burst is no pair."""
        return self.share >= share and self.chunks >= BURST_MIN_SIZE

    def __str__(self) -> str:
        unit = "tokens" if self.tokens_are_chunks else "token chunks"
        return f"{self.chunks} of {self.of} {unit} of the median request arrived in one burst"


def _median_burst(ok: list[dict]) -> _Burst | None:
    """The burst of the request with the median burst share (the lower one of an even count),
    among requests long enough to tell; None when no request is."""
    bursts = sorted(filter(None, map(_request_burst, ok)), key=lambda b: b.share)
    if not bursts:
        return None
    return bursts[(len(bursts) - 1) // 2]


def _request_burst(record: dict) -> _Burst | None:
    """A request's longest burst, when it is long enough to tell. A reply that came as one
    chunk is a burst of all its tokens: no model server decodes ``BURST_MIN_CHUNKS`` tokens in
    one step, so one event carrying that many is the most collapsed stream there is."""
    chunks, tokens = record.get("chunks") or 0, record.get("output_tokens") or 0
    if chunks == 1 and tokens >= BURST_MIN_CHUNKS:
        return _Burst(tokens, tokens, True, one_event=True)
    if chunks >= BURST_MIN_CHUNKS and record.get("burst_chunks"):
        return _Burst(record["burst_chunks"], chunks, tokens == chunks)
    return None


def _median(values) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(1000 * seconds, 3)


def _round(share: float | None) -> float | None:
    return None if share is None else round(share, 3)


def short_name(kind: str, summary: Mapping[str, object]) -> str:
    """A flag as the live table shows it: its kind, with the figure that raised it (and a
    burst's cause: ``partial burst 21/30 from server``)."""
    burst = f" {summary.get('burst_chunks')}/{summary.get('burst_of_chunks')}"
    figure = {
        STREAM_COLLAPSED: burst if summary.get("burst_chunks") else "",
        STREAM_PARTIAL_BURST: burst,
        STREAM_HEADERS_HELD: f" {summary.get('ttft_minus_ttfb_ms')} ms",
        STREAM_LONG_TAIL: f" {summary.get('tail_ms')} ms",
        STREAM_CLOCK_ADJUSTED: f" {summary.get('clock_adjusted')}",
    }.get(kind, "")
    cause = summary.get("burst_cause") if kind in (STREAM_COLLAPSED, STREAM_PARTIAL_BURST) else None
    return kind.replace("_", " ") + figure + (f" from {cause}" if cause else "")
