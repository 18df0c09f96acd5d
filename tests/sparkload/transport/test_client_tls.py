"""TLS in the client, on 127.0.0.1 in this process: a self-signed certificate is refused unless
verification is switched off, and then the stream is measured (with read times, as the kernel
does not stamp TLS reads)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from gevent.server import StreamServer

from sparkload.apis.chat import ChatStream
from sparkload.records import RequestRecord
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure
from tests.servers import Script, _answer, _read_request, plain_body


@contextmanager
def tls_server(self_signed: tuple[str, str]) -> Iterator[str]:
    """A scripted stream of two tokens over HTTPS, one request per connection."""

    def handle(sock, _address) -> None:
        request, _ = _read_request(sock, b"")
        if request is not None:
            _answer(sock, Script(tokens=2, connection_header=b"close"), request[1])

    cert, key = self_signed
    server = StreamServer(("127.0.0.1", 0), handle, certfile=cert, keyfile=key)
    server.start()
    try:
        yield f"https://127.0.0.1:{server.server_port}"
    finally:
        server.stop(timeout=1)


def measured(connection: Connection) -> RequestRecord:
    request = StreamRequest(
        "/v1/chat/completions", plain_body("hi", 2), build_headers(None), 5, ChatStream
    )
    record = RequestRecord("r", 1, 0, "measure", "local", 0, "h", "m", 0, 2, 0.0)
    return measure(connection, request, record)


def test_a_self_signed_certificate_is_refused_by_default(self_signed):
    with tls_server(self_signed) as url:
        r = measured(Connection(url, timeout=5))
    assert (r.status, r.error_kind) == ("error", "connect")
    assert r.error.startswith("SSLCertVerificationError")


def test_with_verification_off_a_self_signed_server_is_measured(self_signed):
    with tls_server(self_signed) as url:
        connection = Connection(url, timeout=5, verify_tls=False)
        r = measured(connection)
        connection.close()
    assert (r.status, r.chunks, r.output_tokens) == ("ok", 2, 2), r.error
    assert 0 < r.ttfb <= r.ttft <= r.latency and not r.clock_adjusted
