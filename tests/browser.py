"""Debian's Chromium driven by playwright, for the tests that open a page in a real browser.

No browser is downloaded: playwright launches the system's ``chromium``. Without one, the
browser tests are skipped, unless ``SPARKLOAD_REQUIRE_BROWSER`` is set (.ci/run sets it), where a
missing browser is an error: CI must not pass by skipping them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("SPARKLOAD_REQUIRE_BROWSER"):
    raise RuntimeError("SPARKLOAD_REQUIRE_BROWSER is set but no Chromium was found")
NEEDS_BROWSER = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium (.ci/run installs it)"
)
# nothing but the page under test: no update checks, syncing or first-run pages that would reach
# out to the internet
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium, closed on leaving."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
