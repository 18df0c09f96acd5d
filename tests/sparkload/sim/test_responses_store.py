"""The simulator keeps responses for ``previous_response_id``: a continued request is the whole
conversation (its prompt count and its prefix-cache hits), an unknown or unkept id a 404."""

from __future__ import annotations

import pytest
import requests

from sparkload.sim.responses import ResponseStore, ResponsesWriter, UnknownResponse
from tests.servers import running_sim

TIMEOUT = 10
FIRST = "Tell me about load tests. " * 40


@pytest.fixture(scope="module")
def sim_url():
    with running_sim("--time-scale", "50", "--block-size", "16") as url:
        yield url


def respond(url: str, **body) -> requests.Response:
    payload = {"model": "sim", "max_output_tokens": 8, **body}
    return requests.post(f"{url}/v1/responses", json=payload, timeout=TIMEOUT)


def model_name(url: str) -> str:
    return requests.get(f"{url}/v1/models", timeout=TIMEOUT).json()["data"][0]["id"]


@pytest.mark.e2e
def test_a_continued_response_counts_the_whole_conversation_and_hits_its_cache(sim_url):
    model = model_name(sim_url)
    first = respond(sim_url, model=model, input=FIRST).json()
    reply = first["output"][-1]["content"][0]["text"]
    second = respond(
        sim_url, model=model, input="And then?", previous_response_id=first["id"]
    ).json()
    whole = [
        {"role": "user", "content": FIRST},
        {"role": "assistant", "content": reply},
        {"role": "user", "content": "And then?"},
    ]
    counted = requests.post(
        f"{sim_url}/tokenize", json={"model": model, "messages": whole}, timeout=TIMEOUT
    ).json()["count"]
    usage = second["usage"]
    assert usage["input_tokens"] == counted
    assert (
        usage["input_tokens_details"]["cached_tokens"] >= first["usage"]["input_tokens"] // 16 * 16
    )


@pytest.mark.e2e
def test_an_unknown_previous_response_is_a_404_naming_it(sim_url):
    answer = respond(sim_url, model=model_name(sim_url), input="hi", previous_response_id="resp_x")
    assert answer.status_code == 404
    assert answer.json()["error"]["message"] == "Response with id 'resp_x' not found."


@pytest.mark.e2e
def test_a_response_asked_not_to_be_stored_cannot_be_continued(sim_url):
    model = model_name(sim_url)
    first = respond(sim_url, model=model, input="hi", store=False).json()
    again = respond(sim_url, model=model, input="more", previous_response_id=first["id"])
    assert again.status_code == 404


def ended(response_id: str, text: str) -> ResponsesWriter:
    writer = ResponsesWriter(response_id, "m", 4, 0)
    writer.ended = {
        "id": response_id,
        "output": [{"type": "message", "content": [{"type": "output_text", "text": text}]}],
    }
    return writer


def test_the_store_forgets_its_oldest_response_first():
    store = ResponseStore(capacity=2)
    for n in range(3):
        store.keep({"input": f"q{n}"}, ended(f"r{n}", f"a{n}"))
    with pytest.raises(UnknownResponse):
        store.expand({"input": "x", "previous_response_id": "r0"})
    assert store.expand({"input": "x", "previous_response_id": "r2"})["input"] == [
        {"role": "user", "content": "q2"},
        {"role": "assistant", "content": "a2"},
        {"role": "user", "content": "x"},
    ]


def test_a_response_that_never_ended_is_not_kept():
    store = ResponseStore()
    store.keep({"input": "q"}, ResponsesWriter("r", "m", 4, 0))
    with pytest.raises(UnknownResponse):
        store.expand({"input": "x", "previous_response_id": "r"})
