"""Where each user of a distributed run stands in the run: Locust's dispatch order.

Locust 2.47's ``UsersDispatcher`` hands users out one at a time, cycling over the workers sorted
by (their index among the workers of their host, their id); the host is the id up to its first
``_``. So on a ladder that only adds users, the k-th user a worker starts is user
``k x workers + place`` of the run, ``place`` its position in that cycle. The master sends the
order with the options of the test's start (``WORKER_ORDER``); every worker finds its place in
it, so a deal by the run's user number (``--tenants``' classes) is exact across workers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

WORKER_ORDER = "sparkload_worker_order"  # the parsed option that carries the order


def dispatch_order(worker_ids: Iterable[str]) -> list[str]:
    """The workers in the order Locust's dispatcher cycles over them (its ``_sort_workers``)."""
    within_host: dict[str, int] = {}
    per_host: defaultdict[str, int] = defaultdict(int)
    for worker in sorted(worker_ids):
        host = worker.split("_")[0]
        within_host[worker] = per_host[host]
        per_host[host] += 1
    return sorted(within_host, key=lambda worker: (within_host[worker], worker))


def dispatch_place(node_id: str, order: list[str]) -> tuple[int, int]:
    """This process's place in the cycle and the number of workers: (0, 1) for a local run, or
    a worker the order does not name (its users then number as its own)."""
    if node_id not in order:
        return 0, 1
    return order.index(node_id), len(order)
