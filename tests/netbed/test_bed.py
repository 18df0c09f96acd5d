"""The test bed itself: its links hold packets as long as they should, and it leaves nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.netbed import Host, NetBed, require

pytestmark = pytest.mark.e2e  # makes namespaces and starts processes


@pytest.fixture(autouse=True)
def namespaces_can_be_made():
    require()


ECHO = """
import socket, sys
server = socket.create_server(("0.0.0.0", 7000))
connection, _ = server.accept()
while data := connection.recv(64):
    connection.sendall(data)
"""
PING = """
import socket, sys, time
connection = socket.create_connection((sys.argv[1], 7000), timeout=10)
trips = []
for _ in range(10):
    sent = time.perf_counter()
    connection.sendall(b"x")
    connection.recv(64)
    trips.append(time.perf_counter() - sent)
print(min(trips))
"""


def shortest_round_trip(bed: NetBed, client: str, server: str) -> float:
    echo = bed.start(server, "echo", [sys.executable, "-c", ECHO])
    assert echo.poll() is None
    for _ in range(50):  # until it listens (bounded)
        done = subprocess.run(
            bed.command(client, [sys.executable, "-c", PING, bed.addresses[server]]),
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode == 0:
            return float(done.stdout)
    raise AssertionError(done.stderr)


def test_a_round_trip_takes_at_least_both_links_delays_each_way(tmp_path):
    with NetBed([Host("near", 0.1), Host("far", 1.9)], tmp_path, deadline=60) as bed:
        assert shortest_round_trip(bed, "near", "far") >= 2 * (0.0001 + 0.0019)


def test_a_host_runs_its_processes_under_its_own_name(tmp_path):
    with NetBed([Host("client-b")], tmp_path, deadline=60) as bed:
        done = subprocess.run(
            bed.command("client-b", ["hostname"]), capture_output=True, text=True, timeout=30
        )
    assert done.stdout.strip() == "client-b"


def test_the_bed_leaves_no_namespace_and_no_process(tmp_path):
    with NetBed([Host("a"), Host("b")], tmp_path, deadline=60) as bed:
        made = [bed.netns("a"), bed.netns("b")]
        echo = bed.start("b", "echo", [sys.executable, "-c", ECHO])
    listed = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, timeout=10
    ).stdout
    assert not [netns for netns in made if netns in listed]
    assert echo.poll() is not None
