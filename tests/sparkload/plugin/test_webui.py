"""The web UI: start the ladder from the browser and watch the per-level tab fill in, live."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.browser import NEEDS_BROWSER, chromium
from tests.conftest import free_port, locust_command, wait_until_up

pytestmark = [pytest.mark.e2e, NEEDS_BROWSER]
SCREENSHOT = Path(os.environ.get("SPARKLOAD_SCREENSHOT_DIR", "/tmp")) / "sparkload-webui-levels.png"


@pytest.fixture
def web_ui(tmp_path):
    port = free_port()
    process = subprocess.Popen(
        locust_command(
            "--web-port",
            str(port),
            "--ladder",
            "1,2",
            "--requests-per-user",
            "6",
            "--results-dir",
            str(tmp_path),
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_ladder_started_from_the_ui_fills_the_sparkload_levels_tab_live(web_ui):
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 700})
        page.goto(web_ui)
        users_field_visible = page.locator('input[name="userCount"]').is_visible()
        plan_note = page.locator("form").first.evaluate(
            "form => getComputedStyle(form, '::before').content"
        )
        page.get_by_role("button", name="Start").click()
        page.get_by_role("tab", name="sparkload levels").click()
        first_row = page.locator("table tbody tr").first
        # the C=1 row shows a measured count and a TTFT mean once requests have completed
        deadline = time.monotonic() + 60
        cells: list[str] = []
        while time.monotonic() < deadline:
            cells = (
                [c.strip() for c in first_row.locator("td").all_inner_texts()]
                if first_row.count()
                else []
            )
            if len(cells) > 3 and cells[1] not in ("", "0") and cells[3]:
                break
            page.wait_for_timeout(300)
        page.screenshot(path=str(SCREENSHOT))
        headers = page.locator("table thead th").all_inner_texts()
    assert not users_field_visible  # the ladder ignores it: not shown
    assert "START runs sparkload's load plan" in plan_note
    assert headers[:4] == ["C / rate", "n", "fail", "TTFT ms mean"]
    assert cells[0] == "1"
    assert int(cells[1]) > 0
    assert float(cells[3]) > 0
