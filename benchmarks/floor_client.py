"""The floor of reading the streams: sparkload's own transport, and nothing parsed.

C greenlets, each sending R streaming chat requests one after another over one keep-alive
connection (``sparkload.transport.client.Connection``: the same request bytes, the same stamped
reads), and reading each body to its end the way the transport reads one (``sse.read_in_hub``,
or ``sse.receive`` where the socket is not stamped): every read stamped as sparkload stamps it,
the HTTP chunked framing decoded, the bytes counted. No SSE
framing, no JSON, no records, no Locust. What sparkload spends above this is what its parsing,
records and events cost.

    python benchmarks/floor_client.py URL [--concurrency 256] [--requests-per-user 3]
        [--max-tokens 128]

Prints one JSON line: requests, bytes and reads.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402 - after the monkey-patching, as Locust does
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import gevent  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sparkload.transport.client import Connection, build_headers  # noqa: E402
from sparkload.transport.sse import read_in_hub, receive  # noqa: E402

DEADLINE_S = 300  # the whole run's bound


def stream_once(connection: Connection, body: bytes, headers: dict[str, str]) -> tuple[int, int]:
    """One request: the body's bytes and the number of reads it took."""
    answer = connection.send("POST", "/v1/chat/completions", body, headers)
    response = answer.response
    buffer = response._body_buffer
    counted = [len(buffer), 0]  # bytes, reads
    del buffer[:]

    def take(data: bytes, _stamp: int) -> bool:
        if not data:
            return True
        counted[1] += 1
        response.feed(data)
        counted[0] += len(buffer)
        del buffer[:]
        return response.message_complete

    if not response.message_complete:
        if answer.stamped:
            read_in_hub(response._sock._sock, take)
        else:
            while not take(*receive(response._sock, False)):
                pass
    return counted[0], counted[1]


def user(url: str, requests: int, body: bytes, totals: list[int]) -> None:
    connection = Connection(url, timeout=60)
    headers = build_headers(None)
    for _ in range(requests):
        size, reads = stream_once(connection, body, headers)
        totals[0] += 1
        totals[1] += size
        totals[2] += reads
    connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--requests-per-user", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    args = parser.parse_args()
    body = json.dumps(
        {
            "model": "reference",
            "messages": [{"role": "user", "content": "Say something."}],
            "max_tokens": args.max_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    ).encode()
    totals = [0, 0, 0]
    users = [
        gevent.spawn(user, args.url, args.requests_per_user, body, totals)
        for _ in range(args.concurrency)
    ]
    gevent.joinall(users, timeout=DEADLINE_S, raise_error=True)
    print(json.dumps({"requests": totals[0], "bytes": totals[1], "reads": totals[2]}))
    return 0 if totals[0] == args.concurrency * args.requests_per_user else 1


if __name__ == "__main__":
    sys.exit(main())
