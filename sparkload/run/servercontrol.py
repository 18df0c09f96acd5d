"""Server control: the calls a run makes to the server itself, beside the load it sends.

``--reset-prefix-cache`` empties the server's prefix cache before every level (vLLM's
``POST /reset_prefix_cache``, SGLang's ``POST /flush_cache``), so no level is served from what an
earlier one cached; ``--server-profile N`` wraps level N's measured window in vLLM's
``POST /start_profile`` and ``POST /stop_profile``; ``GET /server_info`` (vLLM's, served with
VLLM_SERVER_DEV_MODE=1) is read once before the load and kept, redacted, in the manifest.

None of it may stop a run: a server that refuses (a 404 without the dev mode or a profiler, a
``{"success": false}``, a connection error) costs one log line per endpoint and call, and every
refusal is kept in the manifest (``ControlRefusal``) so a reader knows which levels were not
reset. The master makes the calls, at the level boundaries its shape sets, before the level's
users are told to send (``plugin/controller.py``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import requests

from sparkload.records import ControlRefusal
from sparkload.redact import redacted_data
from sparkload.transport.target import Endpoint

logger = logging.getLogger("sparkload")

RESET = "reset_prefix_cache"
START_PROFILE = "start_profile"
STOP_PROFILE = "stop_profile"
# How each call is asked, in the order tried: the next route only when a server has no such
# route (404, 405), so a vLLM and an SGLang answer the same option.
ROUTES: dict[str, tuple[str, ...]] = {
    RESET: ("/reset_prefix_cache", "/flush_cache"),
    START_PROFILE: ("/start_profile",),
    STOP_PROFILE: ("/stop_profile",),
}
SERVER_INFO_ROUTE = "/server_info?config_format=json"
# seconds a call may take: a profile's stop answers once the server wrote its traces (18 to
# over 30 s for vLLM's CPU build and a tiny model)
TIMEOUTS = {RESET: 30.0, START_PROFILE: 30.0, STOP_PROFILE: 300.0}
INFO_TIMEOUT = 10.0  # seconds /server_info may take (vLLM gathers its system's the first time)
RESET_TRIES = 3  # vLLM refuses a reset while blocks are held (freed just after a level)
RESET_PAUSE = 0.5  # seconds between those tries
NOT_YET = "success=false"  # how a refusal to reset yet is said


@dataclass(frozen=True)
class Answer:
    """What one call came back with: done, or the problem in a few words (``POST
    /reset_prefix_cache: 404 Not Found``)."""

    problem: str = ""  # "" when the server did it
    missing: bool = False  # the server has no such route (404, 405)

    @property
    def done(self) -> bool:
        return not self.problem


def call(root: str, action: str, headers: dict[str, str], verify_tls: bool = True) -> Answer:
    """POST ``action``'s route under ``root`` (an endpoint's scheme, host and port: vLLM and
    SGLang serve these at the root, whatever path their OpenAI API sits under); the next route
    only when the server has no such route."""
    missing: list[str] = []
    for route in ROUTES[action]:
        answer = _post(root, route, headers, verify_tls, TIMEOUTS[action])
        if not answer.missing:
            return answer
        missing.append(answer.problem)
    return Answer(", ".join(missing), missing=True)


def reset_cache(
    root: str, headers: dict[str, str], verify_tls: bool = True, tries: int = RESET_TRIES
) -> Answer:
    """Empty the prefix cache, asking again (``tries`` in all) while the server says it could
    not yet (vLLM's ``{"success": false}``: blocks still held)."""
    answer = call(root, RESET, headers, verify_tls)
    for _ in range(tries - 1):
        if answer.done or NOT_YET not in answer.problem:
            break
        time.sleep(RESET_PAUSE)
        answer = call(root, RESET, headers, verify_tls)
    return answer


def _post(
    root: str, route: str, headers: dict[str, str], verify_tls: bool, timeout: float
) -> Answer:
    said = f"POST {route}: "
    try:
        response = requests.post(root + route, headers=headers, timeout=timeout, verify=verify_tls)
    except requests.exceptions.RequestException as exc:
        return Answer(said + type(exc).__name__)
    if response.status_code != 200:
        status = f"{response.status_code} {response.reason or ''}".strip()
        return Answer(said + status, missing=response.status_code in (404, 405))
    try:
        body = response.json()
    except ValueError:
        return Answer()  # an empty 200 (vLLM's profiler, SGLang's flush) is a yes
    if isinstance(body, dict) and body.get("success") is False:
        return Answer(said + NOT_YET + " (vLLM: blocks still held by requests)")
    return Answer()


def server_info(
    root: str, headers: dict[str, str], secrets: tuple[str, ...], verify_tls: bool = True
) -> dict[str, Any] | None:
    """vLLM's ``GET /server_info`` (its config, environment and system), secrets redacted; None
    where it is not served (no dev mode, another server), which is no error."""
    try:
        response = requests.get(
            root + SERVER_INFO_ROUTE, headers=headers, timeout=INFO_TIMEOUT, verify=verify_tls
        )
        said = response.json() if response.status_code == 200 else None
    except (requests.exceptions.RequestException, ValueError):
        return None
    if not isinstance(said, dict):
        return None
    return dict(redacted_data(said, (*secrets, *headers.values())))


@dataclass
class ServerControl:
    """The run's server-control calls to every endpoint, as the options ask; each refusal said
    once per endpoint and call in the log, and returned for the manifest every time."""

    endpoints: Sequence[Endpoint]
    headers: dict[str, str]  # the look-ups' (API key, a gateway's headers)
    reset: bool  # --reset-prefix-cache
    profile_level: int  # --server-profile: the level number (from 1), 0: none
    verify_tls: bool = True
    profiled: int | None = None  # the level index whose profile was started
    profiling: list[Endpoint] = field(default_factory=list)  # the endpoints that started it
    _said: set[tuple[str, str]] = field(default_factory=set)

    def before_level(self, index: int) -> list[tuple[str, ControlRefusal]]:
        """Before level ``index``'s users send anything: every endpoint's cache emptied."""
        if not self.reset:
            return []
        answers = {
            e.url: reset_cache(e.base, self.headers, self.verify_tls) for e in self.endpoints
        }
        return self._refusals(index, RESET, answers)

    def measuring(self, index: int) -> list[tuple[str, ControlRefusal]]:
        """Level ``index``'s measured window opens: the profile starts if it is the one."""
        if index + 1 != self.profile_level or self.profiled is not None:
            return []
        self.profiled = index
        answers = {
            e.url: call(e.base, START_PROFILE, self.headers, self.verify_tls)
            for e in self.endpoints
        }
        self.profiling = [e for e in self.endpoints if answers[e.url].done]
        return self._refusals(index, START_PROFILE, answers)

    def level_over(self, index: int | None = None) -> list[tuple[str, ControlRefusal]]:
        """Level ``index``'s window closed (None: the run ends, at whatever level): the
        profile under way of that level stops where it started."""
        if self.profiled is None or not self.profiling or index not in (None, self.profiled):
            return []
        started, self.profiling = self.profiling, []
        answers = {
            e.url: call(e.base, STOP_PROFILE, self.headers, self.verify_tls) for e in started
        }
        return self._refusals(self.profiled, STOP_PROFILE, answers)

    def _refusals(
        self, index: int, action: str, answers: dict[str, Answer]
    ) -> list[tuple[str, ControlRefusal]]:
        refused = []
        for url, answer in answers.items():
            if answer.done:
                continue
            if (url, action) not in self._said:
                self._said.add((url, action))
                logger.warning(
                    "sparkload: %s refused %s (%s) at level %d; the run goes on without it "
                    "(each refusal is in the manifest)",
                    url,
                    action,
                    answer.problem,
                    index + 1,
                )
            refused.append((url, ControlRefusal(action, index, answer.problem)))
        return refused
