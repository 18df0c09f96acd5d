"""Real servers nobody in this project wrote (llama.cpp's llama-server, nginx) as targets.

Tests here are marked ``realserver``. They skip when the build prerequisites are missing,
unless ``SPARKLOAD_REQUIRE_REALSERVER`` is set: then a missing prerequisite fails the test.
"""

from __future__ import annotations

import importlib.util
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.realservers import llama_server
from benchmarks.realservers.llama_server import LlamaServer, metrics
from tests.conftest import run_locust

REQUIRE_ENV = "SPARKLOAD_REQUIRE_REALSERVER"


def missing() -> list[str]:
    """What building and running llama-server needs and this machine lacks."""
    lacking = [f"apt package {name}" for name in llama_server.missing_prerequisites()]
    if not llama_server.model_path().exists() and importlib.util.find_spec("gguf") is None:
        lacking.append("PyPI package gguf (pip install gguf)")
    return lacking


def require_or_skip(lacking: list[str]) -> None:
    if not lacking:
        return
    reason = "missing prerequisites: " + ", ".join(lacking)
    if os.environ.get(REQUIRE_ENV):
        pytest.fail(f"{reason} (and {REQUIRE_ENV} is set)")
    pytest.skip(f"{reason}; set {REQUIRE_ENV}=1 to make this a failure")


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaServer]:
    """llama-server with 8 slots and ``-v`` (its log then holds each response's timings)."""
    require_or_skip(missing())
    with LlamaServer(parallel=8, verbose=True) as server:
        yield server


LADDER = (1, 4, 8)
REQUESTS_PER_USER = 2
MAX_TOKENS = 32


def run_job(url: str, results: Path, metrics_url: str, *extra: str) -> dict:
    """One run of the main job on ``url``, with llama-server's metrics before and after."""
    before = metrics(metrics_url)
    run = run_locust(
        ["--headless", "-H", url, "--ladder", ",".join(map(str, LADDER))]
        + ["--requests-per-user", str(REQUESTS_PER_USER), "--max-tokens", str(MAX_TOKENS)]
        + list(extra),
        results,
        timeout=300,
    )
    return {"run": run, "before": before, "after": metrics(metrics_url)}


def expected_counts() -> Counter:
    """Measured Σ C × requests per user, plus one warm-up per level."""
    expected: Counter = Counter()
    for c in LADDER:
        expected[(c, "measure")] = c * REQUESTS_PER_USER
        expected[(c, "warmup")] = 1
    return expected
