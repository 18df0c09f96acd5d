"""TraceLab round traces (``--agent-trace``): lines in the released trace's shape read as sessions
in round order, plain or gzip, with each round's timing and pauses; a session inside another's
blocking tool call nested as its sub-agent; a bad line one error line naming file and line."""

from __future__ import annotations

import json

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs.agent_traces import JSONL, load_recorded
from sparkload.inputs.tracelab import FORMAT, LabCorpus, LabSession
from tests.tracelab_rows import row, tool, write


def corpus(tmp_path, rows, name="trace.jsonl", packed=False) -> LabCorpus:
    found = load_recorded(write(tmp_path / name, rows, packed))
    assert isinstance(found, LabCorpus)
    return found


def by_id(sessions) -> dict[str, LabSession]:
    return {session.session_id: session for session in sessions}


A_SESSION = [  # written out of order: the reader orders each session by round_index
    row("a", 1, 35740, 29380, 1016, start=31.0, end=64.8, tools=(tool("Write", 64.8, 65.0),)),
    row("a", 0, 32272, 27217, 931, start=20.1, end=30.8, tools=(tool("Bash", 30.8, 31.0),)),
    row("b", 0, 5000, 0, 200, provider="codex"),
    row("a", 2, 38592, 35738, 2475, start=65.0, end=84.0),
]


@pytest.mark.parametrize(
    ("name", "packed"), [("t.jsonl", False), ("t.jsonl.gz", True), ("download", True)]
)
def test_rounds_are_read_in_round_order_from_plain_or_gzip_whatever_the_name(
    tmp_path, name, packed
):
    found = corpus(tmp_path, A_SESSION, name, packed)
    assert found.format == FORMAT and found.joined == 0
    assert [s.session_id for s in found.sessions] == ["claude:a", "codex:b"]  # first lines' order
    a, b = found.sessions
    assert [(r.index, r.line) for r in a.rounds] == [(0, 2), (1, 1), (2, 4)]
    first = a.rounds[0]
    assert (first.input_tokens, first.prefix_tokens, first.new_tokens) == (32272, 27217, 5055)
    assert (first.output_tokens, first.reasoning_tokens) == (931, None)
    assert b.rounds[0].reasoning_tokens == 100  # Codex says it (a part of output_tokens)
    assert (a.user, a.project) == ("user_1a2b3c4d", "project_4c7b8a1b")


def test_a_round_index_logged_twice_keeps_both_rounds_in_file_order_and_counts_them(tmp_path):
    twice = [*A_SESSION, row("a", 1, 30000, 27217, 700, start=20.0, end=30.0)]
    found = corpus(tmp_path, twice, "t.jsonl", False)
    assert [(r.index, r.line) for r in found.sessions[0].rounds] == [(0, 2), (1, 1), (1, 5), (2, 4)]
    assert found.repeated_rounds == 1 and found.describe()["repeated_rounds"] == 1


def test_a_rounds_start_is_its_last_input_before_any_output_and_it_ends_at_its_last_output(
    tmp_path,
):
    one = row("a", 1, 100, 0, 10, start=31.0, end=40.0)
    late = {"event_type": "tool_result", "timestamp": one["timing_events"][0]["timestamp"]}
    late["timestamp"] = late["timestamp"].replace("05:40:31", "05:40:33")  # the call's result
    one["timing_events"].insert(1, late)
    (session,) = corpus(tmp_path, [row("a", 0, 50, 0, 5, start=0.0, end=30.0), one]).sessions
    assert session.rounds[1].start - session.rounds[0].start == pytest.approx(33.0)
    assert session.rounds[1].end - session.rounds[0].start == pytest.approx(40.0)
    assert session.rounds[1].pause == pytest.approx(3.0)  # its start less the round before's end


def test_pauses_are_the_recorded_gaps_between_rounds_and_a_sessions_first_has_none(tmp_path):
    (a, b) = corpus(tmp_path, A_SESSION).sessions
    assert [r.pause for r in a.rounds] == pytest.approx([0.0, 0.2, 0.2])
    assert (b.span, b.rounds[0].pause) == (None, 0.0)  # untimed: no span, no pause
    assert a.rounds[0].tools_end - a.rounds[0].start == pytest.approx(10.9)


PARENT = [  # Claude Code: round 0 runs a Task tool 10..100 s; a sub-agent session runs inside it
    row("parent", 0, 20000, 0, 300, start=0.0, end=10.0, tools=(tool("Task", 10.0, 100.0),)),
    row("parent", 1, 26000, 20300, 400, start=101.0, end=110.0),
]
CHILD = [
    row("child", 0, 8000, 6000, 100, start=12.0, end=20.0, tools=(tool("Task", 20.0, 60.0),)),
    row("child", 1, 9000, 8100, 100, start=61.0, end=90.0),
]
GRANDCHILD = [row("grandchild", 0, 3000, 0, 50, start=25.0, end=55.0)]


def test_a_session_inside_another_sessions_blocking_tool_call_is_its_sub_agent(tmp_path):
    found = corpus(tmp_path, [*PARENT, *CHILD])
    assert found.joined == 1
    (parent,) = found.sessions
    (child,) = parent.children
    assert (child.after, child.session.session_id) == (0, "claude:child")
    assert parent.requests == 4
    assert found.describe()["joined"] == 1 and found.describe()["rounds"] == 4


def test_a_sub_agents_pauses_run_from_its_parents_round_and_the_parent_waits_for_it(tmp_path):
    (parent,) = corpus(tmp_path, [*PARENT, *CHILD]).sessions
    child = parent.children[0].session
    assert [r.pause for r in child.rounds] == pytest.approx([2.0, 41.0])
    assert parent.rounds[1].pause == pytest.approx(11.0)  # after the sub-agent's end (90 s)


def test_a_session_nests_into_the_innermost_call_that_holds_it(tmp_path):
    found = corpus(tmp_path, [*PARENT, *CHILD, *GRANDCHILD])
    assert found.joined == 2
    (parent,) = found.sessions
    child = parent.children[0].session
    assert [(c.after, c.session.session_id) for c in child.children] == [(0, "claude:grandchild")]
    assert parent.requests == 5


@pytest.mark.parametrize(
    "other", [{"project": "project_99999999"}, {"user": "user_99999999"}], ids=["project", "user"]
)
def test_a_session_of_another_user_or_project_is_never_nested(tmp_path, other):
    child = [row("child", 0, 8000, 0, 100, start=12.0, end=20.0, **other)]
    found = corpus(tmp_path, [*PARENT, *child])
    assert found.joined == 0 and len(found.sessions) == 2


def test_a_session_that_outlasts_the_call_is_not_nested(tmp_path):
    child = [row("child", 0, 8000, 0, 100, start=12.0, end=100.5)]
    assert corpus(tmp_path, [*PARENT, *child]).joined == 0


def test_trace_lab_lines_and_message_lists_are_told_apart_by_their_content(tmp_path):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps(messages) + "\n")
    assert load_recorded(path).format == JSONL
    assert load_recorded(write(tmp_path / "lab.json", A_SESSION)).format == FORMAT


def broken(field: str, value: object) -> dict:
    one = row("a", 1, 100, 50, 10)
    one[field] = value
    return one


def test_a_first_line_missing_its_counts_is_still_read_as_trace_lab_and_named(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"session_id": "s", "round_index": 0, "output_tokens": 5}) + "\n")
    with pytest.raises(ConfigError, match=r"t.jsonl line 1: no input_tokens_total"):
        load_recorded(path)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({k: v for k, v in row("a", 1, 100, 0, 10).items() if k != "output_tokens"}, "no output"),
        (broken("input_tokens_total", None), "no input_tokens_total"),
        (broken("prefix_tokens", 12.5), "prefix_tokens 12.5 is not a whole number"),
        (broken("newly_append_tokens", -3), "newly_append_tokens -3 is not a whole number"),
        (broken("round_index", "1"), "round_index '1' is not a whole number"),
        (broken("prefix_tokens", 101), "prefix_tokens 101 is more than input_tokens_total 100"),
        (broken("session_id", ""), "session_id must be non-empty text"),
        (broken("timing_events", [{"event_type": "text", "timestamp": "noon"}]), "'noon'"),
        ("{not json", "not JSON"),
    ],
    ids=[
        "missing",
        "null",
        "fraction",
        "negative",
        "text index",
        "prefix",
        "session",
        "timestamp",
        "json",
    ],
)
def test_a_bad_line_is_one_error_line_naming_file_and_line(tmp_path, line, said):
    path = tmp_path / "lab.jsonl"
    second = line if isinstance(line, str) else json.dumps(line)
    path.write_text(json.dumps(row("a", 0, 100, 0, 10)) + "\n" + second + "\n")
    with pytest.raises(ConfigError) as error:
        load_recorded(path)
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"--agent-trace: {path} line 2: ")
    assert said in message
