"""Locust's own options as Markdown, from the parser ``sparkload run --help`` prints.

``sparkload run`` is Locust with sparkload's options added (``options.register``); the
documentation's options page lists sparkload's from the option table
(``sparkload.config.reference``) and Locust's from here. Importing Locust monkey-patches the
process with gevent, so the documentation build runs this as its own process:
``python -m sparkload.plugin.reference`` prints the Markdown.
"""

from __future__ import annotations

import argparse

from sparkload.config.reference import cell
from sparkload.plugin.options import register

SPARKLOAD_GROUPS = "sparkload: "


def run_parser() -> argparse.ArgumentParser:
    """The parser of ``sparkload run`` (= ``locust -f <sparkload's locustfile>``), without
    reading any ``locust.conf`` and without firing Locust's parser event."""
    from locust.argument_parser import get_empty_argument_parser, setup_parser_arguments

    parser = get_empty_argument_parser(default_config_files=[])
    parser.prog = "sparkload run"
    setup_parser_arguments(parser)
    register(parser)
    return parser


def locust_markdown(parser: argparse.ArgumentParser | None = None) -> str:
    """Locust's own options, one table per group of its ``--help``: every spelling of each
    option and its help (sparkload's groups are left to the option table)."""
    parser = parser or run_parser()
    parts = []
    for group in parser._action_groups:
        title = group.title or ""
        if title.startswith(SPARKLOAD_GROUPS):
            continue
        rows = [
            action
            for action in group._group_actions
            if action.option_strings and action.help != argparse.SUPPRESS
        ]
        if not rows:
            continue
        lines = [f"### Locust: {title}\n", "| option | meaning |", "|---|---|"]
        for action in rows:
            flags = ", ".join(f"`{flag}`" for flag in action.option_strings)
            text = (action.help or "").replace("%(default)s", str(action.default))
            lines.append(f"| {flags} | {cell(text.replace('%%', '%'))} |")
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


if __name__ == "__main__":
    print(locust_markdown())
