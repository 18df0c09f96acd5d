"""Fault injection: which requests fail, and how.

A fault spec is ``kind=rate`` pairs, e.g. ``"http_500=0.1,disconnect=0.05"``; rates are
probabilities per request and may sum to at most 1. The choice is drawn from a seeded RNG in
arrival order, so a run with the same seed and the same request order fails the same requests.
A request can also force one kind with the ``X-Sparkload-Fault`` header (tests use this).

Wire behaviour of each kind (the load side's failure class in brackets):

- ``http_500`` / ``http_429``: an HTTP error with an OpenAI error object, before any stream
  [``http_500`` / ``http_429``].
- ``disconnect``: a few tokens, then the TCP connection is reset mid-stream, no ``[DONE]``
  [``disconnect``].
- ``malformed_sse``: a few tokens, then one ``data: {`` line that is not valid JSON; the stream
  then continues normally [``malformed_sse``].
- ``error_event``: a few tokens, then vLLM's mid-stream ``data: {"error": {...}}`` and
  ``data: [DONE]`` [``server_error_event``].
- ``stall``: a few tokens, then silence with the connection held open until the client gives
  up (bounded: ``STALL_SECONDS`` of real time) [``timeout``].
- ``no_done``: every token and the usage chunk, then a clean end of the response without
  ``data: [DONE]`` [``disconnect``].
- ``huge``: tokens past ``max_tokens`` without end (bounded: ``HUGE_SECONDS`` of real time or
  ``HUGE_TOKENS``) [``timeout``].

"Connection refused" needs no fault: it is what a client sees when no server runs.
"""

from __future__ import annotations

import random

FAULT_KINDS = (
    "http_500",
    "http_429",
    "disconnect",
    "malformed_sse",
    "error_event",
    "stall",
    "no_done",
    "huge",
)
FAULT_HEADER = "X-Sparkload-Fault"
TOKENS_BEFORE_FAULT = 3  # visible chunks a mid-stream fault lets through first
STALL_SECONDS = 600.0
HUGE_SECONDS = 600.0
HUGE_TOKENS = 1_000_000


def parse_fault_spec(text: str) -> dict[str, float]:
    """``"http_500=0.1,stall=0.05"`` -> rates; ``ValueError`` with a one-line reason otherwise."""
    rates: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, sep, value = item.partition("=")
        kind = kind.strip()
        if not sep:
            raise ValueError(f"fault {item!r} needs a rate, e.g. {kind}=0.1")
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; known: {', '.join(FAULT_KINDS)}")
        if kind in rates:
            raise ValueError(f"fault kind {kind!r} given twice")
        try:
            rate = float(value)
        except ValueError:
            raise ValueError(f"rate of {kind!r} is not a number: {value.strip()!r}") from None
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate of {kind!r} must be between 0 and 1, not {rate}")
        rates[kind] = rate
    if sum(rates.values()) > 1.0 + 1e-9:
        raise ValueError(f"fault rates sum to {sum(rates.values()):g}, more than 1")
    return rates


class FaultPicker:
    """Seeded per-request choice; a forced kind (from the request header) always wins."""

    def __init__(self, rates: dict[str, float], seed: int = 0) -> None:
        self._rates = rates
        self._rng = random.Random(seed)

    def pick(self, forced: str | None = None) -> str | None:
        if forced is not None:
            if forced not in FAULT_KINDS:
                raise ValueError(f"unknown fault kind {forced!r}")
            return forced
        if not self._rates:
            return None
        draw = self._rng.random()
        for kind, rate in self._rates.items():
            if draw < rate:
                return kind
            draw -= rate
        return None
