"""Every request's headers carry the API key in its API's form, and nothing when there is none."""

from __future__ import annotations

from sparkload.run.context import request_headers
from tests.options import parsed_options


def test_the_api_key_goes_into_the_chosen_apis_auth_header():
    headers = request_headers(parsed_options("--api-key", "sk-1", "--api", "responses"))
    assert headers["Authorization"] == "Bearer sk-1"


def test_without_a_key_no_auth_header_is_sent():
    assert "Authorization" not in request_headers(parsed_options("--api-key", ""))


def test_messages_sends_the_key_as_x_api_key_with_anthropics_version():
    headers = request_headers(parsed_options("--api-key", "sk-1", "--api", "messages"))
    assert (headers["x-api-key"], headers["anthropic-version"]) == ("sk-1", "2023-06-01")
    assert "Authorization" not in headers


def test_messages_sends_anthropics_version_without_a_key():
    headers = request_headers(parsed_options("--api-key", "", "--api", "messages"))
    assert headers["anthropic-version"] == "2023-06-01"
    assert "x-api-key" not in headers


def test_a_users_header_replaces_the_apis_own_whatever_its_case():
    options = parsed_options("--api", "messages", "--header", "Anthropic-Version: 2024-01-01")
    versions = [v for k, v in request_headers(options).items() if k.lower() == "anthropic-version"]
    assert versions == ["2024-01-01"]
