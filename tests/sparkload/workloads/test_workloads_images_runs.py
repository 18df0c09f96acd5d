"""--images end to end: every request of a run carries its images in its API's form and size
(a server that answers 400 otherwise), and every record counts them."""

from __future__ import annotations

import pytest

from tests.conftest import run_locust
from tests.servers import Script, scripted

pytestmark = pytest.mark.e2e  # starts Locust processes

IMAGE_ARGS = ("--images", "2", "--image-size", "512x512", "--image-format", "png")


@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_two_512_pngs_are_accepted_by_a_server_checking_the_apis_image_form(tmp_path, api):
    with scripted(Script(tokens=4, api=api, images=(2, 512, 512))) as server:
        run = run_locust(
            [
                "--headless",
                "-H",
                server.url,
                "--api",
                api,
                "--ladder",
                "1",
                "--requests-per-user",
                "2",
                "--max-tokens",
                "4",
                "--no-server-metrics",
                *IMAGE_ARGS,
            ],
            tmp_path / "results",
            timeout=90,
        )
    assert run.returncode == 0, run.output
    measured = [r for r in run.records if r["phase"] == "measure"]
    assert len(measured) == 2
    for record in measured:
        assert record["status"] == "ok", record
        assert record["images"] == 2 and record["image_size"] == "512x512"
        assert record["image_bytes"] > 2 * 512 * 512 * 3  # noise: a PNG no smaller than its pixels


def test_images_on_the_completions_api_are_refused_before_the_load(tmp_path):
    with scripted(Script(tokens=4)) as server:
        run = run_locust(
            ["--headless", "-H", server.url, "--api", "completions", "--ladder", "1", *IMAGE_ARGS],
            tmp_path / "results",
            timeout=60,
        )
    assert run.returncode == 2, run.output
    assert (
        "--images: --api completions carries no images; use --api chat, responses or messages"
        in (run.output)
    )
    assert "Traceback" not in run.output
    assert server.requests == []
