"""Is the simulator ever the bottleneck? 256 concurrent streams at 100 tokens/s on one core.

Starts ``python -m sparkload.sim --profile fixed`` (TTFT 10 ms, one token every 10 ms, one
token per event, time scale 1), pins it to CPU 0 and this client to CPU 1, opens 256 streams
at once and reads every event. Prints the server's CPU use over the streaming window, the
events per second it delivered, the time to each stream's first event (all 256 requests
arrive at once, so this includes the burst of connection set-up), and the lateness of every
event against its stream's cadence: event i is due at anchor + i x 10 ms, the anchor being the
earliest time consistent with all of the stream's events, as the client sees them (so client
and loopback delays count against the server). Bounded: 1,500 tokens per stream (15 s), 60 s at
most.

Usage: ``.venv/bin/python benchmarks/sim_capacity.py [--streams 256] [--tokens 1500]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

import psutil

ITL_S = 0.010
TTFT_S = 0.010
DEADLINE_S = 60.0


async def one_stream(
    port: int, tokens: int, lateness: list[float], first_event: list[float]
) -> int:
    body = json.dumps(
        {
            "messages": [{"role": "user", "content": "capacity"}],
            "max_tokens": tokens,
            "stream": True,
        }
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    sent = time.perf_counter()
    writer.write(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    arrivals = []
    while line := await reader.readline():
        if line.startswith(b"data: {"):
            arrivals.append(time.perf_counter())
        elif line.startswith(b"data: [DONE]"):
            break
    writer.close()
    first_event.append(arrivals[0] - sent)
    anchor = min(t - i * ITL_S for i, t in enumerate(arrivals))
    lateness += [t - (anchor + i * ITL_S) for i, t in enumerate(arrivals)]
    return len(arrivals)


async def drive(
    port: int, streams: int, tokens: int
) -> tuple[int, float, list[float], list[float]]:
    lateness: list[float] = []
    first_event: list[float] = []
    start = time.perf_counter()
    counts = await asyncio.wait_for(
        asyncio.gather(*(one_stream(port, tokens, lateness, first_event) for _ in range(streams))),
        DEADLINE_S,
    )
    return sum(counts), time.perf_counter() - start, lateness, first_event


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=256)
    parser.add_argument("--tokens", type=int, default=1500)
    args = parser.parse_args(argv)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sparkload.sim",
            "--profile",
            "fixed",
            "--port",
            "0",
            "--fixed-ttft-ms",
            str(TTFT_S * 1e3),
            "--fixed-itl-ms",
            str(ITL_S * 1e3),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
        proc = psutil.Process(server.pid)
        cpus = sorted(os.sched_getaffinity(0))
        proc.cpu_affinity([cpus[0]])
        os.sched_setaffinity(0, {cpus[-1]})
        before = proc.cpu_times()
        events, wall, lateness, first_event = asyncio.run(drive(port, args.streams, args.tokens))
        after = proc.cpu_times()
    finally:
        server.terminate()
        server.wait(timeout=10)
    cpu = (after.user + after.system) - (before.user + before.system)
    cuts = statistics.quantiles(lateness, n=100)
    print(
        f"streams {args.streams} x {args.tokens} tokens at {1 / ITL_S:g} tokens/s each, "
        f"server on CPU {cpus[0]}, client on CPU {cpus[-1]}"
    )
    print(
        f"events delivered   {events} in {wall:.2f} s = {events / wall:,.0f} events/s "
        f"(target {args.streams / ITL_S:,.0f})"
    )
    print(f"server CPU         {cpu:.2f} s = {100 * cpu / wall:.0f} % of one core")
    firsts = statistics.quantiles(first_event, n=100)
    print(
        f"first event        p50 {firsts[49] * 1e3:.2f} ms   p99 {firsts[98] * 1e3:.2f} ms "
        f"  (scheduled {TTFT_S * 1e3:g} ms after the request)"
    )
    print(
        f"event lateness     p50 {cuts[49] * 1e3:.2f} ms   p99 {cuts[98] * 1e3:.2f} ms   "
        f"max {max(lateness) * 1e3:.2f} ms   (vs the stream's own {ITL_S * 1e3:g} ms cadence)"
    )
    return 0 if events >= args.streams * args.tokens else 1  # + one role chunk each


if __name__ == "__main__":
    sys.exit(main())
