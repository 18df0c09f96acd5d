"""The simulator's /v1/embeddings: each input a prefill through the engine, one JSON answer of
small deterministic vectors and the usage's prompt tokens."""

from __future__ import annotations

import math

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from sparkload.sim.embeddings import DIMENSIONS, inputs_of, vector
from sparkload.sim.textlength import estimate_tokens
from tests.servers import running_sim

TIMEOUT = 10
TEXTS = ["The load test starts at noon. " * 10, "Short one.", "A third text, of medium length."]


def test_a_texts_vector_is_the_same_every_time_and_of_unit_length():
    assert vector("alpha") == vector("alpha") != vector("beta")
    assert len(vector("alpha")) == DIMENSIONS
    assert math.isclose(math.fsum(x * x for x in vector("alpha")), 1.0)


def test_input_is_one_string_or_a_list_of_strings():
    assert inputs_of({"input": "one"}) == ["one"]
    assert inputs_of({"input": ["a", "b"]}) == ["a", "b"]


@pytest.mark.parametrize("value", [None, [], [1, 2], 7])
def test_any_other_input_is_refused(value):
    with pytest.raises(ValueError, match="input must be"):
        inputs_of({"input": value})


@pytest.fixture(scope="module")
def sim_url():
    with running_sim("--profile", "fp8", "--time-scale", "50") as url:
        yield url


def embed(url: str, **body) -> requests.Response:
    return requests.post(f"{url}/v1/embeddings", json={"input": TEXTS, **body}, timeout=TIMEOUT)


def prompt_tokens_counted(url: str) -> float:
    text = requests.get(f"{url}/metrics", timeout=TIMEOUT).text
    return next(
        s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.name == "vllm:prompt_tokens_total"
    )


@pytest.mark.e2e
def test_the_answer_has_one_vector_per_input_in_order(sim_url):
    answer = embed(sim_url).json()
    assert [d["index"] for d in answer["data"]] == [0, 1, 2]
    assert [d["embedding"] for d in answer["data"]] == [vector(t) for t in TEXTS]


@pytest.mark.e2e
def test_usage_counts_every_inputs_prompt_tokens_and_no_completion(sim_url):
    usage = embed(sim_url).json()["usage"]
    expected = sum(estimate_tokens(t) for t in TEXTS)
    assert usage == {"prompt_tokens": expected, "total_tokens": expected, "completion_tokens": 0}


@pytest.mark.e2e
def test_every_input_is_prefilled_by_the_engine(sim_url):
    before = prompt_tokens_counted(sim_url)
    embed(sim_url)
    assert prompt_tokens_counted(sim_url) - before == sum(estimate_tokens(t) for t in TEXTS)


@pytest.mark.e2e
def test_an_unknown_model_is_a_404(sim_url):
    assert embed(sim_url, model="nope").status_code == 404


@pytest.mark.e2e
def test_a_bad_input_is_a_400_naming_it(sim_url):
    response = embed(sim_url, input=[1, 2])
    assert response.status_code == 400 and response.json()["error"]["param"] == "input"
