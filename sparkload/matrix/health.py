"""Around a target's run: its deploy command and a wait until it answers before, its teardown
command after.

Why the matrix waits and Locust does not: a freshly deployed vLLM spends minutes loading weights
and capturing CUDA graphs before it answers, while a Locust run checks ``/v1/models`` once and
stops with exit code 2. So the matrix polls until the target is healthy or ``health_timeout``
passes, and a target that never gets there is skipped with a reason; the others still run.
The teardown runs whatever happened (a failed deploy may have half started a server), so the
next target gets the Sparks to itself and the last server does not outlive the matrix.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import requests

from sparkload.matrix import process
from sparkload.matrix.spec import Target
from sparkload.transport.target import Endpoint

POLL_S = 2.0
REQUEST_TIMEOUT_S = 5.0


class NotReady(Exception):
    """The target cannot be run; the message is the one-line reason in the summary."""


def deploy(target: Target, on_line: Callable[[str], None]) -> None:
    """Run the target's deploy command once; it must return once the deployment is started."""
    finished = process.run(target.deploy, on_line, timeout=target.deploy_timeout)
    if finished.returncode is None:
        raise NotReady(f"deploy command still running after {target.deploy_timeout:g} s (stopped)")
    if not finished.ok:
        raise NotReady(f"deploy command failed (exit {finished.returncode}){_last(finished.tail)}")


def teardown(target: Target, on_line: Callable[[str], None]) -> str:
    """Run the target's teardown command once; what went wrong, or "" when it succeeded."""
    finished = process.run(target.teardown, on_line, timeout=target.teardown_timeout)
    if finished.returncode is None:
        return f"teardown command still running after {target.teardown_timeout:g} s (stopped)"
    if not finished.ok:
        return f"teardown command failed (exit {finished.returncode}){_last(finished.tail)}"
    return ""


def wait_healthy(target: Target, on_line: Callable[[str], None], poll_s: float = POLL_S) -> None:
    """Return once the target is healthy; raise NotReady at its health_timeout."""
    deadline = time.monotonic() + target.health_timeout
    check = (
        _command_check(target.health, on_line) if target.health else _http_check(target.endpoints)
    )
    while True:
        problem = check(deadline)
        if problem is None:
            return
        if time.monotonic() + poll_s >= deadline:
            raise NotReady(f"not healthy within {target.health_timeout:g} s ({problem})")
        time.sleep(poll_s)


def _command_check(command: str, on_line: Callable[[str], None]) -> Callable[[float], str | None]:
    def check(deadline: float) -> str | None:
        finished = process.run(command, on_line, timeout=max(0.1, deadline - time.monotonic()))
        if finished.ok:
            return None
        code = "timed out" if finished.returncode is None else f"exit {finished.returncode}"
        return f"health command: {code}{_last(finished.tail)}"

    return check


def _http_check(urls: tuple[str, ...]) -> Callable[[float], str | None]:
    """GET /health of every endpoint (vLLM's liveness route); /v1/models where there is none."""
    api_key = os.environ.get("OPENAI_API_KEY", "")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def check(deadline: float) -> str | None:
        for url in urls:
            endpoint = Endpoint.parse(url)
            timeout = max(0.1, min(REQUEST_TIMEOUT_S, deadline - time.monotonic()))
            status = _get(endpoint.base + "/health", headers, timeout)
            if status == "HTTP 404":
                status = _get(endpoint.base + endpoint.models_path, headers, timeout)
            if status != "HTTP 200":
                return f"{url}: {status}"
        return None

    return check


def _get(url: str, headers: dict[str, str], timeout: float) -> str:
    try:
        return f"HTTP {requests.get(url, headers=headers, timeout=timeout).status_code}"
    except requests.exceptions.ConnectionError:
        return "connection failed"
    except requests.exceptions.Timeout:
        return f"no answer within {timeout:g} s"
    except requests.exceptions.RequestException as exc:
        return exc.__class__.__name__


def _last(tail: tuple[str, ...]) -> str:
    lines = [line.strip() for line in tail if line.strip()]
    return f": {lines[-1][:200]}" if lines else ""
