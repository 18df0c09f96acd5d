"""The master's ingest with sixteen worker processes (issue 47): no record lost, the master's CPU
per 1,000 records, and the rate at which it saturates.

Starts benchmarks/reference_server.py (a bare selector loop that logs one line per request it
answered: the server's own count), a Locust master (``--master --headless``, time-based steps:
``--ladder WORKERS*USERS --step-duration SECONDS``) and WORKERS Locust workers on this machine,
all on 127.0.0.1. Each run prints:

* records: the records the run directory holds (``read_records``) against the requests the
  server answered (its log's lines): equal, or the run lost records;
* the master's CPU (user + system, its own process, its report child aside) from the first
  request to its exit, per 1,000 records, its mean CPU share, and the records per second;
* the ingest rate at which the master would saturate one core at that cost (records/s at 100 %).

``--saturate`` then raises the load a run at a time (shorter replies) and prints the
master's CPU share at each: the rate where it reaches ~100 % of a core, or where the records lag
(the run's last level ends long after its duration, waiting for records), is its saturation.
On a 2-core machine the workers and the server compete with the master for the same cores, so
what saturates first may be the machine, not the master: the table says which.

    python benchmarks/ingest_16_workers.py                       # 16 workers x C=64, 60 s
    python benchmarks/ingest_16_workers.py --saturate --duration 30s
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
from harness import ROOT, reference_server  # benchmarks/ is on sys.path as a script

from sparkload.records.requests_files import read_records

DEADLINE = 900  # seconds one run may take at most
# Locust as its command runs it, but a worker may miss 60 heartbeats (a second each), not 3:
# sixteen workers setting up at once on 2 shared cores each block for seconds, and Locust would
# drop them all as missing before the first request (the benchmark's tolerance, not the run's).
LOCUST_TOLERANT = (
    "import sys; import locust.runners as runners; runners.HEARTBEAT_LIVENESS = 60; "
    "from locust.main import main; sys.argv[0] = 'locust'; sys.exit(main())"
)
# users per worker, reply tokens: shorter replies, more records a second from the same users
# (more users a worker stalled its spawning for over a minute on the shared 2-core machine)
SATURATION_STEPS = ((64, 16), (64, 4), (64, 1))


@dataclass
class Measured:
    users: int
    tokens: int
    records: int
    answered: int
    master_cpu: float  # seconds, first request to exit
    wall: float  # seconds, first request to the master's exit
    span: float  # seconds from the first record's send to the last one's end
    duration: float  # the level's planned seconds

    @property
    def cpu_per_1000(self) -> float:
        return self.master_cpu / self.records * 1000 if self.records else float("nan")

    @property
    def rate(self) -> float:
        """Records per second of the load."""
        return self.records / self.span if self.span else float("nan")

    @property
    def overrun(self) -> float:
        """Seconds the level lasted past its duration: the master waiting for records."""
        return self.span - self.duration

    @property
    def share(self) -> float:
        return self.master_cpu / self.wall if self.wall else float("nan")


def _cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


def run_once(workers: int, users: int, tokens: int, duration: float, workdir: Path) -> Measured:
    """One run: WORKERS x USERS users for DURATION seconds against the reference server."""
    log = workdir / "answered.jsonl"
    server = reference_server("--port", "0", "--ttft-ms", "5", "--itl-ms", "2", "--log", str(log))
    url = server.start()
    port = str(_free_port())
    results = workdir / "results"
    common = [sys.executable, "-c", LOCUST_TOLERANT, "-f", str(ROOT / "locustfiles" / "chat.py")]
    master = subprocess.Popen(
        [
            *common,
            "--master",
            "--headless",
            "--master-bind-host",
            "127.0.0.1",
            "--master-bind-port",
            port,
            "--expect-workers",
            str(workers),
            "-H",
            url,
            "--ladder",
            str(workers * users),
            "--step-duration",
            f"{duration:g}",
            "--output-tokens",
            str(tokens),
            "--results-dir",
            str(results),
        ],
        stdout=subprocess.DEVNULL,
        stderr=(workdir / "master.log").open("w"),
        stdin=subprocess.DEVNULL,
    )
    spawned = [
        subprocess.Popen(
            [*common, "--worker", "--master-host", "127.0.0.1", "--master-port", port],
            stdout=subprocess.DEVNULL,
            stderr=(workdir / f"worker-{index}.log").open("w"),
            stdin=subprocess.DEVNULL,
        )
        for index in range(workers)
    ]
    watched = psutil.Process(master.pid)
    deadline = time.monotonic() + DEADLINE
    try:
        while not (log.exists() and log.stat().st_size):
            if time.monotonic() > deadline or master.poll() is not None:
                tail = (workdir / "master.log").read_text().splitlines()[-5:]
                raise SystemExit(
                    "no request reached the server; the master said:\n" + "\n".join(tail)
                )
            time.sleep(0.05)
        first, cpu_first = time.monotonic(), _cpu(watched)
        cpu_last = cpu_first
        while master.poll() is None and time.monotonic() < deadline:
            try:
                cpu_last = _cpu(watched)
            except psutil.NoSuchProcess:
                break
            time.sleep(0.1)
        wall = time.monotonic() - first
        if master.poll() is None:
            master.kill()
            raise SystemExit(f"the run did not end within {DEADLINE} s")
    finally:
        for worker in spawned:
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
        server.stop()
    (run_dir,) = results.iterdir()
    records = read_records(run_dir)
    answered = sum(1 for line in log.read_text().splitlines() if line.strip())
    starts = [r["start_time"] for r in records]
    ends = [r["start_time"] + (r.get("latency") or 0.0) for r in records]
    span = max(ends) - min(starts) if records else float("nan")
    return Measured(
        users, tokens, len(records), answered, cpu_last - cpu_first, wall, span, duration
    )


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _duration(text: str) -> float:
    from sparkload.config.parsers import duration

    return duration("--duration", text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--users", type=int, default=64, help="users per worker (C each)")
    parser.add_argument("--tokens", type=int, default=16, help="reply tokens (max_tokens)")
    parser.add_argument("--duration", type=_duration, default=60.0, help="the level (60s)")
    parser.add_argument("--saturate", action="store_true", help="then raise the load")
    args = parser.parse_args()
    steps = [(args.users, args.tokens)]
    if args.saturate:
        steps += [step for step in SATURATION_STEPS if step != steps[0]]
    print(
        f"{args.workers} workers, reference server (TTFT 5 ms, ITL 2 ms), "
        f"{args.duration:g} s a run; machine: {psutil.cpu_count()} cores, "
        f"load average {psutil.getloadavg()[0]:.1f} at the start"
    )
    print(
        "C/worker  tokens   records  answered  lost  rec/s   master CPU s  CPU s/1000 rec"
        "  master CPU %  saturates at rec/s  level overrun s"
    )
    for users, tokens in steps:
        with tempfile.TemporaryDirectory(prefix="ingest-") as tmp:
            m = run_once(args.workers, users, tokens, args.duration, Path(tmp))
        print(
            f"{m.users:>8}  {m.tokens:>6}  {m.records:>8}  {m.answered:>8}  "
            f"{m.answered - m.records:>4}  {m.rate:>6.0f}  {m.master_cpu:>12.1f}  "
            f"{m.cpu_per_1000:>14.3f}  {100 * m.share:>12.0f}  "
            f"{1000 / m.cpu_per_1000:>18.0f}  {m.overrun:>15.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
