"""The server's own per-request figures: a response's ``metrics`` object → typed figures (pure).

vLLM started with ``--enable-per-request-metrics`` sends ``metrics`` with every response (when
streamed, in the last chunk, the one with usage): ``queue_time_ms`` (queued → scheduled),
``time_to_first_token_ms`` (scheduled → first token: prefill, not the queue),
``generation_time_ms`` (first token → last), ``mean_itl_ms`` and ``tokens_per_second`` (all
tokens over scheduled → last token). With ``--per-request-spec-decode-metrics summary|detailed``
also ``metrics.speculative_decoding``: ``mean_acceptance_length`` (the bonus token included),
``draft_acceptance_rate``, ``acceptance_histogram`` (index j: the verify steps that accepted
exactly j drafts), ``num_spec_steps``, ``num_accepted_draft_tokens``, ``num_draft_tokens``,
``num_spec_tokens`` (and at ``detailed`` per-step arrays, not kept). vLLM 0.32's
``PerRequestMetrics`` and ``RequestSpecDecodeMetrics.to_dict``; its names are read here only.

Nothing is made up: a field that is missing, of another type, negative or not finite is None,
and so are an acceptance length and rate of a request with no verify step (vLLM then says 1.0
and 0.0, figures of nothing). A malformed object is never a failed request.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sparkload.records import RequestRecord

MS_PER_S = 1000  # vLLM's times are in milliseconds, the record's in seconds


@dataclass(frozen=True, slots=True)
class ServerFigures:
    """One request as its server timed it, in the record's units (seconds, tokens/s, counts)."""

    queue: float | None = None  # queued → scheduled
    ttft: float | None = None  # scheduled → first token (the server's prefill)
    generation: float | None = None  # first token → last
    itl: float | None = None
    tps: float | None = None
    acceptance_length: float | None = None  # tokens per verify step, the bonus token included
    acceptance_rate: float | None = None  # accepted drafts / drafts
    histogram: list[int] | None = None  # index j: verify steps that accepted exactly j drafts
    steps: int | None = None  # verify steps
    accepted: int | None = None  # accepted draft tokens
    drafts: int | None = None  # proposed draft tokens


def read(metrics: object) -> ServerFigures | None:
    """The figures of a response's ``metrics`` object (None: no object, or nothing usable)."""
    if not isinstance(metrics, dict):
        return None
    spec = metrics.get("speculative_decoding")
    spec = spec if isinstance(spec, dict) else {}
    steps = _count(spec.get("num_spec_steps"))
    drafts = _count(spec.get("num_draft_tokens"))
    figures = ServerFigures(
        queue=_ms(metrics.get("queue_time_ms")),
        ttft=_ms(metrics.get("time_to_first_token_ms")),
        generation=_ms(metrics.get("generation_time_ms")),
        itl=_ms(metrics.get("mean_itl_ms")),
        tps=_number(metrics.get("tokens_per_second")),
        acceptance_length=_number(spec.get("mean_acceptance_length")) if steps else None,
        acceptance_rate=_number(spec.get("draft_acceptance_rate")) if steps and drafts else None,
        histogram=_counts(spec.get("acceptance_histogram")),
        steps=steps,
        accepted=_count(spec.get("num_accepted_draft_tokens")),
        drafts=drafts,
    )
    return None if figures == ServerFigures() else figures


def fill(record: RequestRecord, metrics: object) -> None:
    """Write the figures of ``metrics`` (a stream's raw object) into ``record``; nothing where
    the server sent none."""
    figures = read(metrics)
    if figures is None:
        return
    record.server_queue, record.server_ttft = figures.queue, figures.ttft
    record.server_generation, record.server_itl = figures.generation, figures.itl
    record.server_tps = figures.tps
    record.acceptance_length, record.acceptance_rate = (
        figures.acceptance_length,
        figures.acceptance_rate,
    )
    record.spec_histogram, record.spec_steps = figures.histogram, figures.steps
    record.spec_accepted, record.spec_drafts = figures.accepted, figures.drafts


def _number(value: object) -> float | None:
    """A finite, non-negative number (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) and value >= 0 else None


def _ms(value: object) -> float | None:
    number = _number(value)
    return None if number is None else number / MS_PER_S


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _counts(value: object) -> list[int] | None:
    """A histogram: a non-empty list of counts, else None."""
    if not isinstance(value, list) or not value:
        return None
    counts = [_count(v) for v in value]
    return None if None in counts else value
