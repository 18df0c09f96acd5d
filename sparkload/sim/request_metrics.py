"""vLLM's per-request ``metrics`` object, from the simulator's own schedule of the request.

vLLM 0.32 started with ``--enable-per-request-metrics --per-request-spec-decode-metrics
summary`` puts ``metrics`` in every response: the non-streamed body, and the last chunk of a
stream (the one with the usage). Its times come from the engine's stamps of the request
(vLLM's ``RequestStateStats``), and the simulator takes the same stamps off its own schedule:

  queued     the engine receives the request (after the API server's front end)
  scheduled  the step that first schedules it begins (a preempted request keeps its first)
  first      the step that samples its first token ends
  last       the step that samples its last token ends

  queue_time_ms           scheduled - queued
  time_to_first_token_ms  first - scheduled (the server's prefill to the first token)
  generation_time_ms      last - first (the decode interval only: vLLM's
                          ``build_per_request_timing_metrics``)
  mean_itl_ms             (last - first) / (tokens - 1)
  tokens_per_second       tokens / (last - scheduled) (its prefill counted, as vLLM's is)

``speculative_decoding`` (only while the simulated engine drafts): the request's own verify
steps, as ``engine.Engine`` drew them (one model of drafting: the same draws that decide how
many tokens each step streams). ``acceptance_histogram[j]`` counts the steps that accepted
exactly j of the k drafts (length k + 1); ``mean_acceptance_length`` = 1 + accepted / steps,
in [1, k + 1]; ``draft_acceptance_rate`` = accepted / (steps x k).

Units. The stamps are this process's real seconds and the figures are real milliseconds, as a
real server's own clock gives them: a record's server times are then on the client's time base
(real), and the analysis scales both alike (``records.scale_to_simulated_time``), so a level's
TTFT split adds up at any ``--time-scale``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Schedule:
    """One request's stamps (real seconds of the event loop's clock) and its verify steps, filled
    by the backend as the engine schedules and advances it."""

    queued: float | None = None
    scheduled: float | None = None
    first: float | None = None
    last: float | None = None
    num_spec_tokens: int = 0  # k: the drafts of each verify step (0: the engine does not draft)
    acceptance_histogram: list[int] = field(default_factory=list)  # the engine's, shared

    def schedule_at(self, start: float) -> None:
        """The step that first schedules it began at ``start``: never before it was queued (a
        step the event loop planned late starts on time, which may be before the request came)."""
        self.scheduled = start if self.queued is None else max(start, self.queued)

    def note_tokens(self, at: float) -> None:
        """Tokens of this request were sampled by a step that ended at ``at``."""
        if self.first is None:
            self.first = at
        self.last = at


def _ms(start: float | None, end: float | None) -> float | None:
    if start is None or end is None:
        return None
    return round(max(0.0, end - start) * 1000.0, 3)


def speculative_decoding(histogram: list[int], k: int) -> dict[str, Any]:
    """The ``speculative_decoding`` summary of one request's verify steps."""
    steps = sum(histogram)
    accepted = sum(j * count for j, count in enumerate(histogram))
    drafts = steps * k
    return {
        "mean_acceptance_length": 1.0 + accepted / steps if steps else None,
        "draft_acceptance_rate": accepted / drafts if drafts else None,
        "acceptance_histogram": list(histogram),
        "num_spec_steps": steps,
        "num_accepted_draft_tokens": accepted,
        "num_draft_tokens": drafts,
        "num_spec_tokens": k,
    }


def metrics(schedule: Schedule, tokens: int) -> dict[str, Any]:
    """The ``metrics`` object of a request that produced ``tokens`` (real milliseconds)."""
    decode = _ms(schedule.first, schedule.last)
    inference = _ms(schedule.scheduled, schedule.last)
    out: dict[str, Any] = {
        "time_to_first_token_ms": _ms(schedule.scheduled, schedule.first),
        "queue_time_ms": _ms(schedule.queued, schedule.scheduled),
        "generation_time_ms": decode,
        "mean_itl_ms": round(decode / (tokens - 1), 3)
        if decode is not None and tokens > 1
        else None,
        "tokens_per_second": round(tokens / inference * 1000.0, 3) if inference else None,
    }
    if schedule.num_spec_tokens:
        out["speculative_decoding"] = speculative_decoding(
            schedule.acceptance_histogram, schedule.num_spec_tokens
        )
    return out
