"""The agent workload's synthetic sessions: what each step sends, how the context grows with tool
calls and their results, the count rules, and the options' rules."""

from __future__ import annotations

import itertools
import json
import statistics

import pytest

from sparkload.errors import ConfigError
from sparkload.records import STATUS_ERROR, STEP_ANSWER, STEP_TOOL_CALL, RequestRecord
from sparkload.sim.textlength import CHARS_PER_TOKEN
from sparkload.transport.tally import Reply, ToolCall
from sparkload.workloads import registry
from sparkload.workloads.agent import CONTINUE_MESSAGE, SYSTEM_PROMPT, AgentUser, AgentWorkload
from sparkload.workloads.coding_tools import ARGUMENTS_ERROR, BUILTIN_TOOLS
from sparkload.workloads.contract import PlannedRequest, Slot
from sparkload.workloads.conversation import ID_LINE
from tests.options import run_options

TC, ANSWER = STEP_TOOL_CALL, STEP_ANSWER


def workload(*args: str) -> AgentWorkload:
    loaded = registry.load(run_options("--workload", "agent", *args))
    assert isinstance(loaded, AgentWorkload)
    return loaded


def user(loaded: AgentWorkload, ordinal: int = 0) -> AgentUser:
    order = itertools.cycle(range(loaded.prompt_count))
    return loaded.new_user(ordinal, lambda: next(order))


def record(planned: PlannedRequest, status: str = "ok") -> RequestRecord:
    """The record the session makes of ``planned`` (its ``extra`` is the planned one)."""
    return RequestRecord(
        "r", 1, 0, "measure", "local", 0, "u", "m", 0, 256, 0.0, status=status, extra=planned.extra
    )


def called(*names: str, ids: bool = True, arguments: str = '{"path": "a.py"}') -> Reply:
    """A reply that streamed one tool call per name."""
    calls = [ToolCall(i, f"call-{i}" if ids else None, n, arguments) for i, n in enumerate(names)]
    return Reply(tool_calls=calls)


def answered(planned: PlannedRequest) -> Reply:
    """How a well-behaved model answers: a tool call where one is asked, else text."""
    if planned.step == TC:
        return called("read_file")
    return Reply([f"answer to turn {planned.turn}"])


def run_session(
    loaded: AgentWorkload, someone: AgentUser, requests: int, reply=answered, level: int = 0
) -> list[PlannedRequest]:
    planned = []
    for _ in range(requests):
        request = loaded.next_request(someone, Slot(level))
        loaded.after(someone, request, record(request), reply(request))
        planned.append(request)
    return planned


def test_every_request_carries_the_built_in_tools_and_the_first_asks_the_runs_tool_choice():
    loaded = workload()
    first = loaded.next_request(user(loaded), Slot(0))
    assert first.tools == BUILTIN_TOOLS
    names = [tool["function"]["name"] for tool in BUILTIN_TOOLS]
    assert names == ["read_file", "run_command", "edit_file", "search_code"]
    assert (first.tool_choice, first.step, first.turn) == ("auto", TC, 1)
    assert first.messages is not None and first.messages[0] == {
        "role": "system",
        "content": SYSTEM_PROMPT,
    }
    assert first.wants_reply


def test_a_user_turn_is_its_tool_steps_then_an_answer_step_that_asks_for_no_tool_call():
    loaded = workload("--tool-turns", "2", "--turns", "2", "--tool-choice", "required")
    steps = run_session(loaded, user(loaded), 6)
    assert [s.step for s in steps] == [TC, TC, ANSWER] * 2
    assert [s.tool_choice for s in steps] == ["required", "required", "none"] * 2
    assert [(s.extra["user_turn"], s.extra["step_index"]) for s in steps] == [
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 1),
        (2, 2),
        (2, 3),
    ]
    assert [(s.turn, s.turns) for s in steps] == [(t, 6) for t in range(1, 7)]
    assert len({s.session_id for s in steps}) == 1
    assert loaded.requests_per_session == 6


def test_after_a_tool_call_the_next_step_carries_the_call_and_one_result_per_call_by_its_id():
    loaded = workload("--tool-result-tokens", "50")
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(first), called("read_file", "search_code"))
    second = loaded.next_request(someone, Slot(0))
    assert second.messages is not None and first.messages is not None
    call, *results = second.messages[len(first.messages) :]
    assert call == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call-{i}",
                "type": "function",
                "function": {"name": name, "arguments": '{"path": "a.py"}'},
            }
            for i, name in enumerate(["read_file", "search_code"])
        ],
    }
    assert [(r["role"], r["tool_call_id"]) for r in results] == [
        ("tool", "call-0"),
        ("tool", "call-1"),
    ]
    assert [len(r["content"]) for r in results] == [50 * CHARS_PER_TOKEN] * 2
    assert results[0]["content"] != results[1]["content"]
    assert second.extra["messages"] == len(second.messages)
    assert first.extra["replied"] == "tool_call"


def test_a_call_streamed_without_an_id_gets_one_and_its_result_is_addressed_to_it():
    loaded = workload()
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(first), called("read_file", "read_file", ids=False))
    assert first.messages is not None
    messages = loaded.next_request(someone, Slot(0)).messages
    assert messages is not None
    call, *results = messages[len(first.messages) :]
    ids = [c["id"] for c in call["tool_calls"]]
    assert len(set(ids)) == 2 and all(ids)
    assert [r["tool_call_id"] for r in results] == ids


def test_arguments_that_are_not_a_json_object_are_sent_as_an_empty_one_with_an_error_result():
    loaded = workload()
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(first), called("run_command", arguments='{"command": "ls'))
    messages = loaded.next_request(someone, Slot(0)).messages
    assert messages is not None
    assert messages[-2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert messages[-1]["content"].startswith(ARGUMENTS_ERROR)


def test_tool_results_spread_around_their_size_and_repeat_with_the_seed():
    def sizes(seed: str) -> list[int]:
        loaded = workload("--tool-result-tokens", "200", "--tool-result-tokens-stddev", "50")
        loaded.seed = int(seed)
        steps = run_session(loaded, user(loaded), 300)
        return [
            len(m["content"]) // CHARS_PER_TOKEN
            for s in steps
            for m in (s.messages or ())[-1:]
            if m["role"] == "tool"
        ]

    drawn = sizes("7")
    assert abs(statistics.mean(drawn) - 200) < 10 and abs(statistics.pstdev(drawn) - 50) < 10
    assert drawn == sizes("7") != sizes("8")


def test_text_where_a_tool_call_was_asked_continues_with_a_user_message_by_default():
    loaded = workload("--tool-turns", "2", "--turns", "1")
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(first), Reply(["I would rather not."]))
    second = loaded.next_request(someone, Slot(0))
    assert second.messages is not None
    assert second.messages[-2:] == (
        {"role": "assistant", "content": "I would rather not."},
        {"role": "user", "content": CONTINUE_MESSAGE},
    )
    assert first.extra["text_reply"] == "continue" and first.extra["replied"] == "text"
    assert (second.turn, second.step, second.session_id) == (2, TC, first.session_id)
    assert loaded.requests_per_session == 3  # continue keeps every session whole


def test_text_where_a_tool_call_was_asked_ends_the_session_under_stop_counting_the_unsent():
    loaded = workload("--tool-turns", "2", "--turns", "2", "--on-text-reply", "stop")
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(first), called("read_file"))
    second = loaded.next_request(someone, Slot(0))
    text = record(second)
    loaded.after(someone, second, text, Reply(["No."]))
    assert text.extra["turns_unsent"] == 4 and someone.unsent == 4  # 6 planned, 2 sent
    assert text.extra["text_reply"] == "stop"
    someone.unsent = 0  # the session reads it
    after = loaded.next_request(someone, Slot(0))
    assert after.turn == 1 and after.session_id != first.session_id
    assert loaded.requests_per_session is None  # a session's count is known at its end


def test_an_answer_steps_text_ends_the_user_turn_and_the_next_user_message_follows():
    loaded = workload("--tool-turns", "1", "--turns", "2")
    steps = run_session(loaded, user(loaded), 3)
    messages = steps[2].messages
    assert messages is not None
    assert messages[-2]["role"] == "assistant" and messages[-2]["content"] == "answer to turn 2"
    assert messages[-1]["role"] == "user" and messages[-1]["content"] != CONTINUE_MESSAGE
    assert CONTINUE_MESSAGE not in [m["content"] for m in messages]


def test_an_answer_step_answered_with_a_tool_call_still_gets_its_results():
    loaded = workload("--tool-turns", "0", "--turns", "2")
    steps = run_session(loaded, user(loaded), 2, reply=lambda _: called("read_file"))
    messages = steps[1].messages
    assert messages is not None
    assert [m["role"] for m in messages[-3:]] == ["assistant", "tool", "user"]


def test_a_failed_step_adds_nothing_and_the_next_step_sends_the_same_context():
    loaded = workload()
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(first, STATUS_ERROR), called("read_file"))
    second = loaded.next_request(someone, Slot(0))
    assert second.messages == first.messages
    assert (second.turn, first.extra["replied"]) == (2, None)


def test_every_step_but_a_sessions_first_waits_a_seeded_exponential_think_time():
    loaded = workload("--think-time", "2.5", "--turns", "1")
    steps = run_session(loaded, user(loaded), 3000)
    first = [s.delay for s in steps if s.turn == 1]
    later = [s.delay for s in steps if s.turn > 1]
    assert set(first) == {0.0}
    assert abs(statistics.mean(later) - 2.5) < 0.15
    assert all(s.extra.get("think_s", 0.0) == s.delay and not s.delay_from_send for s in steps)


def test_each_request_starts_with_the_one_before_and_only_the_system_prompt_is_shared():
    loaded = workload("--turns", "2")
    steps = run_session(loaded, user(loaded), 12)
    for before, after in zip(steps, steps[1:], strict=False):
        if after.session_id == before.session_id:
            assert before.messages is not None and after.messages is not None
            assert after.messages[: len(before.messages)] == before.messages
    sessions = [s for s in steps if s.turn == 1]
    assert len(sessions) == 2
    openings = [s.messages for s in sessions]
    assert all(o is not None and o[0]["role"] == "system" for o in openings)
    firsts = [o[1]["content"] for o in openings if o is not None]
    assert firsts[0].startswith(ID_LINE.format(sessions[0].session_id))
    assert firsts[0] != firsts[1]


def test_the_warm_up_is_a_one_request_session_of_its_own():
    loaded = workload()
    someone = user(loaded)
    warmup = loaded.next_request(someone, Slot(0, warmup=True))
    loaded.after(someone, warmup, record(warmup), called("read_file"))
    measured = loaded.next_request(someone, Slot(0))
    assert (warmup.turn, warmup.turns, warmup.step) == (1, 1, TC)
    assert (measured.turn, measured.turns) == (1, 6) and measured.session_id != warmup.session_id


def test_drawn_user_turns_keep_each_session_whole_user_turns():
    loaded = workload("--turns", "3", "--turns-stddev", "2", "--tool-turns", "1")
    steps = run_session(loaded, user(loaded), 400)
    planned = {s.turns for s in steps if s.turn == 1}
    assert len(planned) > 2 and all(t % 2 == 0 for t in planned)
    assert loaded.requests_per_session is None


def test_a_tools_file_is_sent_in_place_of_the_built_in_set(tmp_path):
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    loaded = workload("--tools", str(path))
    assert loaded.next_request(user(loaded), Slot(0)).tools == tuple(tools)
    assert loaded.manifest()["tools"]["names"] == ["lookup"]


def test_the_manifest_names_the_sessions_shape():
    entry = workload("--tool-turns", "3", "--on-text-reply", "stop").manifest()
    assert {k: entry[k] for k in ("name", "sessions", "turns", "tool_turns", "on_text_reply")} == {
        "name": "agent",
        "sessions": "synthetic",
        "turns": 2,
        "tool_turns": 3,
        "on_text_reply": "stop",
    }
    assert entry["tools"]["source"] == "builtin" and len(entry["tools"]["sha256"]) == 64


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--arrival-rate", "2"], "--workload agent runs closed loop"),
        (["--api", "completions"], "sends messages and tools: use --api chat"),
        (["--cache-bust"], "drop --identical-prompts / --cache-bust"),
        (["--tool-choice", "none"], "give --tool-turns 0"),
        (["--history", "dataset"], "give --agent-trace FILE"),
        (["--history", "server"], "it is --workload conversation's"),
        (["--extra-body", '{"tool_choice": "auto"}'], "--extra-body sets tool_choice"),
        (["--input-tokens", "100"], "--input-tokens makes chat prompts"),
    ],
)
def test_options_the_agent_workload_cannot_honour_are_one_line(args, message):
    with pytest.raises(ConfigError, match=message):
        run_options("--workload", "agent", *args)


def test_no_tool_call_asked_is_a_run_of_answer_steps():
    loaded = workload("--tool-choice", "none", "--tool-turns", "0", "--turns", "3")
    steps = run_session(loaded, user(loaded), 3)
    assert [(s.step, s.tool_choice) for s in steps] == [(ANSWER, "none")] * 3


@pytest.mark.parametrize(
    "args", [["--tool-turns", "4"], ["--tools", "t.json"], ["--on-text-reply", "stop"]]
)
def test_agent_options_given_to_another_workload_are_one_line(args):
    with pytest.raises(ConfigError, match=r"for --workload agent \(this run's is chat\)"):
        run_options(*args)
