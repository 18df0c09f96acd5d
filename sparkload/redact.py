"""Secrets out of everything sparkload writes or prints: one rule, used wherever a command shows."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sparkload import config

# their values: a key, a header (may be a token), the worker token
SECRET_OPTIONS = tuple(option.flag for option in config.OPTIONS if option.secret)
HIDDEN = "***"


def redacted_command(argv: list[str]) -> list[str]:
    """``argv`` with the value of every secret option replaced (``--api-key X`` and
    ``--api-key=X``)."""
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(HIDDEN)
            hide_next = False
        elif arg in SECRET_OPTIONS:
            out.append(arg)
            hide_next = True
        elif arg.split("=", 1)[0] in SECRET_OPTIONS and "=" in arg:
            out.append(arg.split("=", 1)[0] + "=" + HIDDEN)
        else:
            out.append(arg)
    return out


# A name is a secret's when it ends in one of these words (``api_key``, ``HF_TOKEN``,
# ``hfToken``, ``access_token``; not ``max_tokens``, ``token_ids`` nor ``tokenizer``) ...
SECRET_ENDS = frozenset(("key", "apikey", "token", "auth", "authorization", "bearer", "cookie"))
# ... or holds one of these anywhere (``db_password_file`` is one too)
SECRET_WORDS = frozenset(("secret", "password", "passwd", "credential", "credentials"))
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_PAIR = re.compile(
    r"""(?P<name>[A-Za-z_][\w.-]*)(?P<sep>\s*[=:]\s*)(?P<value>'[^']*'|"[^"]*"|[^\s,;)}\]]+)"""
)
# values that are secrets whatever they are called: bearer tokens, OpenAI's and Hugging Face's
_SECRET_VALUE = re.compile(r"(?i)\bbearer\s+\S+|\bsk-[\w-]{8,}|\bhf_[A-Za-z0-9]{8,}")


def secret_name(name: str) -> bool:
    """Whether a key or a setting's name says its value is a secret."""
    words = [word.lower() for word in _WORD.findall(name)]
    return bool(words) and (words[-1] in SECRET_ENDS or not SECRET_WORDS.isdisjoint(words))


def redacted_data(value: Any, known: Iterable[str] = ()) -> Any:
    """JSON data a server said about itself, fit to keep: the value of every secret-named key
    hidden, and in text every ``name=value`` pair with a secret name, every bearer token or
    key-shaped value and every ``known`` secret (this host's API key, header values)."""
    literals = tuple(secret for secret in known if len(secret) >= 4)
    return _redacted(value, literals)


def _redacted(value: Any, known: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {
            key: HIDDEN if secret_name(str(key)) and value[key] else _redacted(value[key], known)
            for key in value
        }
    if isinstance(value, list | tuple):
        return [_redacted(item, known) for item in value]
    if isinstance(value, str):
        return _redacted_text(value, known)
    return value


def _redacted_text(text: str, known: tuple[str, ...]) -> str:
    for secret in known:
        text = text.replace(secret, HIDDEN)
    text = _PAIR.sub(
        lambda m: (
            m.group(0)
            if not secret_name(m.group("name"))
            else m.group("name") + m.group("sep") + HIDDEN
        ),
        text,
    )
    return _SECRET_VALUE.sub(HIDDEN, text)
