"""What the client sends and how it reads what comes back, piece by piece: headers, error bodies,
and the keep-alive check that never yields (bodies: tests/sparkload/test_body.py; the path's
identifying headers: test_identity.py)."""

from __future__ import annotations

import socket
import ssl
import time

import pytest

from sparkload.transport.client import (
    _idle_and_open,
    _unverified_tls_context,
    build_headers,
    error_text,
)


def test_the_runs_headers_ask_for_an_event_stream_of_json_as_sparkload():
    assert build_headers(None) == {
        "User-Agent": "sparkload",
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "Accept-Encoding": "identity",
    }


def test_the_credentials_and_extra_headers_are_sent_beside_the_defaults():
    headers = build_headers({"Authorization": "Bearer sk-1"}, "gzip", {"X-Team": "perf"})
    assert headers["Authorization"] == "Bearer sk-1"
    assert (headers["Accept-Encoding"], headers["X-Team"]) == ("gzip", "perf")


def test_header_values_may_hold_tabs_and_latin_1_text():
    assert build_headers(None, extra_headers={"X-Note": "a\tb é"})["X-Note"] == "a\tb é"


@pytest.mark.parametrize(
    "name, value",
    [("X Team", "perf"), ("X:Team", "perf"), ("", "perf"), ("X-Team", "a\nb"), ("X-A", "\x7f")],
)
def test_a_header_http_cannot_carry_is_refused_by_name_without_its_value(name, value):
    with pytest.raises(ValueError) as refused:
        build_headers(None, extra_headers={name: value})
    assert str(refused.value) == (f"request header {name!r}: not a valid HTTP header name or value")


def test_an_error_body_in_json_gives_its_message_on_one_line():
    assert error_text(b'{"error": {"message": "bad\\n  request"}}') == "bad request"


def test_a_flat_json_error_gives_its_message():
    assert error_text(b'{"message": "model not found", "code": 404}') == "model not found"


def test_a_json_error_given_as_text_is_that_text():
    assert error_text(b'{"error": "overloaded"}') == "overloaded"


def test_a_json_body_that_is_not_an_object_is_quoted_as_it_is():
    assert error_text(b'["busy"]') == "['busy']"


def test_an_html_page_is_quoted_from_its_title_on_one_line():
    page = b"<html>\n<head>\n<title>503 Service Unavailable</title></head><body>x</body></html>"
    text = error_text(page)
    assert text == "<title>503 Service Unavailable</title></head><body>x</body></html>"


def test_a_page_with_several_titles_is_quoted_from_the_first():
    assert error_text(b"<title>a</title><svg><title>b</title></svg>").startswith("<title>a</title>")


def test_a_plain_body_is_quoted_from_its_start_cut_to_120_characters():
    assert error_text(("word\n " * 100).encode()) == ("word " * 100)[:120] + "…"


def test_a_plain_body_of_120_characters_is_quoted_whole():
    assert error_text(b"x" * 120) == "x" * 120


def test_bytes_that_are_not_utf_8_are_replaced_not_fatal():
    assert error_text(b"bad \xff gateway") == "bad \ufffd gateway"


def test_an_idle_open_connection_may_be_reused():
    left, right = socket.socketpair()
    with left, right:
        assert _idle_and_open(left)


def test_a_connection_the_peer_closed_or_wrote_to_is_not_reused():
    left, right = socket.socketpair()
    with left:
        right.sendall(b"stale")
        assert not _idle_and_open(left)
        right.close()
        assert not _idle_and_open(left)


def test_the_keep_alive_check_does_not_wait_on_an_idle_connection():
    left, right = socket.socketpair()
    with left, right:
        started = time.monotonic()
        _idle_and_open(left)
        assert time.monotonic() - started < 0.5  # a poll, not a wait


def test_no_socket_or_a_closed_one_is_not_reused():
    sock = socket.socket()
    sock.close()
    assert not _idle_and_open(None) and not _idle_and_open(sock)


def test_insecure_tls_checks_neither_the_certificate_nor_the_host_name():
    context = _unverified_tls_context()
    assert (context.check_hostname, context.verify_mode) == (False, ssl.CERT_NONE)
