"""Agent traces (``--agent-trace``): sglang's agentic-trace JSON in both of its turn forms, and a
JSONL of OpenAI message lists, read as turns; a malformed file is one line naming where."""

from __future__ import annotations

import json

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs.agent_traces import JSONL, SGLANG, load_recorded
from sparkload.records import STEP_ANSWER, STEP_TOOL_CALL

SYSTEM = {"role": "system", "content": "You are OpenHands agent."}
TASK = {"role": "user", "content": "Fix the failing test in tests/test_io.py."}


def observation(n: int) -> dict:
    return {"role": "user", "content": f"OBSERVATION:\n[command {n} output]"}


def call(call_id: str, name: str = "execute_bash", arguments='{"command": "ls"}') -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def calling(*ids: str) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [call(i) for i in ids]}


def result(call_id: str, text: str = "ok") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def write(tmp_path, data, name: str = "trace.json") -> object:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(line) + "\n" for line in data))
    else:
        path.write_text(json.dumps(data, indent=1))
    return path


def test_sglangs_own_traces_hold_each_turns_new_messages_and_no_reply(tmp_path):
    conversation = [
        {"messages": [SYSTEM, TASK], "prompt_tokens": 7012},
        {"messages": [observation(1)], "prompt_tokens": 7301},
        {"messages": [], "prompt_tokens": 0},  # nothing to send: skipped, as sglang does
        {"messages": [observation(2)], "prompt_tokens": 7590},
    ]
    trace = load_recorded(write(tmp_path, {"metadata": {}, "conversations": [conversation]}))
    assert trace.format == SGLANG
    (session,) = trace.sessions
    assert [t.messages for t in session.turns] == [
        (SYSTEM, TASK),
        (observation(1),),
        (observation(2),),
    ]
    assert [t.reply for t in session.turns] == [(), (), ()]
    assert [t.prompt_tokens for t in session.turns] == [7012, 7301, 7590]
    assert [t.step for t in session.turns] == [None, None, None]  # the trace records no reply
    assert not trace.has_replies and not session.timed


def test_a_conversation_whose_turns_repeat_the_one_before_is_read_as_what_each_adds(tmp_path):
    first = [SYSTEM, TASK]
    second = [*first, calling("c1"), result("c1")]
    third = [
        *second,
        {"role": "assistant", "content": "Fixed."},
        {"role": "user", "content": "Thanks"},
    ]
    trace = load_recorded(
        write(tmp_path, {"conversations": [[{"messages": m} for m in (first, second, third)]]})
    )
    turns = trace.sessions[0].turns
    assert [t.reply for t in turns] == [
        (),
        (calling("c1"),),
        ({"role": "assistant", "content": "Fixed."},),
    ]
    assert [t.messages for t in turns] == [
        tuple(first),
        (result("c1"),),
        ({"role": "user", "content": "Thanks"},),
    ]
    assert [t.step for t in turns] == [STEP_TOOL_CALL, STEP_ANSWER, None]
    assert trace.has_replies


def test_a_turn_that_does_not_repeat_the_one_before_in_a_repeating_conversation_restarts(tmp_path):
    first = [SYSTEM, TASK]
    second = [*first, calling("c1"), result("c1")]
    third = [*second, calling("c2"), result("c2")]
    condensed = [SYSTEM, TASK, {"role": "user", "content": "Summary of earlier steps."}]
    lists = [first, second, third, condensed, [*condensed, calling("c3"), result("c3")]]
    trace = load_recorded(write(tmp_path, {"conversations": [[{"messages": m} for m in lists]]}))
    turns = trace.sessions[0].turns
    assert [t.restart for t in turns] == [False, False, False, True, False]
    assert turns[3].messages == tuple(condensed) and turns[3].reply == ()
    assert turns[4].messages == (result("c3"),)


def test_a_jsonl_session_is_a_request_wherever_the_list_has_an_assistant_reply(tmp_path):
    line = [
        SYSTEM,
        TASK,
        calling("a"),
        result("a", "tests/test_io.py"),
        calling("b", "c"),
        result("b"),
        result("c"),
        {"role": "assistant", "content": "Done: the test passes."},
    ]
    trace = load_recorded(write(tmp_path, [line, [TASK]], "sessions.jsonl"))
    assert trace.format == JSONL and len(trace.sessions) == 2
    turns = trace.sessions[0].turns
    assert [t.messages for t in turns] == [
        (SYSTEM, TASK),
        (result("a", "tests/test_io.py"),),
        (result("b"), result("c")),
    ]
    assert [t.reply for t in turns] == [(), (calling("a"),), (calling("b", "c"),)]
    assert [t.step for t in turns] == [STEP_TOOL_CALL, STEP_TOOL_CALL, STEP_ANSWER]
    assert [len(s.turns) for s in trace.sessions] == [3, 1]
    assert [s.number for s in trace.sessions] == [1, 2]
    assert trace.describe()["turns"] == 4


def test_a_jsonl_line_may_carry_its_tools_and_an_opening_assistant_message_is_context(tmp_path):
    tools = [{"type": "function", "function": {"name": "execute_bash"}}]
    greeting = {"role": "assistant", "content": "How can I help?"}
    trace = load_recorded(
        write(tmp_path, [{"messages": [greeting, TASK, calling("a")], "tools": tools}], "s.jsonl")
    )
    (turn,) = trace.sessions[0].turns
    assert turn.messages == (greeting, TASK) and turn.tools == tuple(tools)
    assert turn.step == STEP_TOOL_CALL


def test_tool_calls_are_sent_in_openais_form_whatever_the_trace_wrote(tmp_path):
    loose = {
        "role": "assistant",
        "tool_calls": [{"function": {"name": "read", "arguments": {"path": "a.py"}}}],
        "reasoning_content": "Let me look.",
        "timestamp": 3.5,
    }
    trace = load_recorded(write(tmp_path, [[TASK, loose, result("x")]], "s.jsonl"))
    (sent,) = trace.sessions[0].turns[1].reply
    assert sent == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_recorded_0",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "a.py"}'},
            }
        ],
    }


def test_a_session_is_timed_by_its_turns_or_their_messages_timestamps(tmp_path):
    stamped = [
        {"messages": [SYSTEM, TASK], "timestamp": 1_700_000_000_000},  # epoch milliseconds
        {"messages": [{**observation(1), "timestamp": "2023-11-14T22:13:25Z"}]},
        {"messages": [observation(2)], "timestamp": 1_700_000_012.5},
    ]
    trace = load_recorded(
        write(tmp_path, {"conversations": [stamped, stamped[:1] + [{"messages": [TASK]}]]})
    )
    timed, untimed = trace.sessions
    assert [t.time for t in timed.turns] == [1_700_000_000.0, 1_700_000_005.0, 1_700_000_012.5]
    assert timed.timed and not untimed.timed
    assert trace.describe()["timed_sessions"] == 1


def test_turns_and_tools_of_an_sglang_trace_apply_to_its_conversations(tmp_path):
    shared = [{"type": "function", "function": {"name": "shared"}}]
    own = [{"type": "function", "function": {"name": "own"}}]
    conversation = [
        {"messages": [TASK]},
        {"messages": [observation(1)], "tools": own},
        {"messages": [observation(2)]},
    ]
    trace = load_recorded(write(tmp_path, {"conversations": [conversation], "tools": shared}))
    names = [t.tools[0]["function"]["name"] for t in trace.sessions[0].turns if t.tools]
    assert names == ["shared", "own", "own"]


def test_a_conversation_without_a_message_is_skipped_and_counted(tmp_path):
    trace = load_recorded(
        write(tmp_path, {"conversations": [[{"messages": []}], [{"messages": [TASK]}]]})
    )
    assert len(trace.sessions) == 1 and trace.skipped == 1
    assert trace.sessions[0].number == 2


@pytest.mark.parametrize(
    ("data", "name", "where"),
    [
        ('{\n  "conversations": [\n    [,]\n  ]\n}', "trace.json", "trace.json line 3: not JSON"),
        ({"sessions": []}, "trace.json", "neither 'conversations'"),
        ({"conversations": {}}, "trace.json", "'conversations' must be a list"),
        ({"conversations": [[]]}, "trace.json", "holds no session with a message to send"),
        ({"conversations": [["hi"]]}, "trace.json", "conversation 1 turn 1: a turn must be"),
        (
            {
                "conversations": [
                    [{"messages": [TASK]}, {"messages": [{"role": "bot", "content": "x"}]}]
                ]
            },
            "trace.json",
            "conversation 1 turn 2: message 1: needs a role",
        ),
        (
            {"conversations": [[{"messages": [{"role": "user", "content": 7}]}]]},
            "trace.json",
            "turn 1: message 1: 'content' must be text or a list of content parts",
        ),
        (
            {"conversations": [[{"messages": [{"role": "tool", "content": None}]}]]},
            "trace.json",
            "message 1: a tool message needs 'content'",
        ),
        (
            {"conversations": [[{"messages": [TASK], "prompt_tokens": "many"}]]},
            "trace.json",
            "turn 1: prompt_tokens 'many' is not a token count",
        ),
        (
            {"conversations": [[{"messages": [TASK], "timestamp": "yesterday"}]]},
            "trace.json",
            "turn 1: timestamp 'yesterday' is not a date and time",
        ),
        (
            {"conversations": [[{"messages": [TASK], "tools": [{"type": "function"}]}]]},
            "trace.json",
            "turn 1: tools: tool 1: 'function' must be an object",
        ),
        (
            [[TASK], "not a session"],
            "s.jsonl",
            "s.jsonl line 2: 'messages' must be a non-empty list",
        ),
        (
            [[TASK, {"role": "assistant", "tool_calls": [{"function": {}}]}]],
            "s.jsonl",
            "line 1: message 2 tool call 1: needs 'function' with a 'name'",
        ),
        ([{"prompt": "hi"}], "s.jsonl", "line 1: no 'messages'"),
    ],
)
def test_a_malformed_trace_is_one_line_naming_the_file_and_where(tmp_path, data, name, where):
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data)
    else:
        write(tmp_path, data, name)
    with pytest.raises(ConfigError, match=where) as caught:
        load_recorded(path)
    message = str(caught.value)
    assert message.startswith(f"--agent-trace: {path}") and "\n" not in message


def test_a_jsonl_line_that_is_not_json_names_its_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps([TASK]) + "\n\n" + '[{"role": \n')
    with pytest.raises(ConfigError, match=r"s.jsonl line 3: not JSON"):
        load_recorded(path)


def test_a_missing_trace_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match="--agent-trace: no such file"):
        load_recorded(tmp_path / "absent.json")
