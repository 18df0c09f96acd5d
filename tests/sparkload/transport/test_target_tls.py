"""TLS: certificates are verified unless the user switches it off, explicitly."""

from __future__ import annotations

import pytest

from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes


def https_simulator(simulator, self_signed) -> str:
    cert, key = self_signed
    url = simulator(
        "fixed", 1.0, "--fixed-itl-ms", "1", "--tls-cert", str(cert), "--tls-key", str(key)
    )
    assert url.startswith("https://")
    return url


def test_an_untrusted_certificate_stops_the_run_with_one_line(simulator, self_signed, tmp_path):
    run = run_locust(["--headless", "-H", https_simulator(simulator, self_signed)], tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.output
    assert "TLS certificate not trusted (--insecure skips the check)" in run.output


def test_insecure_switches_verification_off_for_the_whole_run(simulator, self_signed, tmp_path):
    run = run_locust(
        [
            "--headless",
            "-H",
            https_simulator(simulator, self_signed),
            "--insecure",
            "--ladder",
            "1",
            "--requests-per-user",
            "2",
            "--max-tokens",
            "8",
        ],
        tmp_path,
    )
    assert run.returncode == 0, run.output
    assert [r["status"] for r in run.records] == ["ok"] * 3
