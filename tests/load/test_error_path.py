"""The path in the records: a proxy's error reads as one, and the servers on the path are named."""

from __future__ import annotations

from sparkload.client import (
    error_text,
    identifying_headers,
)
from sparkload.records import RequestRecord
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


def test_a_json_error_body_gives_its_message():
    assert (
        error_text(b'{"error": {"message": "model not found", "code": 404}}') == "model not found"
    )


def test_a_long_plain_body_is_cut_short_on_one_line():
    text = error_text(b"upstream\nconnect error " * 40)
    assert text.startswith("upstream connect error") and text.endswith("…") and len(text) <= 121
