"""The model a run asks for: one /v1/models lists, refused before the load when it lists others."""

from __future__ import annotations

import pytest

from sparkload.errors import ConfigError
from sparkload.transport.target import describe_server
from tests.servers import Script, scripted


def test_a_model_the_server_lists_is_the_runs():
    with scripted(Script(models=("a", "b"))) as server:
        assert describe_server(server.url, {}, ("b",)).model == "b"


def test_an_unlisted_model_is_refused_naming_it_and_what_the_server_offers():
    with scripted(Script(models=("a", "b"))) as server, pytest.raises(ConfigError) as refused:
        describe_server(server.url, {}, ("nope",))
    assert str(refused.value) == (
        f"--model 'nope' is not served by {server.url}: {server.url}/v1/models offers 'a', 'b'"
    )


def test_a_server_listing_no_model_takes_the_one_named():
    with scripted(Script(models=())) as server:
        assert describe_server(server.url, {}, ("anything",)).model == "anything"


def test_without_a_model_the_first_listed_is_asked_for():
    with scripted(Script(models=("a", "b"))) as server:
        assert describe_server(server.url, {}, ()).model == "a"


def test_every_model_of_a_mix_must_be_listed_the_first_unlisted_named():
    with scripted(Script(models=("base", "tenant-a"))) as server, pytest.raises(ConfigError) as no:
        describe_server(server.url, {}, ("tenant-a", "tenant-z"))
    assert str(no.value).startswith(f"--model 'tenant-z' is not served by {server.url}")


def test_a_mix_the_server_lists_asks_its_first_model_for_lookups():
    with scripted(Script(models=("base", "tenant-a", "tenant-b"))) as server:
        assert describe_server(server.url, {}, ("tenant-b", "tenant-a")).model == "tenant-b"
