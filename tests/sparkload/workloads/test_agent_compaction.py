"""Compaction of a synthetic agent session's context (issue 44): when it happens, what the
compacted request sends, and the options' rules."""

from __future__ import annotations

import pytest

from sparkload.errors import ConfigError
from sparkload.records import RequestRecord
from sparkload.sim.textlength import estimate_tokens
from sparkload.workloads import registry
from sparkload.workloads.agent import SYSTEM_PROMPT
from sparkload.workloads.compaction import Compaction, frame_tokens, summary_text
from sparkload.workloads.contract import PlannedRequest, Slot
from sparkload.workloads.conversation import ID_LINE
from tests.options import run_options
from tests.sparkload.workloads.test_agent import answered, record, user, workload


def sized(planned: PlannedRequest, tokens: int) -> RequestRecord:
    """The record of ``planned`` as a server counting ``tokens`` prompt tokens made it."""
    out = record(planned)
    out.prompt_tokens = tokens
    return out


def steps(loaded, someone, prompt_tokens: list[int]) -> list[PlannedRequest]:
    sent = []
    for tokens in prompt_tokens:
        planned = loaded.next_request(someone, Slot(0))
        loaded.after(someone, planned, sized(planned, tokens), answered(planned))
        sent.append(planned)
    sent.append(loaded.next_request(someone, Slot(0)))
    return sent


def test_the_request_after_one_past_the_threshold_sends_the_system_prompt_and_a_summary():
    loaded = workload("--tool-turns", "3", "--compact-at", "2000", "--compact-to", "800")
    sent = steps(loaded, user(loaded), [600, 1400, 2100])
    last = sent[-1]
    assert last.messages is not None and len(last.messages) == 2
    assert last.messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert last.messages[1]["content"].startswith(ID_LINE.format(last.agent_session))
    assert last.extra["compacted"] == 1 and last.extra["compacted_from"] == 2100


def test_the_summary_brings_the_prompt_to_the_target_by_the_sessions_frame():
    loaded = workload("--tool-turns", "3", "--compact-at", "2000", "--compact-to", "800")
    sent = steps(loaded, user(loaded), [600, 1400, 2100])
    assert sent[0].messages is not None and sent[-1].messages is not None
    first_user = sent[0].messages[1]["content"]
    frame = 600 - estimate_tokens(first_user)
    summary = sent[-1].messages[1]["content"]
    assert abs(frame + estimate_tokens(summary) - 800) <= 1


def test_a_prompt_at_the_threshold_is_not_compacted():
    loaded = workload("--tool-turns", "3", "--compact-at", "2000", "--compact-to", "800")
    sent = steps(loaded, user(loaded), [600, 2000])
    assert "compacted" not in sent[-1].extra
    assert sent[-1].messages is not None and len(sent[-1].messages) > 2


def test_the_context_grows_again_from_the_summary():
    loaded = workload("--tool-turns", "3", "--compact-at", "2000", "--compact-to", "800")
    sent = steps(loaded, user(loaded), [600, 1400, 2100, 900])
    compacted, grown = sent[-2].messages, sent[-1].messages
    assert compacted is not None and grown is not None
    assert grown[: len(compacted)] == compacted and len(grown) > len(compacted)
    assert "compacted" not in sent[-1].extra


def test_summaries_differ_by_key_and_hold_one_unit_a_token():
    assert summary_text("a", 700) != summary_text("b", 700)
    assert len(summary_text("a", 700)) == 700 * 4
    assert summary_text("a", 700)[:2048] == summary_text("a", 512 + 10)[:2048]


def test_the_frame_is_the_first_prompt_less_its_user_message():
    assert frame_tokens(600, "x" * 400) == 500


def test_the_target_defaults_to_a_quarter_of_the_threshold():
    assert Compaction.from_options(4000, None) == Compaction(4000, 1000)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--compact-to", "500"), "--compact-to sizes a compaction: give --compact-at"),
        (("--compact-at", "1000", "--compact-to", "1000"), "must be below --compact-at 1000"),
        (("--compact-at", "4000", "--compact-to", "300"), "--compact-to 300 leaves no room"),
    ],
)
def test_compaction_sizes_that_cannot_work_are_one_line(args, message):
    with pytest.raises(ConfigError, match=message):
        registry.load(run_options("--workload", "agent", *args))


def test_compaction_belongs_to_synthetic_sessions():
    with pytest.raises(ConfigError, match="--compact-at: for --workload agent"):
        registry.load(run_options("--compact-at", "1000"))
