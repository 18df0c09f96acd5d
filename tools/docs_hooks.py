"""MkDocs hooks (mkdocs.yml ``hooks:``): the options page is rendered from the option table at
build time, so it lists exactly what ``sparkload run --help`` lists and cannot drift.

docs/options.md holds two markers: ``<!-- sparkload-options -->`` becomes sparkload's option
table (``sparkload.config.reference``), ``<!-- locust-options -->`` Locust's own options
(``sparkload.plugin.reference``, run as a child process: importing Locust monkey-patches the
process with gevent, which MkDocs' own server must not be).
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from typing import Any

SPARKLOAD_MARKER = "<!-- sparkload-options -->"
LOCUST_MARKER = "<!-- locust-options -->"


@cache
def locust_options() -> str:
    return subprocess.run(
        [sys.executable, "-m", "sparkload.plugin.reference"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout


def options_page(markdown: str) -> str:
    """The options page with both markers replaced by their tables."""
    from sparkload.config.reference import markdown as sparkload_options

    if SPARKLOAD_MARKER in markdown:
        markdown = markdown.replace(SPARKLOAD_MARKER, sparkload_options())
    if LOCUST_MARKER in markdown:
        markdown = markdown.replace(LOCUST_MARKER, locust_options())
    return markdown


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri == "options.md":
        return options_page(markdown)
    return markdown
