"""sparkload's options on Locust's parser: the option table (``sparkload.config``) as Locust's
command-line, ``locust.conf``, environment and web-UI options, and the defaults sparkload sets
on Locust's own."""

from __future__ import annotations

import argparse
from typing import Any

from sparkload import config


def register(parser: argparse.ArgumentParser) -> None:
    """Add every option to Locust's parser (an ``init_command_line_parser`` listener)."""
    groups = {name: parser.add_argument_group(f"sparkload: {name}") for name in config.GROUP_ORDER}
    for option in config.OPTIONS:
        kwargs: dict[str, Any] = {
            "default": None if isinstance(option.default, list) else option.default,
            "help": _help_with_default(option),
            "env_var": option.env_var,
            **option.argparse_extra,
        }
        if option.is_flag:
            kwargs["action"] = "store_true"
        if option.choices:
            kwargs["choices"] = option.choices
        action = groups[option.group].add_argument(option.flag, **kwargs)
        # What LocustArgumentParser.add_argument sets (its argument groups do not): the web
        # UI's "Custom parameters" list every option but a secret.
        action.include_in_web_ui = not option.secret  # type: ignore[attr-defined]
        action.is_secret = action.is_required = action.is_multiple = False  # type: ignore[attr-defined]
    # A load generator's own UI should not listen on every interface by default; sparkload's
    # progress line replaces Locust's periodic stats table in headless runs.
    parser.set_defaults(web_host="127.0.0.1", only_summary=True)
    # No abbreviations: "--api completions" must never be taken for "--api-key completions".
    parser.allow_abbrev = False


def _help_with_default(option: config.Option) -> str:
    """The help text as argparse prints it (``%`` escaped), with the default when it says more
    than "off" or "not given"."""
    text = option.help.replace("%", "%%")
    if (
        option.secret
        or option.default is None
        or option.default is False
        or option.default in ("", [])
    ):
        return text
    return f"{text} (default: {option.default})"
