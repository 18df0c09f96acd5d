"""The transport tests' shared set-up: a self-signed certificate for 127.0.0.1."""

from __future__ import annotations

import subprocess

import pytest


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory) -> tuple[str, str]:
    """A certificate for 127.0.0.1 signed by itself, and its key: ``(cert.pem, key.pem)``."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return str(cert), str(key)
