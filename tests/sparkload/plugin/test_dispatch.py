"""The dispatch order sparkload derives is Locust's own: the users Locust's UsersDispatcher hands
out go to the workers in the order ``dispatch_order`` gives, so a worker's k-th user is user
``k x workers + place`` of the run."""

from __future__ import annotations

import pytest
from locust import User
from locust.dispatch import UsersDispatcher
from locust.runners import WorkerNode

from sparkload.plugin.dispatch import dispatch_order, dispatch_place


class Someone(User):
    pass


def lockstep(worker_ids: list[str], users: int) -> list[str]:
    """The worker Locust's dispatcher gives each new user to, one level of users at a time."""
    dispatcher = UsersDispatcher([WorkerNode(i) for i in worker_ids], [Someone])
    seen = dict.fromkeys(worker_ids, 0)
    order = []
    for total in range(1, users + 1):
        dispatcher.new_dispatch(total, spawn_rate=100)
        for dispatched in dispatcher:
            counts = {worker: sum(classes.values()) for worker, classes in dispatched.items()}
        (grown,) = [worker for worker in worker_ids if counts[worker] > seen[worker]]
        seen = counts
        order.append(grown)
    return order


@pytest.mark.parametrize(
    "worker_ids",
    [
        ["hostb_2f", "hosta_9c"],
        ["one_c3", "one_a1", "one_b2"],  # --processes 3: one host
        ["hosta_2", "hostb_1", "hosta_1", "hostb_2"],  # two workers on each of two hosts
    ],
)
def test_locusts_dispatcher_deals_users_in_the_derived_order(worker_ids):
    order = dispatch_order(worker_ids)
    dealt = lockstep(worker_ids, 3 * len(worker_ids) + 1)
    assert dealt == [order[n % len(order)] for n in range(len(dealt))]


def test_a_worker_finds_its_place_and_a_process_outside_the_order_numbers_alone():
    order = dispatch_order(["hostb_2f", "hosta_9c"])
    assert dispatch_place("hosta_9c", order) == (0, 2)
    assert dispatch_place("hostb_2f", order) == (1, 2)
    assert dispatch_place("local", []) == (0, 1)
