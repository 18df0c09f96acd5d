"""What does it cost to make one request? The workload's plan plus the body's encoding.

A user's session, per request and before its send time is taken, asks its workload for the next
request (``Workload.next_request``) and encodes its body (``BodyTemplate.encode``); after it,
the workload sees the measured request (``Workload.after``: a conversation adds the exchange to
its history). This prints the best of several timed batches, per request, for each workload as
a run's options build it (no network: the part of the per-request path that is sparkload's own
Python). A conversation's turns are answered with a reply of about 128 tokens, so its history
grows as in a run.

    .venv/bin/python benchmarks/request_build.py [--requests 20000]
"""

from __future__ import annotations

import argparse
import timeit

from locust.argument_parser import LocustArgumentParser

from sparkload import config
from sparkload.body import BodyTemplate
from sparkload.paths import PROMPTS_DIR
from sparkload.plugin.options import register
from sparkload.records import PHASE_MEASURE, RequestRecord
from sparkload.workloads import registry
from sparkload.workloads.contract import Slot

CASES = {
    "chat (prompt file)": [],
    "chat (JSONL dataset, pinned)": [
        "--prompts",
        str(PROMPTS_DIR / "example.jsonl"),
        "--ignore-eos",
    ],
    "chat --extra-body --no-thinking": ["--extra-body", '{"seed": 1}', "--no-thinking"],
    "fresh": ["--workload", "fresh"],
    "edit": ["--workload", "edit"],
    "prefill (8K tokens)": ["--workload", "prefill", "--prefill-sizes", "8000"],
    "conversation (8 turns)": ["--workload", "conversation", "--turns", "8"],
}
REPLY = " the load test runs on a small box" * 16  # about 128 tokens at 4 characters a token


def per_request_us(args: list[str], requests: int) -> float:
    parser = LocustArgumentParser()
    register(parser)
    opts = registry.settle(config.from_namespace(parser.parse_args(args)))
    workload = registry.load(opts)
    template = BodyTemplate.for_run(opts, workload.sampling, workload.max_tokens, "model")
    user = workload.new_user(0, lambda: 0)
    slot = Slot(0)
    record = RequestRecord("r", 1, 0, PHASE_MEASURE, "local", 0, "url", "model", 0, 1, 0.0)

    def one() -> None:
        planned = workload.next_request(user, slot)
        template.encode(planned)
        user.planned += 1
        workload.after(user, planned, record, REPLY if planned.wants_reply else None)

    return 1e6 * min(timeit.repeat(one, number=requests, repeat=5)) / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000, help="requests per timed batch")
    requests = parser.parse_args().requests
    for name, args in CASES.items():
        print(f"{name:34} {per_request_us(args, requests):7.2f} us per request", flush=True)


if __name__ == "__main__":
    main()
