"""The layers of docs/architecture.md hold: no import cycles, and imports only point down."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGES = ("sparkload", "analysis")


def modules(package: str) -> list[str]:
    names = []
    for file in sorted((ROOT / package).rglob("*.py")):
        parts = file.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def imported(file: Path) -> set[str]:
    """Every module name an ``import`` or ``from ... import`` in the file names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


_FIRST_IMPORT = """
import importlib, sys
import locust  # gevent patches first, as in every Locust process (not a project module)
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m.split(".")[0] in ("sparkload", "analysis")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print("\\n".join(failed))
"""


def test_every_module_imports_first_in_a_fresh_interpreter_without_a_cycle():
    """Each module is imported with none of the project loaded before it, so a cycle (a module
    needing a partly initialised one) fails here, whatever order the rest of the suite uses."""
    names = [name for package in PACKAGES for name in modules(package)]
    result = subprocess.run(
        [sys.executable, "-c", _FIRST_IMPORT, *names],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", result.stdout


def test_the_cycle_check_catches_a_cycle(tmp_path):
    (tmp_path / "cyc").mkdir()
    (tmp_path / "cyc" / "__init__.py").write_text("from cyc import b\n")
    (tmp_path / "cyc" / "a.py").write_text("from cyc.b import B\nA = 1\n")
    (tmp_path / "cyc" / "b.py").write_text("from cyc.a import A\nB = 2\n")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _FIRST_IMPORT.replace('("sparkload", "analysis")', '("cyc",)'),
            "cyc.a",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert "partially initialized" in result.stdout


@pytest.mark.parametrize("file", sorted((ROOT / "analysis").rglob("*.py")), ids=str)
def test_analysis_reads_only_the_results_contract_of_sparkload(file):
    from_sparkload = {name for name in imported(file) if name.split(".")[0] == "sparkload"}
    assert from_sparkload <= {"sparkload.records"} | {
        n for n in from_sparkload if n.startswith("sparkload.records.")
    }


@pytest.mark.parametrize("file", sorted((ROOT / "sparkload").rglob("*.py")), ids=str)
def test_the_load_side_never_imports_the_analysis(file):
    assert not {name for name in imported(file) if name.split(".")[0] == "analysis"}


@pytest.mark.parametrize("file", sorted((ROOT / "sparkload" / "sim").rglob("*.py")), ids=str)
def test_the_simulator_stands_alone(file):
    """The simulator is a server of its own: no Locust, nothing of the load side."""
    names = imported(file)
    assert not {n for n in names if n.split(".")[0] == "locust"}
    assert not {
        n for n in names if n.startswith("sparkload.") and not n.startswith("sparkload.sim")
    }
