"""The option table as Markdown: the documentation's options page is rendered from it at build
time (``tools/docs_hooks.py``), so the page lists what the code defines and cannot drift.

One table per group, in ``--help``'s order: the flag, its default (as ``--help`` prints it) and
its help text with its environment variable; a secret is marked as one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sparkload.config.option import GROUP_ORDER, Option
from sparkload.config.table import OPTIONS
from sparkload.paths import DATA_ROOT


def cell(text: str) -> str:
    """``text`` safe in one Markdown table cell: no line break, no column bar, no HTML tag."""
    return (
        " ".join(text.split())
        .replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("*", "\\*")
    )


def shown_default(option: Option) -> str:
    """The default as ``sparkload run --help`` states it (empty where it says nothing), a path
    of sparkload's own files relative to where they live."""
    value: Any = option.default
    if option.secret or value is None or value is False or value in ("", []):
        return ""
    text = str(value)
    root = str(DATA_ROOT) + "/"
    if text.startswith(root):
        text = str(Path(text).relative_to(DATA_ROOT))
    return f"`{text}`"


def group_table(group: str, options: tuple[Option, ...] = OPTIONS) -> str:
    rows = [
        "| option | default | meaning |",
        "|---|---|---|",
    ]
    for option in options:
        if option.group != group:
            continue
        flag = f"`{option.flag}`"
        if option.choices:
            flag += " " + cell("{" + ",".join(option.choices) + "}")
        meaning = f"{cell(option.help)}<br>Environment: `{option.env_var}`"
        if option.secret:
            meaning += "<br>**Secret:** not in the web UI, never written, not sent to workers."
        rows.append(f"| {flag} | {shown_default(option)} | {meaning} |")
    return "\n".join(rows)


def markdown(options: tuple[Option, ...] = OPTIONS) -> str:
    """Every option of the table, one section per group."""
    parts = []
    for group in GROUP_ORDER:
        if any(option.group == group for option in options):
            parts.append(f"### sparkload: {group}\n\n{group_table(group, options)}\n")
    return "\n".join(parts)
