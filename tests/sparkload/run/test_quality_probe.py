"""run --quality-probe's pure parts: which sessions carry the probe's items, the settle-time
checks, and the master's per-level tally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.errors import ConfigError
from sparkload.quality import probes
from sparkload.records import PROBE_GRADE, STATUS_OK, RequestRecord
from sparkload.run import quality_probe
from sparkload.run.quality_probe import ProbeDealer, ProbeTally
from sparkload.stages import MEASURE, WARMUP, Stage
from sparkload.transport.tally import Reply
from tests.options import run_options

ITEMS = probes.arithmetic(40)


def dealt(dealer: ProbeDealer, stage: Stage, sessions: int) -> list[int | None]:
    return [dealer.take(stage) for _ in range(sessions)]


def test_a_level_sends_its_k_items_spread_over_its_sessions() -> None:
    dealer = ProbeDealer(ITEMS, per_level=4, requests_per_user=10)
    taken = dealt(dealer, Stage(MEASURE, 0, 4), 40)
    assert [i for i, item in enumerate(taken) if item is not None] == [9, 19, 29, 39]
    assert [item for item in taken if item is not None] == [0, 1, 2, 3]


def test_a_level_shorter_than_k_sends_an_item_in_every_session() -> None:
    dealer = ProbeDealer(ITEMS, per_level=8, requests_per_user=5)
    assert dealt(dealer, Stage(MEASURE, 0, 1), 5) == [0, 1, 2, 3, 4]


def test_each_level_asks_items_of_its_own() -> None:
    dealer = ProbeDealer(ITEMS, per_level=4, requests_per_user=4)
    first = {i for i in dealt(dealer, Stage(MEASURE, 0, 2), 8) if i is not None}
    second = {i for i in dealt(dealer, Stage(MEASURE, 1, 4), 16) if i is not None}
    assert first == {0, 1, 2, 3} and second == {4, 5, 6, 7}


def test_sessions_past_the_level_s_count_and_warm_ups_send_no_item() -> None:
    dealer = ProbeDealer(ITEMS, per_level=2, requests_per_user=2)
    dealt(dealer, Stage(MEASURE, 0, 1), 2)
    assert dealer.take(Stage(MEASURE, 0, 1)) is None
    assert dealer.take(Stage(WARMUP, 1, 1)) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"question": "How many?"}\n', "not an item sparkload grades"),
        ("", "no items in it"),
        ("not json\n", " line 1: not JSON"),
        ('{"question": "q", "answer": "42"}\n', "has no '#### N' final answer"),
    ],
    ids=["wrong-fields", "empty", "not-json", "unparsable-answer"],
)
def test_a_bad_dataset_is_one_error_naming_the_flag_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(text)
    with pytest.raises(ConfigError) as raised:
        quality_probe.check(run_options("--quality-probe", str(path)), 1, 1)
    assert str(raised.value).startswith(f"--quality-probe: {path}")
    assert expected in str(raised.value)


def test_a_missing_file_names_the_built_in_probes_too(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="or give one of arithmetic, retrieval"):
        quality_probe.check(run_options("--quality-probe", str(tmp_path / "gsm8k")), 1, 1)


def test_a_workload_of_conversations_is_refused() -> None:
    with pytest.raises(ConfigError, match="sessions hold several requests"):
        quality_probe.check(run_options("--quality-probe", "arithmetic"), None, 1)


def test_an_open_loop_run_is_refused() -> None:
    options = run_options("--quality-probe", "arithmetic", "--arrival-rate", "2")
    with pytest.raises(ConfigError, match="closed-loop ladders only"):
        quality_probe.check(options, 1, 1)


def test_a_run_of_several_processes_is_refused() -> None:
    with pytest.raises(ConfigError, match="one process only"):
        quality_probe.check(run_options("--quality-probe", "arithmetic"), 1, 2)


def test_a_built_in_probe_has_k_items_for_every_level_of_the_plan() -> None:
    options = run_options(
        "--quality-probe", "arithmetic", "--quality-items", "6", "--ladder", "1,2,4"
    )
    items = quality_probe.items_for(options, None)
    assert items is not None and len(items.items) == 18


def test_a_built_in_probe_has_items_for_the_levels_refine_knee_may_add_too() -> None:
    options = run_options(
        "--quality-probe",
        "arithmetic",
        "--quality-items",
        "6",
        "--ladder",
        "1,2,4,8",
        "--refine-knee",
    )
    items = quality_probe.items_for(options, None)
    assert items is not None and len(items.items) == 6 * (4 + 2)


def record(index: int, item: int, reply: str, level: int = 0, concurrency: int = 4) -> dict:
    measured = RequestRecord(
        request_id=f"r{item}",
        level=concurrency,
        level_index=level,
        phase="measure",
        worker="local",
        user=0,
        endpoint="http://127.0.0.1:1",
        model="m",
        prompt_index=index,
        max_tokens=16,
        start_time=0.0,
        status=STATUS_OK,
    )
    answer = Reply([reply])
    quality_probe.grade_into(ITEMS, item, measured, answer)
    return measured.to_dict()


def test_the_record_carries_the_grade_of_its_reply() -> None:
    right = record(0, 0, f"#### {ITEMS.items[0].expected}")
    wrong = record(1, 1, "#### -1")
    assert right["extra"][PROBE_GRADE]["correct"] is True
    assert wrong["extra"][PROBE_GRADE] == {
        "probe": "arithmetic",
        "item": ITEMS.items[1].id,
        "correct": False,
        "extracted": "-1",
    }


def test_the_tally_is_per_level_and_pooled_with_the_level_s_requests() -> None:
    tally = ProbeTally(ITEMS)
    for i in range(4):
        tally.add(record(i, i, f"#### {ITEMS.items[i].expected}" if i else "no", level=0))
    for i in range(4, 8):
        tally.add(record(i, i, f"#### {ITEMS.items[i].expected}", level=1, concurrency=8))
    plain = record(0, 0, "x", level=1, concurrency=8)
    del plain["extra"][PROBE_GRADE]
    tally.add(plain)
    entry = json.loads(json.dumps(tally.entry([0, 1], complete=True).to_dict()))
    assert [(r["n"], r["correct"], r["planned"]) for r in entry["results"]] == [(8, 7, 8)]
    assert [
        (level["concurrency"], level["requests"], level["results"][0]["correct"])
        for level in entry["levels"]
    ] == [(4, 4, 3), (8, 5, 4)]


def test_the_console_says_each_level_s_accuracy_then_the_pooled_one() -> None:
    tally = ProbeTally(ITEMS)
    for i in range(4):
        tally.add(record(i, i, f"#### {ITEMS.items[i].expected}" if i else "no", level=0))
    for i in range(4, 6):
        tally.add(record(i, i, f"#### {ITEMS.items[i].expected}", level=1, concurrency=8))
    lines = tally.lines([0, 1])
    assert [line.split(" (95 %")[0] for line in lines] == [
        "quality probe C=4: arithmetic: 3/4 correct, 75.0 %",
        "quality probe C=8: arithmetic: 2/2 correct, 100.0 %",
        "quality probe, pooled: arithmetic: 5/6 correct, 83.3 %",
    ]
    assert lines[0].endswith(f"; wrong: {ITEMS.items[0].id}")
