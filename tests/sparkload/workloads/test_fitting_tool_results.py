"""Issue 48, item 6: the agent's tool results are token-exact as ``--input-tokens`` prompts are,
fitted by the same counter to the tokens of a message's content alone."""

from __future__ import annotations

import statistics

from tokenizers import Tokenizer

from sparkload.sim.textlength import estimate_tokens
from sparkload.workloads.coding_tools import ARGUMENTS_ERROR, tool_result
from sparkload.workloads.fitting import (
    METHOD_ESTIMATE,
    Content,
    Estimate,
    FileTokenizer,
    ServerTokenizer,
    synthesize_results,
)
from sparkload.workloads.lengths import DISTRIBUTION_POOL, SINGLE_POOL
from tests.sparkload.workloads.test_fitting import bpe  # noqa: F401 - the fixture

TEMPLATE = 15  # an empty user message's tokens by the server's count below


class TemplatedServer(ServerTokenizer):
    """The target's /tokenize as vLLM's counts a user message: its chat template's own tokens
    and the content's (here by the estimate)."""

    def count(self, text: str) -> int:
        return TEMPLATE + (estimate_tokens(text) if text else 0)


def server() -> TemplatedServer:
    return TemplatedServer("http://127.0.0.1:1", "m", True, {}, True)


def test_every_tool_result_has_exactly_its_tokens_by_the_tokenizer_file(bpe):  # noqa: F811
    results = synthesize_results(FileTokenizer(bpe), 512, 0.0, seed=3)
    encode = Tokenizer.from_file(str(bpe)).encode
    assert len(set(results.texts)) == len(results.texts) == SINGLE_POOL
    assert {len(encode(t, add_special_tokens=False).ids) for t in results.texts} == {512}
    assert results.source["token_count"]["exact"] is True


def test_a_servers_count_of_a_result_leaves_out_its_chat_template():
    results = synthesize_results(server(), 512, 0.0, seed=3)
    assert {estimate_tokens(text) for text in results.texts} == {512}
    assert {Content(server()).count(text) for text in results.texts} == {512}


def test_the_estimate_and_a_tokenizer_file_count_the_text_alone_already(bpe):  # noqa: F811
    assert Content(Estimate()).count("abcd" * 10) == 10
    assert Content(FileTokenizer(bpe)).count("") == 0


def test_a_spread_of_result_lengths_is_a_pool_of_exact_texts_around_the_mean():
    results = synthesize_results(Estimate(), 200, 50.0, seed=1)
    counts = [estimate_tokens(text) for text in results.texts]
    assert len(counts) == DISTRIBUTION_POOL
    assert statistics.mean(counts) == 200 and abs(statistics.pstdev(counts) - 50) < 1
    assert results.source["token_count"]["method"] == METHOD_ESTIMATE


def test_an_error_result_puts_the_error_line_in_place_of_the_texts_start():
    text = synthesize_results(Estimate(), 100, 0.0, seed=1).texts[0]
    error = tool_result(text, arguments_valid=False)
    assert error.startswith(ARGUMENTS_ERROR) and len(error) == len(text)
    assert tool_result(text) == text
