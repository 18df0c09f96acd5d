"""The secrets of the host a process runs on: the API key, header values, the worker token.

A distributed run's master hands every worker its options with the test's start (Locust's
``spawn`` message carries them all, over a port with no encryption), and a worker copies them
over its own. Secrets must not travel that way: every process takes its own, once, from its own
command line, environment or ``--secrets-file`` before any option arrives (``capture``), and
blanks them in the options Locust sends or overwrites (``blank``). A worker without a key of its
own sends none; the master keeps its own for what it asks the target itself (``/v1/models``,
``/metrics``). An API may name a key variable of its own (``WireApi.key_env``:
``$ANTHROPIC_API_KEY``), read here as well.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparkload import config
from sparkload.apis import REGISTRY, wire_api
from sparkload.config import RunOptions
from sparkload.errors import ConfigError

SECRETS_FILE = config.BY_DEST["secrets_file"]
API_KEY, API = config.BY_DEST["api_key"], config.BY_DEST["api"]
SECRET_OPTIONS = tuple(o for o in config.OPTIONS if o.secret and o is not SECRETS_FILE)


@dataclass(frozen=True)
class HostSecrets:
    """One process's secrets, named as the options that carry them (``RunOptions`` fields)."""

    api_key: str = ""
    header: dict[str, str] = field(default_factory=dict)  # name -> value
    worker_token: str = ""

    @classmethod
    def capture(cls, parsed: argparse.Namespace) -> HostSecrets:
        """This process's own secrets: each from its options (command line, environment,
        ``locust.conf``), else from its ``--secrets-file``. A ConfigError names a bad file and
        line, never a value."""
        from_file = read_secrets_file(SECRETS_FILE.value(getattr(parsed, "secrets_file", None)))
        values: dict[str, Any] = {}
        for option in SECRET_OPTIONS:
            value = option.value(getattr(parsed, option.dest, None))
            if not value and option.env_var in from_file:
                lines = from_file[option.env_var]
                value = option.value(lines if _repeatable(option) else lines[0])
            values[option.dest] = value
        values[API_KEY.dest] = own_api_key(parsed, values[API_KEY.dest], from_file)
        return cls(**values)

    def into(self, options: RunOptions) -> RunOptions:
        """``options`` with these secrets in place of whatever the options carried."""
        return config.changed(options, **dataclasses.asdict(self))

    def names(self) -> dict[str, Any]:
        """What may be said about them: whether there is a key, and the header names."""
        return {"api_key": bool(self.api_key), "headers": sorted(self.header)}


def own_api_key(parsed: argparse.Namespace, key: str, from_file: dict[str, list[str]]) -> str:
    """The key of the chosen API's own variable (``WireApi.key_env``: ``$ANTHROPIC_API_KEY``
    for ``--api messages``, from the environment or the secrets file) where there is one: it
    wins over ``$OPENAI_API_KEY`` (a ``key`` that came from that variable), never over a key
    given with ``--api-key``."""
    name = wire_api(API.value(getattr(parsed, API.dest, None))).key_env
    own = (os.environ.get(name) or from_file.get(name, [""])[0]) if name else ""
    openai = (os.environ.get(API_KEY.env_var, ""), *from_file.get(API_KEY.env_var, ()))
    return own if own and (not key or key in openai) else key


def blank(parsed: argparse.Namespace) -> None:
    """Empty every secret option in ``parsed`` (and the secrets file's path): what Locust sends
    to workers holds none."""
    for option in (*SECRET_OPTIONS, SECRETS_FILE):
        setattr(parsed, option.dest, [] if _repeatable(option) else option.default)


def read_secrets_file(path: Path | None) -> dict[str, list[str]]:
    """``NAME=value`` lines (blank lines and ``#`` comments skipped), by the names of the
    secret options' environment variables; a header may be given on several lines."""
    if path is None:
        return {}
    names = {option.env_var: option for option in SECRET_OPTIONS}
    names.update({api.key_env: API_KEY for api in REGISTRY.values() if api.key_env})
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--secrets-file: cannot read {path}: {_reason(exc)}") from None
    found: dict[str, list[str]] = {}
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        name, equals, value = text.partition("=")
        name = name.strip()
        if not equals or name not in names:
            raise ConfigError(
                f"--secrets-file: {path}:{number}: give NAME=value with NAME one of "
                f"{', '.join(names)} (the value is not shown here)"
            )
        if name in found and not _repeatable(names[name]):
            raise ConfigError(f"--secrets-file: {path}:{number}: {name} given twice")
        found.setdefault(name, []).append(value.strip())
    return found


def _repeatable(option: config.Option) -> bool:
    return isinstance(option.default, list)


def _reason(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
