"""The agent workload replaying a recorded trace (``--agent-trace``): one request per recorded
turn in order, the context growing by the reply (the model's or the trace's) and the turn's own
messages, the trace's tools and times."""

from __future__ import annotations

import itertools
import json

import pytest

from sparkload.errors import ConfigError
from sparkload.records import STEP_ANSWER, STEP_TOOL_CALL, RequestRecord
from sparkload.transport.tally import Reply, ToolCall
from sparkload.workloads import registry
from sparkload.workloads.agent import AgentUser, AgentWorkload
from sparkload.workloads.coding_tools import BUILTIN_TOOLS
from sparkload.workloads.contract import PlannedRequest, Slot
from sparkload.workloads.conversation import ID_LINE
from tests.options import run_options

TASK = {"role": "user", "content": "Fix the failing test."}
RECORDED_CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "rec-1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    ],
}
RESULT = {"role": "tool", "tool_call_id": "rec-1", "content": "tests/ src/"}
ANSWER = {"role": "assistant", "content": "The test passes now."}
THANKS = {"role": "user", "content": "Thanks, now the docs."}
SESSION = [TASK, RECORDED_CALL, RESULT, ANSWER, THANKS]  # three turns: call, answer, unknown


def trace(tmp_path, sessions: list, name: str = "agent.jsonl") -> str:
    path = tmp_path / name
    if name.endswith(".jsonl"):
        path.write_text("".join(json.dumps(s) + "\n" for s in sessions))
    else:
        path.write_text(json.dumps(sessions))
    return str(path)


def workload(*args: str) -> AgentWorkload:
    loaded = registry.load(run_options(*args))
    assert isinstance(loaded, AgentWorkload)
    return loaded


def user(loaded: AgentWorkload) -> AgentUser:
    order = itertools.cycle(range(loaded.prompt_count))
    return loaded.new_user(0, lambda: next(order))


def record(planned: PlannedRequest) -> RequestRecord:
    return RequestRecord(
        "r", 1, 0, "measure", "local", 0, "u", "m", 0, 256, 0.0, extra=planned.extra
    )


def replay(loaded: AgentWorkload, replies: list[Reply | None]) -> list[PlannedRequest]:
    someone = user(loaded)
    planned = []
    for reply in replies:
        request = loaded.next_request(someone, Slot(0))
        loaded.after(someone, request, record(request), reply)
        planned.append(request)
    return planned


def model_call(*ids: str) -> Reply:
    return Reply(tool_calls=[ToolCall(i, c, "ls", '{"path": "."}') for i, c in enumerate(ids)])


def test_agent_trace_chooses_the_agent_workload_and_replays_one_request_per_turn(tmp_path):
    loaded = workload("--agent-trace", trace(tmp_path, [SESSION]))
    turns = replay(loaded, [model_call("m-1"), Reply(["Done."]), Reply(["Docs next."])])
    assert [(t.turn, t.turns) for t in turns] == [(1, 3), (2, 3), (3, 3)]
    assert [t.step for t in turns] == [STEP_TOOL_CALL, STEP_ANSWER, None]
    assert len({t.session_id for t in turns}) == 1
    assert loaded.requests_per_session == 3 and loaded.manifest()["sessions"] == "trace"
    first = turns[0].messages
    assert first == (
        {"role": "user", "content": ID_LINE.format(turns[0].session_id) + TASK["content"]},
    )


def test_history_model_puts_the_models_call_in_place_and_readdresses_the_results(tmp_path):
    loaded = workload("--agent-trace", trace(tmp_path, [SESSION]))
    turns = replay(loaded, [model_call("m-1"), Reply(["Done."]), None])
    second = turns[1].messages
    assert second is not None
    assert second[1]["tool_calls"][0]["id"] == "m-1"
    assert second[1]["tool_calls"][0]["function"]["arguments"] == '{"path": "."}'
    assert second[2] == {**RESULT, "tool_call_id": "m-1"}
    third = turns[2].messages
    assert third is not None and third[3:] == ({"role": "assistant", "content": "Done."}, THANKS)
    assert [t.extra.get("history") for t in turns] == [None, "model", "model"]


def test_a_model_reply_that_does_not_fit_the_recorded_results_gives_way_to_the_recorded_one(
    tmp_path,
):
    loaded = workload("--agent-trace", trace(tmp_path, [SESSION]))
    turns = replay(loaded, [Reply(["No tool for me."]), None, None])
    second = turns[1].messages
    assert second is not None and second[1:] == (RECORDED_CALL, RESULT)
    assert turns[1].extra["history"] == "recorded"


def test_a_failed_turn_is_followed_by_the_recorded_reply(tmp_path):
    loaded = workload("--agent-trace", trace(tmp_path, [SESSION]))
    turns = replay(loaded, [model_call("m-1"), None, None])
    third = turns[2].messages
    assert third is not None and third[-2:] == (ANSWER, THANKS)


def test_a_turn_that_rewrote_the_history_starts_the_context_anew(tmp_path):
    condensed = [TASK, {"role": "user", "content": "Summary so far."}]
    lists = [[TASK], [TASK, ANSWER, THANKS], [TASK, ANSWER, THANKS, ANSWER, THANKS], condensed]
    sglang = {"conversations": [[{"messages": m} for m in lists]]}
    loaded = workload("--agent-trace", trace(tmp_path, sglang, "t.json"))
    turns = replay(loaded, [Reply(["Sure."])] * 4)
    last = turns[3].messages
    assert last is not None and len(last) == 2 and last[1] == condensed[1]
    assert last[0]["content"] == ID_LINE.format(turns[0].session_id) + TASK["content"]
    assert turns[3].extra["history"] == "restart"


def test_history_dataset_sends_the_recorded_replies_and_asks_for_none_back(tmp_path):
    loaded = workload("--agent-trace", trace(tmp_path, [SESSION]), "--history", "dataset")
    turns = replay(loaded, [None, None, None])
    assert turns[2].messages is not None and list(turns[2].messages[1:]) == SESSION[1:]
    assert not any(t.wants_reply for t in turns)


def test_a_trace_without_replies_puts_the_models_text_before_the_next_turn(tmp_path):
    sglang = {"conversations": [[{"messages": [TASK]}, {"messages": [THANKS]}]]}
    loaded = workload("--agent-trace", trace(tmp_path, sglang, "t.json"))
    turns = replay(loaded, [model_call("m-1"), None])
    second = turns[1].messages
    assert second is not None and second[1:] == ({"role": "assistant", "content": ""}, THANKS)
    assert turns[1].extra["history"] == "model_text"


def test_history_dataset_on_a_trace_without_replies_is_one_line(tmp_path):
    sglang = {"conversations": [[{"messages": [TASK]}, {"messages": [THANKS]}]]}
    with pytest.raises(ConfigError, match="records none .* use --history model"):
        workload("--agent-trace", trace(tmp_path, sglang, "t.json"), "--history", "dataset")


def test_turns_are_sent_with_the_traces_tools_else_the_built_in_set(tmp_path):
    tools = [{"type": "function", "function": {"name": "execute_bash"}}]
    path = trace(tmp_path, [{"messages": SESSION, "tools": tools}, SESSION])
    loaded = workload("--agent-trace", path, "--tool-choice", "required")
    turns = replay(loaded, [None] * 6)
    assert [t.tools for t in turns] == [tuple(tools)] * 3 + [BUILTIN_TOOLS] * 3
    assert {t.tool_choice for t in turns} == {"required"}


def test_a_timed_session_waits_its_recorded_gaps_from_the_send_before(tmp_path):
    timed = [{**TASK, "timestamp": 100.0}, RECORDED_CALL, {**RESULT, "timestamp": 104.5}]
    loaded = workload("--agent-trace", trace(tmp_path, [timed]), "--think-time", "9")
    turns = replay(loaded, [None, None])
    assert [(t.delay, t.delay_from_send) for t in turns] == [(0.0, False), (4.5, True)]
    assert turns[1].extra["gap_s"] == 4.5


def test_an_untimed_session_waits_think_times(tmp_path):
    loaded = workload("--agent-trace", trace(tmp_path, [SESSION]), "--think-time", "3")
    turns = replay(loaded, [None] * 3)
    assert turns[0].delay == 0.0 and all(t.delay > 0 and not t.delay_from_send for t in turns[1:])


def test_turns_caps_each_session_and_sessions_of_different_lengths_have_no_fixed_count(tmp_path):
    path = trace(tmp_path, [SESSION, SESSION[:3]])
    assert workload("--agent-trace", path).requests_per_session is None
    capped = workload("--agent-trace", path, "--turns", "2")
    assert capped.requests_per_session == 2


def test_a_replays_warm_up_is_the_files_first_turn_and_draws_no_session(tmp_path):
    loaded = workload("--agent-trace", trace(tmp_path, [SESSION, [THANKS]]))
    drawn: list[int] = []
    someone = loaded.new_user(0, lambda: drawn.append(1) or 1)
    warmup = loaded.next_request(someone, Slot(0, warmup=True))
    assert (warmup.turns, drawn) == (1, [])
    assert warmup.messages is not None and warmup.messages[0]["content"].endswith(TASK["content"])


@pytest.mark.parametrize(
    "args",
    [
        ["--tool-turns", "3"],
        ["--on-text-reply", "stop"],
        ["--tool-result-tokens", "9"],
        ["--prompts", "prompts/prompts.txt.other"],
    ],
)
def test_the_synthetic_sessions_options_are_refused_with_a_trace(tmp_path, args):
    with pytest.raises(ConfigError, match="--agent-trace replays the trace's sessions: drop"):
        run_options("--agent-trace", trace(tmp_path, [SESSION]), *args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workload", "fresh"], "--workload fresh has its own"),
        (["--trace", "t.jsonl"], "--agent-trace and --trace are two replays"),
    ],
)
def test_agent_trace_with_another_workload_or_replay_is_one_line(tmp_path, args, message):
    with pytest.raises(ConfigError, match=message):
        run_options("--agent-trace", trace(tmp_path, [SESSION]), *args)
