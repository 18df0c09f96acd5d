"""The path in the records: a proxy's error reads as one, and the servers on the path are named."""

from __future__ import annotations

import requests

from sparkload.records import RequestRecord
from sparkload.transport.client import error_text
from sparkload.transport.identity import identifying_headers, intermediaries, merge_identity
from sparkload.transport.target import refusal
from tests.servers import NGINX_502, Script, measure_on

BAD_GATEWAY = (
    b"HTTP/1.1 502 Bad Gateway\r\nServer: nginx\r\nContent-Type: text/html\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(NGINX_502), NGINX_502)
)


def one_request(script: Script) -> RequestRecord:
    return measure_on(script)[0][0]


def test_a_502_from_nginx_reads_as_nginx_with_its_page_title_on_one_line():
    record = one_request(Script(raw_response=BAD_GATEWAY))
    assert (record.status, record.error_kind, record.server) == ("error", "http_502", "nginx")
    assert record.error.startswith("HTTP 502 from nginx: <title>502 Bad Gateway</title>")
    assert "\n" not in record.error and len(record.error) < 200


def test_identifying_headers_keep_server_and_gateway_names_and_nothing_else():
    headers = [
        ("Server", "uvicorn"),
        ("Via", "1.1 gw"),
        ("X-Litellm-Version", "1.50.0"),
        ("X-Powered-By", "Express"),
        ("Set-Cookie", "session=secret"),
        ("Content-Type", "text/event-stream"),
    ]
    assert identifying_headers(headers) == {
        "server": "uvicorn",
        "via": "1.1 gw",
        "x-litellm-version": "1.50.0",
        "x-powered-by": "Express",
    }


def test_identifying_header_values_are_cut_to_200_characters():
    assert identifying_headers([("Via", "v" * 300)]) == {"via": "v" * 200}


def test_identifying_headers_include_the_gateways_latency_headers():
    headers = [("X-Kong-Proxy-Latency", "3"), ("X-Envoy-Upstream-Service-Time", "12")]
    assert identifying_headers(headers) == {
        "x-kong-proxy-latency": "3",
        "x-envoy-upstream-service-time": "12",
    }


def test_a_json_error_body_gives_its_message():
    assert (
        error_text(b'{"error": {"message": "model not found", "code": 404}}') == "model not found"
    )


def test_a_long_plain_body_is_cut_short_on_one_line():
    text = error_text(b"upstream\nconnect error " * 40)
    assert text.startswith("upstream connect error") and text.endswith("…") and len(text) <= 121


def test_a_stream_cut_mid_way_keeps_the_server_that_cut_it_in_every_record():
    script = Script(tokens=16, cut_after=5, extra_headers=b"Server: nginx/1.22.1\r\n")
    records, _ = measure_on(script, requests=3, max_tokens=16)
    assert [(r.status, r.error_kind, r.server) for r in records] == [
        ("error", "disconnect", "nginx/1.22.1")
    ] * 3
    assert all(r.chunks == 5 for r in records)


def test_an_ok_record_carries_no_server_the_manifest_names_it_once():
    record = one_request(Script())
    assert (record.status, record.server) == ("ok", None)


def response(status: int, reason: str, server: str | None) -> requests.Response:
    answer = requests.Response()
    answer.status_code, answer.reason = status, reason
    if server:
        answer.headers["Server"] = server
    return answer


def test_a_look_up_refused_by_a_proxy_names_the_proxy_its_status_and_the_likely_cause():
    said = refusal("http://gw/v1/models", response(502, "Bad Gateway", "nginx/1.22.1"))
    assert said == (
        "nginx/1.22.1 answered 502 Bad Gateway for http://gw/v1/models: "
        "the model server behind it is down?"
    )


def test_a_look_up_refused_without_a_server_header_names_the_url_and_status():
    said = refusal("http://h/v1/models", response(404, "Not Found", None))
    assert (
        said
        == "http://h/v1/models answered HTTP 404 Not Found: is this an OpenAI-compatible server?"
    )


def test_a_refused_key_points_at_the_api_key():
    assert refusal("http://h/v1/models", response(401, "Unauthorized", "uvicorn")).endswith(
        "answered 401 Unauthorized for http://h/v1/models: check --api-key"
    )


def test_identity_keeps_every_distinct_value_up_to_a_bound():
    known = {"server": "nginx"}
    assert merge_identity(known, {"server": "nginx", "x-litellm-version": "9.9.9"})
    assert not merge_identity(known, {"server": "nginx"})
    for ray in ("a", "b", "c", "d", "e"):
        merge_identity(known, {"cf-ray": ray})
    assert known == {"server": "nginx", "x-litellm-version": "9.9.9", "cf-ray": "a | b | c | …"}


def test_a_model_servers_own_headers_name_no_intermediary():
    assert intermediaries({"server": "uvicorn", "x-powered-by": "vllm"}) == []


def test_a_gateways_header_or_a_proxys_server_name_is_an_intermediary():
    found = intermediaries({"server": "nginx/1.22.1", "x-litellm-version": "1.2.3"})
    assert found == ["server: nginx/1.22.1", "x-litellm-version: 1.2.3"]
