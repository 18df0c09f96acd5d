"""The Dockerfile: a base image chosen at build time, and a build context of only what it copies."""

from __future__ import annotations

import re

from tests.conftest import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()


def copied_sources() -> set[str]:
    """Every source path of the Dockerfile's COPY lines (all words but the destination)."""
    sources: set[str] = set()
    for line in re.findall(r"^COPY (.+)$", DOCKERFILE, re.MULTILINE):
        sources.update(path.removeprefix("./") for path in line.split()[:-1])
    return sources


def test_the_base_image_is_a_build_argument_defaulting_to_python_3_12_slim():
    instructions = [line for line in DOCKERFILE.splitlines() if line and not line.startswith("#")]
    assert instructions[:2] == ["ARG BASE=python:3.12-slim", "FROM ${BASE}"]


def test_the_build_context_admits_exactly_what_the_dockerfile_copies():
    rules = [
        line
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert rules[0] == "*"  # everything else (.venv, results, .git) stays out of the context
    assert {rule.removeprefix("!") for rule in rules if rule.startswith("!")} == copied_sources()
