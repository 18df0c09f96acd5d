"""Output fidelity end to end on the simulator: two greedy runs of C=1 and C=16 with kept
outputs, the second with ``--sim-output-drift 0.1``, held to the first by ``sparkload
fidelity``. The drift is the simulator's setting (sim/drift.py), never a claim about a model:
the test holds the path from the stream to the comparison, not a server's fidelity."""

from __future__ import annotations

import json

import pytest

from analysis.fidelity.fidelity_cli import main
from tests.conftest import run_locust

pytestmark = pytest.mark.e2e  # starts Locust and the simulator, twice

PROMPTS = ("What is a load test?", "Explain the KV cache.", "Why batch requests?", "What is TTFT?")


def greedy_run(tmp_path, name: str, *extra: str):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("\n".join(PROMPTS) + "\n")
    args = ["--headless", "--ladder", "1,16", "--requests-per-user", "8", "--max-tokens", "16"]
    args += ["--prompts", str(prompts), "--temperature", "0", "--keep-outputs"]
    args += ["--sim-profile", "fixed", "--sim-time-scale", "20", *extra]
    run = run_locust(args, tmp_path / name, timeout=60)
    assert run.returncode == 0, run.output[-2000:]
    return run.run_dir


def test_a_tenth_of_greedy_outputs_changed_at_c16_and_none_at_c1_is_what_fidelity_finds(
    tmp_path, capsys
):
    reference = greedy_run(tmp_path, "reference")
    drifted = greedy_run(tmp_path, "drifted", "--sim-output-drift", "0.1")
    figures = tmp_path / "fidelity.json"
    assert main([str(drifted), "--reference", str(reference), "--json", str(figures)]) == 0
    c1, c16 = json.loads(figures.read_text())["levels"]
    assert (c1["level"], c1["pairs"], c1["exact_share"]) == (1, 8, 1.0)
    assert (c16["level"], c16["pairs"]) == (16, 128)
    assert 0.85 <= c16["exact_share"] <= 0.95
    assert len(c16["first_difference_chunks"]) == c16["pairs"] - c16["exact"]
    assert all(0 <= chunk < 16 for chunk in c16["first_difference_chunks"])
    assert "| C=16 | 128 | 128 |" in capsys.readouterr().out
