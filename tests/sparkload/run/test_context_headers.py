"""Every request's headers carry the API key in its API's form, and nothing when there is none."""

from __future__ import annotations

from sparkload.run.context import request_headers
from tests.options import parsed_options


def test_the_api_key_goes_into_the_chosen_apis_auth_header():
    headers = request_headers(parsed_options("--api-key", "sk-1", "--api", "responses"))
    assert headers["Authorization"] == "Bearer sk-1"


def test_without_a_key_no_auth_header_is_sent():
    assert "Authorization" not in request_headers(parsed_options("--api-key", ""))
