"""The simulator's output drift (``sim/drift.py``): which greedy replies change, and how. These
are the simulator's settings for testing the fidelity path, never a claim about a model."""

from __future__ import annotations

from sparkload.sim.drift import OutputDrift, greedy
from sparkload.sim.sse import token_text

GREEDY = {"temperature": 0}


def test_a_reply_running_alone_never_changes():
    drift = OutputDrift(1.0)
    assert [drift.plan(GREEDY, "p", 32, others=0) for _ in range(50)] == [None] * 50


def test_a_sampled_reply_never_changes():
    drift = OutputDrift(1.0)
    assert drift.plan({"temperature": 0.7}, "p", 32, others=5) is None
    assert drift.plan({}, "p", 32, others=5) is None


def test_the_share_of_batched_greedy_replies_changed_is_exact_to_one_request():
    drift = OutputDrift(0.1)
    changed = [drift.plan(GREEDY, f"p{i}", 32, others=15) for i in range(155)]
    assert sum(c is not None for c in changed) == 15


def test_a_changed_reply_changes_at_a_token_of_its_answer():
    drift = OutputDrift(1.0)
    starts = [drift.plan(GREEDY, f"p{i}", 8, others=1) for i in range(200)]
    assert set(starts) == set(range(8))


def test_greedy_means_temperature_zero_and_not_a_flag():
    assert greedy({"temperature": 0.0}) and not greedy({"temperature": False})


def test_a_changed_text_keeps_every_token_before_its_start_and_none_after():
    same, changed = token_text(0, 12).split(" "), token_text(0, 12, changed_from=5).split(" ")
    assert changed[:6] == same[:6]  # the leading "" and tokens 0-4
    assert all(a != b for a, b in zip(same[6:], changed[6:], strict=True))
