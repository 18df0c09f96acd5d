"""Token-exact prompts: filler text fitted to N tokens by a tokenizer file, the estimate, or a
counter that stands for a server route; what cannot be met is one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from sparkload.errors import ConfigError
from sparkload.workloads.filler import filler_text
from sparkload.workloads.fitting import (
    METHOD_ESTIMATE,
    Estimate,
    FileTokenizer,
    ServerTokenizer,
    fit,
    synthesize,
)
from sparkload.workloads.lengths import SINGLE_POOL
from tests.servers import Script, scripted


def train_bpe(path: Path) -> Path:
    """A tiny BPE tokenizer trained here on the filler's own vocabulary (no download): words
    split into sub-word pieces, so a cut inside a word changes the count."""
    tokenizer = Tokenizer(models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=120, special_tokens=["[UNK]"])
    tokenizer.train_from_iterator([filler_text(4000, seed) for seed in range(8)], trainer)
    tokenizer.save(str(path))
    return path


@pytest.fixture(scope="module")
def bpe(tmp_path_factory) -> Path:
    return train_bpe(tmp_path_factory.mktemp("tok") / "tokenizer.json")


@pytest.mark.parametrize("tokens", [1, 7, 64, 512, 2000])
def test_a_fitted_prompt_has_exactly_n_tokens_by_the_tokenizer_file(bpe, tokens):
    counter = FileTokenizer(bpe)
    text, count = fit(counter, tokens, seed=3)
    assert count == tokens
    assert len(Tokenizer.from_file(str(bpe)).encode(text, add_special_tokens=False).ids) == tokens


def test_the_pool_is_distinct_exact_and_says_how_it_was_counted(bpe):
    synthetic = synthesize(FileTokenizer(bpe), 300, seed=5)
    assert len(set(synthetic.texts)) == len(synthetic.texts) == SINGLE_POOL
    counted = synthetic.source["token_count"]
    assert counted["method"] == f"tokenizer:{bpe}"
    assert (counted["exact"], counted["min"], counted["max"]) == (True, 300, 300)
    assert synthesize(FileTokenizer(bpe), 300, seed=5).texts == synthetic.texts  # seeded


def test_the_estimate_is_named_as_such():
    synthetic = synthesize(Estimate(), 100, seed=0)
    assert synthetic.source["token_count"]["method"] == METHOD_ESTIMATE
    assert {len(text) for text in synthetic.texts} == {400}


class TemplatedCounter(Estimate):
    """A server route's count: the text's tokens plus a chat template's 12 of its own."""

    def count(self, text: str) -> int:
        return super().count(text) + 12


def test_a_templated_count_is_met_by_a_shorter_text():
    text, count = fit(TemplatedCounter(), 100, seed=1)
    assert count == 100 and 87 * 4 < len(text) <= 88 * 4  # 88 tokens of text


def test_fewer_tokens_than_the_template_has_is_one_clear_line():
    with pytest.raises(ConfigError, match="--input-tokens 5: .* already counts 13 tokens"):
        synthesize(TemplatedCounter(), 5, seed=0)


def test_an_unreadable_tokenizer_file_is_one_line(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text("{not a tokenizer")
    with pytest.raises(ConfigError) as caught:
        FileTokenizer(path)
    assert str(caught.value).startswith(f"--tokenizer: cannot load {path}")
    assert "\n" not in str(caught.value)


UNPROCESSABLE = (
    b"HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/json\r\n"
    b"Content-Length: 2\r\n\r\n{}"
)


def test_a_tokenizer_route_in_a_form_sparkload_does_not_send_is_named_with_what_was_tried():
    with scripted(Script(tokenizer_answer=UNPROCESSABLE)) as server:
        found = ServerTokenizer.probe(server.url, "m", "chat", {}, verify_tls=True)
    assert found == [
        "vLLM's POST /tokenize {model, messages}: /tokenize answered HTTP 422",
        "llama.cpp's POST /apply-template {messages} + /tokenize {content}: "
        "/apply-template answered HTTP 422",
    ]


def test_an_answer_that_holds_no_count_is_said_so():
    odd = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n"
    with scripted(Script(tokenizer_answer=odd + b'{"ids": [1]}\n')) as server:
        found = ServerTokenizer.probe(server.url, "m", "completions", {}, verify_tls=True)
    assert found == [
        "vLLM's POST /tokenize {model, prompt}: an answer in a form sparkload does not read",
        "llama.cpp's POST /tokenize {content}: an answer in a form sparkload does not read",
    ]
