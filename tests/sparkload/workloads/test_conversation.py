"""The conversation workload: what each turn sends, how the history grows, and its rules."""

from __future__ import annotations

import itertools
import json
import statistics

import pytest

from sparkload.errors import ConfigError
from sparkload.records import STATUS_ERROR, RequestRecord
from sparkload.transport.tally import Reply
from sparkload.workloads import registry
from sparkload.workloads.contract import PlannedRequest, Slot
from sparkload.workloads.conversation import ID_LINE, ConversationUser, ConversationWorkload
from tests.options import parsed_options, run_options


def workload(*args: str) -> ConversationWorkload:
    loaded = registry.load(run_options("--workload", "conversation", *args))
    assert isinstance(loaded, ConversationWorkload)
    return loaded


def user(loaded: ConversationWorkload, ordinal: int = 0) -> ConversationUser:
    order = itertools.cycle(range(loaded.prompt_count))
    return loaded.new_user(ordinal, lambda: next(order))


def record(status: str = "ok", response_id: str | None = None) -> RequestRecord:
    return RequestRecord(
        "r",
        1,
        0,
        "measure",
        "local",
        0,
        "u",
        "m",
        0,
        128,
        0.0,
        status=status,
        response_id=response_id,
    )


def converse(
    loaded: ConversationWorkload, someone: ConversationUser, requests: int, level: int = 0
) -> list[PlannedRequest]:
    """``requests`` requests of one user, each answered "reply to turn K" (ok)."""
    planned = []
    for _ in range(requests):
        request = loaded.next_request(someone, Slot(level))
        loaded.after(someone, request, record(), Reply([f"reply to turn {request.turn}"]))
        planned.append(request)
    return planned


def dataset(tmp_path, lines: list[dict], name: str = "chats.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


THREE_TURNS = {
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "second answer"},
        {"role": "user", "content": "third question"},
    ]
}


def test_every_turn_sends_the_previous_turn_then_its_reply_then_one_new_user_message():
    loaded = workload("--turns", "4")
    turns = converse(loaded, user(loaded), 4)
    for before, after in itertools.pairwise(turns):
        assert after.messages[: len(before.messages)] == before.messages
        assert after.messages[len(before.messages)] == {
            "role": "assistant",
            "content": f"reply to turn {before.turn}",
        }
        assert len(after.messages) == len(before.messages) + 2
        assert after.messages[-1]["role"] == "user"


def test_the_history_encodes_to_the_same_bytes_turn_after_turn():
    loaded = workload("--turns", "3")
    turns = converse(loaded, user(loaded), 3)
    second, third = (json.dumps(list(t.messages)) for t in turns[1:])
    assert third.startswith(second[:-1])  # the second turn's list, without its closing bracket


def test_a_conversation_has_its_planned_turns_then_the_next_one_begins():
    loaded = workload("--turns", "3")
    turns = converse(loaded, user(loaded), 6)
    assert [(t.turn, t.turns) for t in turns] == [(1, 3), (2, 3), (3, 3)] * 2
    assert turns[0].session_id == turns[2].session_id != turns[3].session_id
    assert len(turns[3].messages) == 1


def test_a_first_message_starts_with_its_conversations_id_and_differs_from_every_other():
    loaded = workload("--turns", "1")
    first = [converse(loaded, user(loaded, n), 3) for n in range(4)]
    turns = [t for conversation in first for t in conversation]
    assert all(t.messages[0]["content"].startswith(ID_LINE.format(t.session_id)) for t in turns)
    assert (
        len({t.session_id for t in turns}) == len({t.messages[0]["content"] for t in turns}) == 12
    )


def test_later_user_messages_are_prompts_of_the_file_in_the_seeded_order():
    loaded = workload("--turns", "3")
    turns = converse(loaded, user(loaded), 3)
    assert turns[0].messages[0]["content"].endswith(loaded.prompts[0])
    assert [t.messages[-1]["content"] for t in turns[1:]] == list(loaded.prompts[1:3])
    assert [t.prompt_index for t in turns] == [0, 1, 2]


def test_each_turn_asks_the_runs_output_length():
    loaded = workload("--turns", "2", "--max-tokens", "64")
    assert {t.max_tokens for t in converse(loaded, user(loaded), 4)} == {64}


def test_a_failed_turn_stays_out_of_the_history():
    loaded = workload("--turns", "3")
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(), Reply(["answer"]))
    failed = loaded.next_request(someone, Slot(0))
    loaded.after(someone, failed, record(STATUS_ERROR), Reply(["half an ans"]))
    third = loaded.next_request(someone, Slot(0))
    assert third.messages[:2] == (first.messages[0], {"role": "assistant", "content": "answer"})
    assert failed.messages[-1] not in third.messages
    assert (third.turn, third.extra["history_turns"]) == (3, 1)


def test_the_warm_up_is_a_one_turn_conversation_of_its_own():
    loaded = workload("--turns", "4")
    someone = user(loaded)
    warmup = loaded.next_request(someone, Slot(0, warmup=True))
    loaded.after(someone, warmup, record(), Reply(["reply"]))
    measured = loaded.next_request(someone, Slot(0))
    assert (warmup.turn, warmup.turns) == (1, 1)
    assert (measured.turn, measured.turns) == (1, 4)
    assert measured.session_id != warmup.session_id


def test_a_new_level_starts_a_new_conversation():
    loaded = workload("--turns", "4")
    someone = user(loaded)
    converse(loaded, someone, 2, level=0)
    moved_on = loaded.next_request(someone, Slot(1))
    assert moved_on.turn == 1 and len(moved_on.messages) == 1


def test_fixed_turns_tell_the_master_each_conversations_length():
    assert workload("--turns", "5").requests_per_session == 5
    assert workload().requests_per_session == 4  # the default
    assert workload("--turns-stddev", "1").requests_per_session is None


def test_drawn_turns_spread_around_the_mean_never_below_one_and_repeat_with_the_seed():
    def drawn(seed: str) -> list[int]:
        loaded = workload("--turns", "3", "--turns-stddev", "2", "--seed", seed)
        return [t.turns for t in converse(loaded, user(loaded), 3000) if t.turn == 1]

    counts = drawn("7")
    assert min(counts) == 1 and max(counts) > 6
    assert abs(statistics.mean(counts) - 3.3) < 0.3  # the normal's mass below 1 lifted to 1
    assert counts[:50] == drawn("7")[:50] != drawn("8")[:50]


def test_think_time_waits_before_every_turn_but_the_first_exponentially_around_its_mean():
    loaded = workload("--turns", "4", "--think-time", "2.5")
    turns = converse(loaded, user(loaded), 4000)
    first = [t.delay for t in turns if t.turn == 1]
    later = [t.delay for t in turns if t.turn > 1]
    assert set(first) == {0.0}
    assert abs(statistics.mean(later) - 2.5) < 0.15
    assert abs(statistics.pstdev(later) - 2.5) < 0.25  # an exponential's sd is its mean
    assert all(t.extra["think_s"] == t.delay for t in turns)


def test_no_think_time_no_delay():
    loaded = workload("--turns", "3")
    assert {t.delay for t in converse(loaded, user(loaded), 6)} == {0.0}


def test_a_dataset_conversation_replays_its_user_turns_after_its_system_message(tmp_path):
    loaded = workload("--prompts", dataset(tmp_path, [THREE_TURNS]))
    turns = converse(loaded, user(loaded), 3)
    assert [t.messages[0] for t in turns] == [THREE_TURNS["messages"][0]] * 3
    assert turns[0].messages[1]["content"] == (
        ID_LINE.format(turns[0].session_id) + "first question"
    )
    assert [t.messages[-1]["content"] for t in turns[1:]] == ["second question", "third question"]
    assert turns[2].messages[4] == {"role": "assistant", "content": "reply to turn 2"}


def test_history_dataset_carries_the_files_own_replies(tmp_path):
    loaded = workload("--prompts", dataset(tmp_path, [THREE_TURNS]), "--history", "dataset")
    turns = converse(loaded, user(loaded), 3)
    assert [m["content"] for m in turns[2].messages[2::2]] == ["first answer", "second answer"]
    assert not turns[0].wants_reply


def test_history_server_sends_the_new_message_and_the_last_answered_response_id(tmp_path):
    loaded = workload(
        "--api", "responses", "--history", "server", "--prompts", dataset(tmp_path, [THREE_TURNS])
    )
    someone = user(loaded)
    turns = []
    for i in range(3):
        turns.append(loaded.next_request(someone, Slot(0)))
        loaded.after(someone, turns[-1], record(response_id=f"resp_{i}"), None)
    system, first = THREE_TURNS["messages"][:2]
    assert turns[0].messages == (
        system,
        {"role": "user", "content": ID_LINE.format(turns[0].session_id) + first["content"]},
    )
    assert [t.messages for t in turns[1:]] == [
        (system, {"role": "user", "content": "second question"}),
        (system, {"role": "user", "content": "third question"}),
    ]
    assert [t.history_id for t in turns] == [None, "resp_0", "resp_1"]
    assert not any(t.wants_reply for t in turns)  # the server keeps the replies
    assert [t.extra["history_turns"] for t in turns] == [0, 1, 2]


def test_history_server_after_a_failed_turn_continues_the_last_answered_response():
    loaded = workload("--api", "responses", "--history", "server", "--turns", "3")
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(response_id="resp_ok"), None)
    failed = loaded.next_request(someone, Slot(0))
    loaded.after(someone, failed, record(STATUS_ERROR, response_id="resp_failed"), None)
    third = loaded.next_request(someone, Slot(0))
    assert (failed.history_id, third.history_id) == ("resp_ok", "resp_ok")
    assert third.extra["history_turns"] == 1


def test_history_server_names_vllms_response_store_when_a_continued_turn_gets_a_404():
    loaded = workload("--api", "responses", "--history", "server", "--turns", "2")
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    loaded.after(someone, first, record(response_id="resp_1"), None)
    second = loaded.next_request(someone, Slot(0))
    lost = record(STATUS_ERROR)
    lost.error_kind, lost.error = "http_404", "Response with id 'resp_1' not found."
    loaded.after(someone, second, lost, None)
    assert lost.error.startswith("Response with id 'resp_1' not found. (--history server:")
    assert "VLLM_ENABLE_RESPONSES_API_STORE=1" in lost.error


def test_history_server_leaves_a_first_turns_404_as_the_server_said_it():
    loaded = workload("--api", "responses", "--history", "server", "--turns", "2")
    someone = user(loaded)
    first = loaded.next_request(someone, Slot(0))
    missing = record(STATUS_ERROR)
    missing.error_kind, missing.error = "http_404", "Not Found"
    loaded.after(someone, first, missing, None)
    assert missing.error == "Not Found"  # no earlier response was named: a wrong path, say


def test_history_server_begins_each_conversation_without_a_previous_response():
    loaded = workload("--api", "responses", "--history", "server", "--turns", "2")
    someone = user(loaded)
    planned = []
    for i in range(4):
        planned.append(loaded.next_request(someone, Slot(0)))
        loaded.after(someone, planned[-1], record(response_id=f"resp_{i}"), None)
    assert [p.history_id for p in planned] == [None, "resp_0", None, "resp_2"]


def test_turns_caps_a_dataset_conversation(tmp_path):
    loaded = workload("--prompts", dataset(tmp_path, [THREE_TURNS]), "--turns", "2")
    assert [t.turn for t in converse(loaded, user(loaded), 4)] == [1, 2, 1, 2]
    assert loaded.requests_per_session == 2


def test_dataset_conversations_of_different_lengths_leave_the_count_to_the_records(tmp_path):
    one_turn = {"prompt": "only question"}
    loaded = workload("--prompts", dataset(tmp_path, [THREE_TURNS, one_turn]))
    assert loaded.requests_per_session is None
    assert [t.turns for t in converse(loaded, user(loaded), 4) if t.turn == 1] == [3, 1]


def test_a_dataset_turn_asks_its_lines_length_unless_output_tokens_pins_it(tmp_path):
    path = dataset(tmp_path, [{**THREE_TURNS, "max_tokens": 40}])
    own = workload("--prompts", path)
    assert {t.max_tokens for t in converse(own, user(own), 3)} == {40}
    pinned = workload("--prompts", path, "--output-tokens", "16")
    assert {t.max_tokens for t in converse(pinned, user(pinned), 3)} == {16}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--turns", "0"], "--turns: '0' must be 1 or more"),
        (["--arrival-rate", "2"], "runs closed loop"),
        (["--api", "completions"], "use --api chat"),
        (["--identical-prompts"], "drop --identical-prompts"),
        (["--cache-bust"], "drop --identical-prompts / --cache-bust"),
        (["--input-tokens", "100"], "--workload conversation has its own"),
        (["--history", "dataset"], "plain prompt file"),
        (["--history", "server"], "give --api responses"),
    ],
)
def test_conflicting_options_are_one_line_config_errors(args, said):
    with pytest.raises(ConfigError, match=said):
        registry.load(run_options("--workload", "conversation", *args))


def test_turns_stddev_with_a_dataset_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="a dataset's conversations have their own"):
        workload("--prompts", dataset(tmp_path, [THREE_TURNS]), "--turns-stddev", "1")


def test_a_conversation_file_with_no_user_turn_is_a_config_error(tmp_path):
    only_system = {"messages": [{"role": "system", "content": "nobody asks"}]}
    with pytest.raises(ConfigError, match="holds no conversation with a user turn"):
        workload("--prompts", dataset(tmp_path, [only_system]))


@pytest.mark.parametrize(
    "args",
    [["--turns", "3"], ["--think-time", "1"], ["--turns-stddev", "1"], ["--history", "dataset"]],
)
def test_conversation_options_for_another_workload_are_refused(args):
    with pytest.raises(ConfigError, match="for --workload conversation"):
        registry.settle(parsed_options(*args))


def test_every_turn_of_a_dataset_conversation_carries_its_line_s_category(tmp_path):
    loaded = workload("--prompts", dataset(tmp_path, [{**THREE_TURNS, "category": "multi-turn"}]))
    turns = converse(loaded, user(loaded), 3)
    assert [t.category for t in turns] == ["multi-turn"] * 3
