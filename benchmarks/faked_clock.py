"""Receive times under a faked clock: translated kernel stamps against read times.

A process whose wall clock is faked (``faketime -f +2s``, the monotonic clock untouched) cannot
use the kernel's receive stamps as they are (``sparkload.transport.stamps``). This starts the
reference server (TTFT 100 ms, 10 ms between tokens; on the real clock, so its own timing log
is right) and a client process under faketime, which calibrates and streams at several
concurrencies with the stamps translated onto its faked clock (what sparkload chooses for a
steady split). Each request's TTFT and ITL are compared with the server's own timing, as
client_accuracy.py does; and every read's translated stamp with the moment the process read it:
that lateness is the error the fallback, read times, would have added to each event, measured
on the same packets.

    .venv/bin/python benchmarks/faked_clock.py [--levels 1,16,64] [--requests-per-user 3]

Needs Debian's ``faketime``. Client and server share this machine: the errors include loopback
transfer and scheduling noise.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()  # the client streams with gevent, as in a Locust process

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import gevent  # noqa: E402
from harness import reference_server  # noqa: E402 - benchmarks/ is on sys.path as a script

from sparkload.apis.chat import ChatStream  # noqa: E402
from sparkload.body import BodyTemplate  # noqa: E402
from sparkload.records import RequestRecord  # noqa: E402
from sparkload.transport import client as client_module  # noqa: E402
from sparkload.transport import sse, stamps  # noqa: E402
from sparkload.transport.client import Connection, StreamRequest, build_headers, measure  # noqa: E402
from sparkload.transport.sse import receive  # noqa: E402
from sparkload.workloads.contract import PlannedRequest  # noqa: E402

TOKENS = 64


def stream(url: str, clients: int, requests: int) -> list[RequestRecord]:
    """``clients`` users, each sending ``requests`` requests one after another."""
    body = BodyTemplate("m", TOKENS).encode(PlannedRequest("hi", TOKENS))
    request = StreamRequest("/v1/chat/completions", body, build_headers(None), 60, ChatStream)

    def user(number: int) -> list[RequestRecord]:
        connection = Connection(url, timeout=60)
        made = []
        for i in range(requests):
            record = RequestRecord(
                f"{number}-{i}", clients, 0, "measure", "b", number, url, "m", 0, TOKENS, 0.0
            )
            made.append(measure(connection, request, record))
        connection.close()
        return made

    users = [gevent.spawn(user, n) for n in range(clients)]
    gevent.joinall(users)
    return [record for done in users for record in done.get()]


def client(url: str, levels: list[int], requests: int, out: Path) -> None:
    """The faked process: calibrate, stream every level noting each read's lateness behind its
    translated stamp; results to ``out``."""
    chosen = stamps.calibrate()
    stamps.use(chosen)
    lateness: list[int] = []

    def noting(sock, stamped: bool) -> tuple[bytes, int]:
        data, stamp = receive(sock, stamped)
        if stamped:
            lateness.append(time.time_ns() - stamp)
        return data, stamp

    sse.receive = client_module.receive = noting  # instruments both readers of the socket
    rows, late = [], {}
    for clients in levels:
        lateness.clear()
        for r in stream(url, clients, requests):
            rows.append({"c": clients, "id": r.response_id, "ok": r.status == "ok"})
            rows[-1].update(ttft=r.ttft, itl=r.itl)
        late[clients] = sorted(lateness)
    out.write_text(json.dumps({"calibration": chosen.describe(), "rows": rows, "late": late}))


def quantile(ordered: list, q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(result: dict, timing: dict[str, dict]) -> None:
    print(f"calibration under faketime -f +2s: {json.dumps(result['calibration'])}")
    print(
        f"{'C':>3} {'n':>4}  {'TTFT err ms p50':>15} {'p99':>7}  {'ITL err ms p50':>14}   "
        f"{'reads':>6} {'read late ms p50':>16} {'p99':>7} {'max':>7}"
    )
    for clients, late in result["late"].items():
        rows = [
            r for r in result["rows"] if str(r["c"]) == clients and r["ok"] and r["id"] in timing
        ]
        ttft = sorted(1000 * (r["ttft"] - timing[r["id"]]["server_ttft_s"]) for r in rows)
        itl = [1000 * (r["itl"] - timing[r["id"]]["mean_itl_s"]) for r in rows]
        print(
            f"{clients:>3} {len(rows):>4}  {statistics.median(ttft):>15.3f} "
            f"{quantile(ttft, 0.99):>7.3f}  {statistics.median(itl):>14.4f}   "
            f"{len(late):>6} {quantile(late, 0.5) / 1e6:>16.3f} "
            f"{quantile(late, 0.99) / 1e6:>7.3f} {late[-1] / 1e6:>7.3f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,16,64")
    parser.add_argument("--requests-per-user", type=int, default=3)
    parser.add_argument("--client", nargs=2, metavar=("URL", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    if args.client:
        client(args.client[0], levels, args.requests_per_user, Path(args.client[1]))
        return 0
    faketime = shutil.which("faketime")
    if faketime is None:
        print("faked_clock.py: needs Debian's faketime (apt-get install faketime)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        log, out = Path(tmp) / "timing.jsonl", Path(tmp) / "client.json"
        server = reference_server("--ttft-ms", "100", "--itl-ms", "10", "--log", str(log))
        url = server.start()
        try:
            subprocess.run(
                [
                    "env",
                    "FAKETIME_DONT_FAKE_MONOTONIC=1",
                    faketime,
                    "-f",
                    "+2s",
                    sys.executable,
                    __file__,
                ]
                + ["--levels", args.levels, "--requests-per-user", str(args.requests_per_user)]
                + ["--client", url, str(out)],
                check=True,
                timeout=600,
            )
        finally:
            server.stop()  # flushes the timing log
        timing = {e["request_id"]: e for e in map(json.loads, log.read_text().splitlines())}
        report(json.loads(out.read_text()), timing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
