"""The options page lists every option ``sparkload run --help`` lists: the page's tables are
rendered from the option table when the site is built (tools/docs_hooks.py), and this holds the
rendering, and the hook registered in mkdocs.yml, to what ``--help`` prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
import yaml

from sparkload import config
from sparkload.config import reference
from tests.conftest import ROOT
from tools import docs_hooks

PAGE = ROOT / "docs" / "options.md"
# An option line of argparse's help: two spaces, then the option's spellings, e.g.
# "  -f <filename>, --locustfile <filename>" or "  --web-port <port number>, -P <port number>".
OPTION_LINE = re.compile(r"^  (-[^ ].*)$")
SPELLING = re.compile(r"(?:^|, )(--?[A-Za-z][\w-]*)")
ON_THE_PAGE = re.compile(r"`(--?[A-Za-z][\w-]*)`")


def help_flags(help_text: str) -> set[str]:
    """Every spelling of every option in an argparse ``--help``."""
    flags: set[str] = set()
    for line in help_text.splitlines():
        match = OPTION_LINE.match(line)
        if match:
            spellings = re.split(r"\s{2,}", match.group(1))[0]
            flags.update(SPELLING.findall(spellings))
    return flags


def page_flags(markdown: str) -> set[str]:
    return set(ON_THE_PAGE.findall(markdown))


@pytest.fixture(scope="module")
def run_help() -> str:
    result = subprocess.run(
        [sys.executable, "-m", "sparkload.cli", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return result.stdout


@pytest.fixture(scope="module")
def rendered() -> str:
    return docs_hooks.options_page(PAGE.read_text(encoding="utf-8"))


def test_every_option_of_run_help_is_on_the_options_page(run_help, rendered):
    flags = help_flags(run_help)
    assert {"--ladder", "--sim-schema-error-rate", "-H", "--host", "--expect-workers"} <= flags
    assert sorted(flags - page_flags(rendered)) == []


def test_the_options_page_names_no_option_that_run_help_lacks(run_help, rendered):
    tables = "\n".join(line for line in rendered.splitlines() if line.startswith("| `-"))
    assert sorted(page_flags(tables) - help_flags(run_help)) == []


def test_the_comparison_sees_an_option_missing_from_the_page(run_help):
    without_ladder = tuple(option for option in config.OPTIONS if option.flag != "--ladder")
    page = PAGE.read_text(encoding="utf-8").replace(
        docs_hooks.SPARKLOAD_MARKER, reference.markdown(without_ladder)
    )
    page = page.replace(docs_hooks.LOCUST_MARKER, docs_hooks.locust_options())
    page = page.replace("`--ladder`", "")  # the page's prose mentions it too
    assert "--ladder" in help_flags(run_help) - page_flags(page)


def test_the_page_source_holds_both_markers_and_mkdocs_registers_the_hook():
    source = PAGE.read_text(encoding="utf-8")
    assert docs_hooks.SPARKLOAD_MARKER in source and docs_hooks.LOCUST_MARKER in source
    settings = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert "tools/docs_hooks.py" in settings["hooks"]


def test_the_built_sites_options_page_lists_every_option_of_run_help(run_help, tmp_path):
    """The whole build, as .ci/run does it: the hook really replaces the markers."""
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        check=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    html = (site / "options" / "index.html").read_text(encoding="utf-8")
    missing = [flag for flag in help_flags(run_help) if f"<code>{flag}</code>" not in html]
    assert missing == []
