"""Several endpoints (e.g. one replica per Spark): users are spread over them, records say which."""

from __future__ import annotations

from collections import Counter

import pytest

from sparkload.apis import wire_api
from sparkload.errors import ConfigError
from sparkload.records import API_NAMES
from sparkload.transport.target import Endpoint
from tests.conftest import free_port, run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


def test_users_are_spread_over_the_endpoints_and_each_record_names_its_own(simulator, tmp_path):
    first = simulator("fixed", 1.0, "--fixed-ttft-ms", "20", "--fixed-itl-ms", "2")
    second = simulator("fixed", 1.0, "--fixed-ttft-ms", "20", "--fixed-itl-ms", "2")
    run = run_locust(
        [
            "--headless",
            "--endpoints",
            f"{first},{second}",
            "--ladder",
            "4",
            "--requests-per-user",
            "3",
            "--max-tokens",
            "16",
        ],
        tmp_path,
    )
    assert run.returncode == 0, run.output
    measured = Counter(r["endpoint"] for r in run.records if r["phase"] == "measure")
    assert measured == {first: 6, second: 6}
    assert run.manifest["endpoints"] == [first, second]


def test_an_unreachable_endpoint_among_several_stops_the_run_before_any_load(simulator, tmp_path):
    good = simulator("fixed", 1.0)
    run = run_locust(
        ["--headless", "--endpoints", f"{good},http://127.0.0.1:{free_port()}"], tmp_path
    )
    assert run.returncode == 2 and "cannot reach http://127.0.0.1:" in run.output
    assert run.run_dir is None


@pytest.mark.parametrize(
    "url, base, chat, models",
    [
        ("http://spark-1:8000", "http://spark-1:8000", "/v1/chat/completions", "/v1/models"),
        ("http://spark-1:8000/v1/", "http://spark-1:8000", "/v1/chat/completions", "/v1/models"),
        (
            "https://gw.example/openai/v1",
            "https://gw.example",
            "/openai/v1/chat/completions",
            "/openai/v1/models",
        ),
    ],
)
def test_endpoint_urls_with_or_without_v1_map_to_the_same_routes(url, base, chat, models):
    endpoint = Endpoint.parse(url)
    chat_path = endpoint.path_for("/chat/completions")
    assert (endpoint.base, chat_path, endpoint.models_path) == (base, chat, models)


def test_an_endpoint_that_is_not_http_is_a_config_error():
    with pytest.raises(ConfigError, match="not an http"):
        Endpoint.parse("spark-1:8000")


def test_each_api_route_is_under_the_endpoints_api_root():
    endpoint = Endpoint.parse("http://spark-1:8000/openai/v1")
    paths = {name: endpoint.path_for(wire_api(name).route) for name in API_NAMES}
    assert paths == {
        "chat": "/openai/v1/chat/completions",
        "completions": "/openai/v1/completions",
        "responses": "/openai/v1/responses",
        "messages": "/openai/v1/messages",
        "embeddings": "/openai/v1/embeddings",
    }
