"""Traces to replay: Mooncake JSONL and Azure CSV read as lines in time order, a bad line named,
and prompts whose shared block ids become shared leading text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs.traces import AZURE, MOONCAKE, load_trace
from sparkload.sim.textlength import estimate_tokens
from sparkload.stages import Arrival
from sparkload.workloads import registry
from sparkload.workloads.blocktext import UNITS, prompt_text
from sparkload.workloads.contract import Slot, UserState
from sparkload.workloads.trace import TraceWorkload, reused_blocks
from tests.options import run_options

BLOCK = 512


def mooncake(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def line(ms: int, input_length: int, hash_ids: list[int], output_length: int = 8) -> dict:
    return {
        "timestamp": ms,
        "input_length": input_length,
        "output_length": output_length,
        "hash_ids": hash_ids,
    }


def test_a_mooncake_trace_is_read_in_time_order_in_seconds_from_its_first_line(tmp_path):
    trace = load_trace(
        mooncake(tmp_path / "t.jsonl", line(2500, 600, [1, 2]), line(500, 700, [1, 3]))
    )
    assert trace.format == MOONCAKE
    assert [(x.time_s, x.input_length, x.hash_ids, x.number) for x in trace.lines] == [
        (0.0, 700, (1, 3), 2),
        (2.0, 600, (1, 2), 1),
    ]
    assert trace.offered_rate == pytest.approx(0.5)


def test_an_azure_trace_is_read_by_its_columns_with_no_block_ids(tmp_path):
    path = tmp_path / "azure.csv"
    path.write_text(
        "TIMESTAMP,ContextTokens,GeneratedTokens\n"
        "2023-11-16 18:15:46.6805900,374,44\n"
        "2023-11-16 18:15:50.9951690,396,109\n"
    )
    trace = load_trace(path)
    assert trace.format == AZURE
    first, second = trace.lines
    assert (first.input_length, first.output_length, first.hash_ids) == (374, 44, ())
    assert second.time_s == pytest.approx(4.314579)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"timestamp": 0, "input_length": 5, "output_length": 2}\n{"timestamp": 9}\n',
            "line 2: no",
        ),
        ("{}\nnot json\n", "line 1: no timestamp, input_length, output_length"),
        ('[1]\n{"timestamp": 1}\n', "line 1: expected a JSON object"),
        ('{"timestamp": "x", "input_length": 5, "output_length": 2}\n', "timestamp 'x'"),
        ('{"timestamp": 0, "input_length": 0, "output_length": 2}\n', "input_length 0"),
        ('{"timestamp": 0, "input_length": 5, "output_length": 2, "hash_ids": "a"}\n', "hash_ids"),
    ],
)
def test_a_bad_mooncake_line_is_one_line_naming_file_and_line(tmp_path, text, message):
    path = tmp_path / "t.jsonl"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_trace(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_an_azure_csv_without_its_columns_is_named(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("time,ContextTokens\n1,2\n")
    with pytest.raises(ConfigError, match="line 1: no TIMESTAMP, GeneratedTokens column"):
        load_trace(path)


def test_an_azure_timestamp_that_is_no_date_names_its_line(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,5,5\nnow,5,5\n")
    with pytest.raises(ConfigError, match="line 3: TIMESTAMP 'now'"):
        load_trace(path)


def test_a_trace_without_a_span_has_no_rate_to_replay(tmp_path):
    with pytest.raises(ConfigError, match="same timestamp"):
        load_trace(mooncake(tmp_path / "t.jsonl", line(5, 10, []), line(5, 10, [])))
    with pytest.raises(ConfigError, match="a replay needs two or more"):
        load_trace(mooncake(tmp_path / "t.jsonl", line(5, 10, [])))


def test_a_line_reuses_the_leading_blocks_an_earlier_line_sent_whole(tmp_path):
    trace = load_trace(
        mooncake(
            tmp_path / "t.jsonl",
            line(0, 2 * BLOCK + 100, [1, 2, 3]),  # blocks 1, 2 whole; 3 partial
            line(10, 3 * BLOCK + 5, [1, 2, 4, 5]),  # 1, 2 reused; 4 new
            line(20, 3 * BLOCK, [1, 2, 3]),  # 3 was only partial before: 2 reused
            line(30, 3 * BLOCK + 9, [1, 9, 4, 6]),  # 4 follows 1, 9 here: only 1 reused
        )
    )
    assert reused_blocks(trace.lines) == (0, 2, 2, 1)


def test_prompts_with_equal_leading_ids_share_exactly_that_leading_text():
    a = prompt_text((7, 8, 9), 3 * BLOCK, BLOCK, "salt", "a")
    b = prompt_text((7, 8, 10), 2 * BLOCK + 40, BLOCK, "salt", "b")
    shared = 2 * BLOCK * 4  # characters of two blocks (4 a token)
    assert a[:shared] == b[:shared] and a[shared : shared + 160] != b[shared:]


def test_a_prompt_has_its_length_in_one_token_units_by_the_simulators_count():
    text = prompt_text((1, 2), 2 * BLOCK - 37, BLOCK, "s", "x")
    assert estimate_tokens(text) == len(text) // 4 == 2 * BLOCK - 37
    assert text[:8] in {u + v for u in UNITS for v in UNITS}


def test_a_prompt_longer_than_its_ids_goes_on_with_text_of_its_own():
    a = prompt_text((1,), 2 * BLOCK, BLOCK, "s", "line1")
    b = prompt_text((1,), 2 * BLOCK, BLOCK, "s", "line2")
    assert a[: BLOCK * 4] == b[: BLOCK * 4] and a[BLOCK * 4 :] != b[BLOCK * 4 :]


def test_a_new_salt_makes_new_text():
    assert prompt_text((1,), 64, BLOCK, "run-a", "x") != prompt_text((1,), 64, BLOCK, "run-b", "x")


def test_the_trace_workload_sends_each_line_as_its_arrival_names_it(tmp_path):
    path = mooncake(
        tmp_path / "t.jsonl", line(0, BLOCK + 3, [1, 2], 5), line(1000, BLOCK + 9, [1, 3], 7)
    )
    opts = run_options("--trace", str(path))
    workload = registry.load(opts)
    assert isinstance(workload, TraceWorkload) and opts.workload.name == "trace"
    planned = workload.next_request(UserState(0, lambda: 0), Slot(0, Arrival(0.0, 0.0, line=1)))
    assert (planned.max_tokens, estimate_tokens(planned.text)) == (7, BLOCK + 9)
    assert planned.extra["trace_line"] == 2
    assert (planned.extra["reused_blocks"], planned.extra["expected_cached_tokens"]) == (1, BLOCK)
    assert workload.sampling.pinned  # the trace's output length is sent exactly


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--input-tokens", "100"], "drop --input-tokens"),
        (["--max-tokens", "10"], "drop --max-tokens"),
        (["--workload", "edit"], "--workload edit has its own"),
        (["--arrival-rate", "2"], "drop --arrival-rate"),
        (["--ladder", "4"], "drop --ladder"),
    ],
)
def test_options_that_clash_with_a_trace_are_one_line(tmp_path, extra, message):
    path = mooncake(tmp_path / "t.jsonl", line(0, 10, []), line(10, 10, []))
    with pytest.raises(ConfigError, match=message):
        run_options("--trace", str(path), *extra)
