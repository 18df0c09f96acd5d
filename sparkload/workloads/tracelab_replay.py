"""A TraceLab corpus replayed as agent sessions (``--agent-trace`` with TraceLab's rounds): where
a replayed session is, its rounds' requests, and the sub-agents due after each.

Each round is one request: a single user message, the round's synthesized prompt
(``labtext``: the recorded length and reuse, text unique to this replay of the session, so no
id line is needed), asking for the recorded output (pinned: ``ignore_eos`` unless ``--ignore-eos
no``), with no tools (their schemas would add tokens the recorded count already holds), after
the recorded pause (``--max-think-time`` caps it). A nested sub-agent (``inputs.tracelab``)
runs on the user's stack after the round it followed, before its parent's next round; so does
each of its own. Its first round starts fresh: with the opening of its user and project, never
its parent's history.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sparkload.inputs.tracelab import LabChild, LabCorpus, LabSession
from sparkload.records import STEP_ANSWER, STEP_TOOL_CALL
from sparkload.workloads import labtext


@dataclass
class LabPlace:
    """A recorded session under way: the rounds it replays, the sub-agents it runs, the
    prompt its last round sent, and the next sub-agent to start."""

    recorded: LabSession
    kept: int  # its own rounds replayed (``--turns`` caps a top-level session's; a warm-up: 1)
    children: tuple[LabChild, ...]  # the sub-agents it runs: those after a kept round
    prompt: labtext.Prompt = ()  # its last round's
    sent: int = 0  # its rounds sent
    started: int = 0  # of ``children``

    @classmethod
    def of(cls, recorded: LabSession, turns: int | None, nested: bool = True) -> LabPlace:
        kept = len(recorded.rounds) if turns is None else min(turns, len(recorded.rounds))
        children = tuple(c for c in recorded.children if c.after < kept) if nested else ()
        return cls(recorded, kept, children)

    @property
    def total(self) -> int:
        """Its requests, its sub-agents' included."""
        return self.kept + sum(child.session.requests for child in self.children)


def fixed_requests(corpus: LabCorpus, turns: int | None) -> int | None:
    """Requests per top-level session when every one has as many (else None)."""
    totals = {LabPlace.of(session, turns).total for session in corpus.sessions}
    return totals.pop() if len(totals) == 1 else None


@dataclass(frozen=True)
class LabSynthesis:
    """How the run synthesizes TraceLab prompts: its salt (in the opening every session of one
    user and project shares), the target's units a token, and the cap on pauses."""

    salt: str = ""
    scale: float = 1.0  # 512 / the target's count of a 512-unit block
    cap: float | None = None  # --max-think-time

    @classmethod
    def of(cls, source: dict[str, Any], cap: float | None) -> LabSynthesis:
        counted = source.get("token_count", {}).get("block_tokens")
        scale = labtext.BLOCK_UNITS / counted if counted else 1.0
        return cls(source.get("salt", ""), scale, cap)


def round_request(
    place: LabPlace, run: LabSynthesis, own: str, extra: dict[str, Any]
) -> tuple[dict[str, Any], str, int]:
    """The next round's request: its user message, step (what the recorded reply did) and the
    output it asks; the recorded counts and the pause before it (``pause_s``) go in ``extra``.
    ``own``: this replay's salt."""
    position, recorded = place.sent, place.recorded
    one = recorded.rounds[position]
    if position == 0:
        opening = f"{run.salt}:{recorded.user}:{recorded.project}"
        place.prompt = labtext.first_prompt(one, opening, f"{own}:0", run.scale)
    else:
        place.prompt = labtext.next_prompt(place.prompt, one, f"{own}:{position}", run.scale)
    place.sent += 1
    extra.update(
        trace_session=recorded.session_id,
        round_index=one.index,
        recorded_prompt_tokens=one.input_tokens,
        recorded_prefix_tokens=one.prefix_tokens,
        recorded_output_tokens=one.output_tokens,
        recorded_pause_s=one.pause,
        pause_s=labtext.pause(one, run.cap),
    )
    message = {"role": "user", "content": labtext.text(place.prompt)}
    return message, STEP_TOOL_CALL if one.calls else STEP_ANSWER, labtext.max_tokens(one)


def due_child(place: LabPlace) -> LabSession | None:
    """The next sub-agent to run after the rounds sent so far (None: none is due)."""
    if place.started < len(place.children) and place.children[place.started].after < place.sent:
        place.started += 1
        return place.children[place.started - 1].session
    return None
