"""Secrets out of everything sparkload writes or prints: one rule, used wherever a command shows."""

from __future__ import annotations

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
