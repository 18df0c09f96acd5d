"""``--batch-size N`` on an API that batches inputs (embeddings): the chat workload's prompts
taken N at a time as one request's inputs; refused with one line where it means nothing."""

from __future__ import annotations

import itertools
import json

import pytest

from sparkload.body import BodyTemplate
from sparkload.errors import ConfigError
from sparkload.workloads import registry
from sparkload.workloads.contract import PlannedRequest, Slot, UserState
from tests.options import run_options

EMBEDDINGS = ("--api", "embeddings")


def planned(*args: str, start: int = 0) -> PlannedRequest:
    """The first request of a run of ``ARGS`` whose seeded order deals start, start + 1, ..."""
    workload = registry.load(run_options(*args))
    order = itertools.count(start)
    return workload.next_request(UserState(0, lambda: next(order)), Slot(0))


def test_a_batch_takes_the_next_n_prompts_of_the_order_as_its_inputs():
    workload = registry.load(run_options(*EMBEDDINGS, "--batch-size", "3"))
    request = planned(*EMBEDDINGS, "--batch-size", "3", start=5)
    assert request.inputs == workload.prompts[5:8]


def test_a_batch_keeps_its_first_prompts_index_and_text():
    request = planned(*EMBEDDINGS, "--batch-size", "3", start=5)
    assert request.prompt_index == 5 and request.text == request.inputs[0]


def test_without_batch_size_a_request_plans_one_text_and_no_inputs():
    assert planned(*EMBEDDINGS).inputs is None


def test_the_embeddings_body_sends_the_batch_as_input():
    opts = run_options(*EMBEDDINGS, "--batch-size", "4")
    workload = registry.load(opts)
    template = BodyTemplate.for_run(opts, workload.sampling, workload.max_tokens, "m")
    request = planned(*EMBEDDINGS, "--batch-size", "4")
    assert json.loads(template.encode(request))["input"] == list(request.inputs)


def test_batch_size_on_an_api_of_one_prompt_a_request_is_refused_naming_embeddings():
    with pytest.raises(ConfigError, match=r"--batch-size 2: --api chat .* use --api embeddings"):
        run_options("--batch-size", "2")


def test_batch_size_with_another_workload_is_refused():
    with pytest.raises(ConfigError, match="--batch-size takes the chat workload's prompts"):
        run_options(*EMBEDDINGS, "--workload", "fresh", "--batch-size", "2")


def test_batch_size_below_one_is_refused():
    with pytest.raises(ConfigError, match="--batch-size"):
        run_options(*EMBEDDINGS, "--batch-size", "0")


@pytest.mark.parametrize("workload", ["agent", "conversation"])
def test_workloads_that_need_messages_refuse_embeddings(workload):
    with pytest.raises(ConfigError, match="use --api chat"):
        run_options(*EMBEDDINGS, "--workload", workload)
