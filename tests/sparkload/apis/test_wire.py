"""The registry of wire APIs: one per --api name, each with its route, reader, auth and what it
can carry (what the workloads ask instead of comparing names)."""

from __future__ import annotations

import pytest

from sparkload.apis import REGISTRY, able_to, wire_api
from sparkload.apis.chat import ChatStream
from sparkload.apis.completions import CompletionsStream
from sparkload.apis.embeddings import EmbeddingsBody
from sparkload.apis.messages import MessagesStream
from sparkload.apis.responses import ResponsesStream
from sparkload.records import (
    API_CHAT,
    API_COMPLETIONS,
    API_EMBEDDINGS,
    API_MESSAGES,
    API_NAMES,
    API_RESPONSES,
)
from sparkload.transport.tally import Reply

OPENAI_APIS = (API_CHAT, API_COMPLETIONS, API_RESPONSES)


def test_every_api_name_of_the_vocabulary_has_one_module_in_the_registry():
    assert list(REGISTRY) == list(API_NAMES)
    assert all(wire_api(name).name == name for name in API_NAMES)


def test_each_api_gets_its_own_reader():
    readers = [type(wire_api(name).reader(None)) for name in API_NAMES]
    assert readers == [
        ChatStream,
        CompletionsStream,
        ResponsesStream,
        MessagesStream,
        EmbeddingsBody,
    ]


def test_a_reader_keeps_the_reply_it_is_given_and_none_otherwise():
    reply = Reply()
    assert wire_api(API_RESPONSES).reader(reply).reply is reply
    assert wire_api(API_CHAT).reader(None).reply is None


@pytest.mark.parametrize("name", OPENAI_APIS)
def test_the_openai_apis_send_the_key_as_a_bearer_token_and_no_header_of_their_own(name):
    assert wire_api(name).auth("sk-1") == {"Authorization": "Bearer sk-1"}
    assert (wire_api(name).headers, wire_api(name).key_env) == ({}, "")


def test_the_messages_api_sends_the_key_as_x_api_key_with_anthropics_version():
    api = wire_api(API_MESSAGES)
    assert api.auth("sk-1") == {"x-api-key": "sk-1"}
    assert (api.headers, api.key_env) == ({"anthropic-version": "2023-06-01"}, "ANTHROPIC_API_KEY")


def test_the_completions_and_embeddings_apis_carry_neither_messages_nor_tools():
    carry = [wire_api(name).carries_messages for name in API_NAMES]
    assert carry == [True, False, True, True, False]
    assert able_to("carries_tools") == f"{API_CHAT}, {API_RESPONSES} or {API_MESSAGES}"
    assert not wire_api(API_COMPLETIONS).carries_tools


def test_only_the_embeddings_api_answers_one_body_and_batches_inputs():
    assert [wire_api(name).streams for name in API_NAMES] == [True, True, True, True, False]
    assert able_to("batches_inputs") == API_EMBEDDINGS


def test_only_the_responses_api_continues_a_reply_the_server_kept():
    assert able_to("server_history") == API_RESPONSES
