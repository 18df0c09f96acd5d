"""The synthetic pool with a length distribution and shared prefixes: each prompt fitted to its
own length, prefixes before it, and the chat workload taking the prefixes in turn."""

from __future__ import annotations

import statistics

import pytest

from sparkload.config.parsers import Component
from sparkload.config.parsers import seq_dist as parse_seq_dist
from sparkload.errors import ConfigError
from sparkload.workloads import registry
from sparkload.workloads.chat import prefix_rotation
from sparkload.workloads.contract import SEPARATOR, Slot, UserState
from sparkload.workloads.fitting import Estimate, FileTokenizer, synthesize
from sparkload.workloads.lengths import DISTRIBUTION_POOL
from tests.options import run_options
from tests.sparkload.workloads.test_fitting import train_bpe


def test_a_spread_of_lengths_is_a_pool_of_64_prompts_each_of_its_own_length():
    synthetic = synthesize(Estimate(), (Component(1000, 16, 1.0, 200, 4),), seed=1)
    lengths = [Estimate().count(text) for text in synthetic.texts]
    assert len(lengths) == DISTRIBUTION_POOL
    assert statistics.fmean(lengths) == pytest.approx(1000, abs=1)
    assert statistics.pstdev(lengths) == pytest.approx(200, abs=1)
    assert statistics.fmean(synthetic.outputs) == pytest.approx(16, abs=0.5)
    assert synthetic.source["token_count"]["exact"] is True
    assert synthetic.source["lengths"][0]["input_stddev"] == 200


def test_a_mix_is_fitted_by_a_tokenizer_file_to_each_prompts_length(tmp_path):
    counter = FileTokenizer(train_bpe(tmp_path / "tokenizer.json"))
    synthetic = synthesize(counter, parse_seq_dist("--seq-dist", "40,8:0.75;300,8:0.25"), seed=2)
    counted = sorted(counter.count(text) for text in synthetic.texts)
    assert counted == [40] * 48 + [300] * 16


def test_every_prompt_starts_with_its_prefix_and_counts_prefix_plus_its_own_length(tmp_path):
    counter = FileTokenizer(train_bpe(tmp_path / "tokenizer.json"))
    synthetic = synthesize(counter, 50, seed=0, prefix_tokens=200, prefix_count=3)
    assert len(synthetic.prefixes) == 3 and len(synthetic.texts) == 18  # 6 rounds of 3
    for index in range(len(synthetic.texts)):
        prompt = synthetic.prompt(index)
        assert prompt.startswith(synthetic.prefixes[index % 3] + SEPARATOR)
        assert counter.count(prompt) == 250
    assert [counter.count(p) for p in synthetic.prefixes] == [200] * 3
    assert synthetic.source["prefix"] == {"tokens": 200, "count": 3, "counted": [200] * 3}
    assert synthetic.source["token_count"]["counts_made"] > 0


def test_prefixes_and_prompts_are_distinct_texts():
    synthetic = synthesize(Estimate(), 64, seed=0, prefix_tokens=128, prefix_count=4)
    assert len(set(synthetic.prefixes)) == 4 and len(set(synthetic.texts)) == 16


def test_a_prefix_shorter_than_the_chat_template_is_one_clear_line():
    class Templated(Estimate):
        def count(self, text: str) -> int:
            return super().count(text) + 30

    with pytest.raises(ConfigError, match="--prefix-tokens 20: a one-character prompt"):
        synthesize(Templated(), 100, seed=0, prefix_tokens=20)


def test_the_rotation_takes_every_prefix_once_per_round():
    order = prefix_rotation(pool=12, prefixes=4, seed=5)
    assert sorted(order) == list(range(12))
    assert [index % 4 for index in order] == [0, 1, 2, 3] * 3


def test_a_process_sends_the_prefixes_in_turn_and_records_which():
    opts = run_options("--input-tokens", "32", "--prefix-tokens", "64", "--prefix-count", "4")
    workload = registry.load(opts, synthesize(Estimate(), 32, 0, 64, 4))
    user = UserState(0, lambda: 0)
    planned = [workload.next_request(user, Slot(0)) for _ in range(8)]
    assert [p.extra["prefix"] for p in planned] == [0, 1, 2, 3] * 2
    assert {p.extra["prefix_tokens"] for p in planned} == {64}
    assert all(Estimate().count(p.text) == 96 for p in planned)


def test_a_mix_asks_each_prompt_for_its_own_output_length_pinned():
    opts = run_options("--seq-dist", "32,8:0.5;64,24:0.5")
    synthetic = synthesize(Estimate(), opts.workload.seq_dist, opts.plan.seed)
    workload = registry.load(opts, synthetic)
    planned = [
        workload.next_request(UserState(0, lambda i=i: i), Slot(0))
        for i in range(len(synthetic.texts))
    ]
    lengths = {(Estimate().count(p.text), p.max_tokens) for p in planned}
    assert lengths == {(32, 8), (64, 24)} and workload.sampling.pinned


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--input-tokens-stddev", "5"], "give --input-tokens"),
        (
            ["--input-tokens", "9", "--output-tokens-stddev", "5"],
            "give --input-tokens and --output",
        ),
        (["--seq-dist", "9,9:1", "--output-tokens", "4"], "drop --output-tokens"),
        (["--prefix-count", "3", "--input-tokens", "9"], "--prefix-count without --prefix-tokens"),
        (["--workload", "fresh", "--prefix-tokens", "9"], "--prefix-tokens makes chat prompts"),
        (["--input-tokens", "9", "--cache-bust"], "--input-tokens and --cache-bust"),
        (["--arrival-process", "gamma"], "give --arrival-rate"),
    ],
)
def test_options_that_do_not_go_together_are_one_line(args, message):
    with pytest.raises(ConfigError, match=message):
        run_options(*args)
