"""The layers of docs/architecture.md hold: no import circle (so every import points down a
layering), analysis reads only the results contract, the simulator stands alone."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGES = ("sparkload", "analysis")


def relative(file: Path) -> str:
    """A test id that names the file as the checkout does, wherever the checkout is."""
    return str(file.relative_to(ROOT))


def modules(package: str) -> list[str]:
    names = []
    for file in sorted((ROOT / package).rglob("*.py")):
        parts = file.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def module_of(file: Path, root: Path) -> str:
    parts = file.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module of ``package`` (under ``root``) -> the modules of ``package`` it imports.

    Every import in the file counts: at the top, inside functions and under ``if
    TYPE_CHECKING:`` (a circle closed only for the type checker is still a circle in the
    design). Relative imports are resolved; ``from a import b`` names module ``a.b`` when there
    is one. Importing ``a.b.c`` runs ``a/b/__init__.py`` too, so it counts as an import of the
    package ``a.b`` as well, unless the importer lives inside ``a.b``.
    """
    files = {module_of(file, root): file for file in sorted((root / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, file in files.items():
        home = name if file.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = home.split(".")[: len(home.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base
                    for alias in node.names
                ]
            else:
                continue
            for target in targets:
                parts = target.split(".")
                for size in range(1, len(parts) + 1):
                    module = ".".join(parts[:size])
                    if module in files and not (name + ".").startswith(module + "."):
                        found.add(module)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: its strongly connected components of more than one
    module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported_module in sorted(graph[module]):
            if imported_module not in index:
                visit(imported_module)
                low[module] = min(low[module], low[imported_module])
            elif imported_module in stack:
                low[module] = min(low[module], index[imported_module])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle_counting_type_checking_and_function_imports(package):
    assert circles(import_graph(ROOT, package)) == []


def room_of(module: str) -> str:
    """The room a module lives in: its top-level module, or the subpackage it belongs to
    (``sparkload.run.setup`` -> ``sparkload.run``)."""
    return ".".join(module.split(".")[:2])


def room_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each room -> the other rooms its modules import (a package's ``__init__`` is its room's)."""
    rooms: dict[str, set[str]] = {}
    for module, imported_modules in graph.items():
        if "." not in module:
            continue  # the package itself
        here = room_of(module)
        rooms.setdefault(here, set()).update(
            room_of(other) for other in imported_modules if "." in other and room_of(other) != here
        )
    return rooms


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_runs_back_up_between_rooms(package):
    """Folders and top-level modules are layered too: if ``config`` imports ``workloads`` while a
    workload imports ``config`` (even only for the type checker), the two rooms are one tangle
    although no two files import each other."""
    assert circles(room_graph(import_graph(ROOT, package))) == []


def test_the_room_check_sees_two_folders_importing_each_other(tmp_path):
    write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": "from pkg.workloads.lengths import Component\n",
            "pkg/workloads/__init__.py": "",
            "pkg/workloads/lengths.py": "Component = 1\n",
            "pkg/workloads/chat.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from pkg.config import Options\n"
            ),
        },
    )
    graph = import_graph(tmp_path, "pkg")
    assert circles(graph) == []  # no two files import each other...
    assert circles(room_graph(graph)) == [["pkg.config", "pkg.workloads"]]  # ...two rooms do


def write_package(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)


def test_the_circle_check_sees_a_circle_closed_only_for_the_type_checker(tmp_path):
    write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/options.py": "from pkg.rules import check\n",
            "pkg/rules.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from .options import Options\n"
                "def check(opts: 'Options') -> None: ...\n"
            ),
            "pkg/clean.py": "from pkg import rules\n",
        },
    )
    assert circles(import_graph(tmp_path, "pkg")) == [["pkg.options", "pkg.rules"]]


def test_the_circle_check_sees_a_circle_through_a_packages_init(tmp_path):
    """``config`` imports ``workloads.names``, which runs ``workloads/__init__.py``: if that
    imports a workload that imports ``config``, the three are a circle."""
    write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": "from pkg.workloads.names import CHAT\n",
            "pkg/workloads/__init__.py": "from pkg.workloads import chat\n",
            "pkg/workloads/names.py": "CHAT = 'chat'\n",
            "pkg/workloads/chat.py": "from pkg.config import OPTIONS\nfrom . import names\n",
        },
    )
    assert circles(import_graph(tmp_path, "pkg")) == [
        ["pkg.config", "pkg.workloads", "pkg.workloads.chat"]
    ]


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


@pytest.mark.parametrize("file", sorted((ROOT / "analysis").rglob("*.py")), ids=relative)
def test_analysis_reads_only_the_results_contract_of_sparkload(file):
    from_sparkload = {name for name in imported(file) if name.split(".")[0] == "sparkload"}
    assert from_sparkload <= {"sparkload.records"} | {
        n for n in from_sparkload if n.startswith("sparkload.records.")
    }


LOCUST_GLUE = ("sparkload/plugin/", "sparkload/cli.py")


@pytest.mark.parametrize("file", sorted((ROOT / "sparkload").rglob("*.py")), ids=relative)
def test_only_the_plugin_and_the_command_line_import_locust(file):
    """The run, its shapes, workloads and wire are plain Python: Locust's glue is one folder."""
    if str(file.relative_to(ROOT)).startswith(LOCUST_GLUE):
        return
    assert not {name for name in imported(file) if name.split(".")[0] == "locust"}


@pytest.mark.parametrize("file", sorted((ROOT / "sparkload").rglob("*.py")), ids=relative)
def test_the_load_side_never_imports_the_analysis(file):
    assert not {name for name in imported(file) if name.split(".")[0] == "analysis"}


@pytest.mark.parametrize("file", sorted((ROOT / "sparkload" / "sim").rglob("*.py")), ids=relative)
def test_the_simulator_stands_alone(file):
    """The simulator is a server of its own: no Locust, nothing of the load side."""
    names = imported(file)
    assert not {n for n in names if n.split(".")[0] == "locust"}
    assert not {
        n for n in names if n.startswith("sparkload.") and not n.startswith("sparkload.sim")
    }


# The modules that are a command of their own (``sparkload.cli`` dispatches to each), with the
# parser that is part of one: nothing of a run may need them.
COMMANDS = (
    "sparkload.cli",
    "sparkload.demo",
    "sparkload.matrix.__main__",
    "sparkload.node_exporter",
    "sparkload.run.quality",
    "sparkload.run.quality_options",
    "sparkload.sim.__main__",
)


def test_the_command_modules_are_modules_of_the_tree():
    """So that a renamed command cannot leave the next test with nothing to hold."""
    graph = import_graph(ROOT, "sparkload")
    assert [name for name in COMMANDS if name not in graph] == []


def test_only_a_command_imports_a_command_module():
    """A run's modules (its collector, set-up, workloads) never import a command: a command
    composes the load side, and a helper two commands share lives in the load side's own
    modules (``ResultsWriter.write_quality``, not ``sparkload quality``'s module)."""
    graph = import_graph(ROOT, "sparkload")
    found = {
        module: sorted(set(COMMANDS) & imports)
        for module, imports in graph.items()
        if module not in COMMANDS and set(COMMANDS) & imports
    }
    assert found == {}


def test_transport_and_the_workloads_import_no_api_module():
    """Each API is one module of ``sparkload/apis/``: the transport reads bytes and events with
    the reader a request hands it, and a workload asks the registry (``sparkload.apis``) what
    the run's API can carry; neither names an API's module."""
    graph = import_graph(ROOT, "sparkload")
    api_modules = {name for name in graph if name.startswith("sparkload.apis.")}
    found = {
        module: sorted(imports & (api_modules | {"sparkload.apis"}))
        if module.startswith("sparkload.transport")
        else sorted(imports & api_modules)
        for module, imports in graph.items()
        if module.startswith(("sparkload.transport", "sparkload.workloads"))
    }
    assert {module: names for module, names in found.items() if names} == {}


# ``== API_CHAT``, ``API_RESPONSES != api``, ``api in (API_…)``, ``api == "responses"``
API_COMPARISON = re.compile(
    r"(==|!=|\bin)\s*\(?\s*API_[A-Z]+|API_[A-Z]+\s*(==|!=)|(==|!=)\s*[\"'](chat|completions|responses)[\"']"
)


def test_no_module_outside_the_api_room_and_the_simulator_compares_an_api_name():
    """What differs between APIs is the API module's (its body, reader, route, what it can
    carry); a comparison of its name elsewhere is a rule of that API living in the wrong room."""
    found = [
        f"{relative(file)}:{number}"
        for package in (*PACKAGES, "locustfiles")
        for file in sorted((ROOT / package).rglob("*.py"))
        if not str(file.relative_to(ROOT)).startswith(("sparkload/apis/", "sparkload/sim/"))
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1)
        if API_COMPARISON.search(line)
    ]
    assert found == []


def test_the_api_name_check_sees_each_form_of_comparison():
    lines = [
        "api == API_CHAT",
        "API_RESPONSES != opts.api",
        "if api in (API_CHAT,)",
        'if api == "responses"',
        "api = API_CHAT",
        'name = "responses"',
    ]
    assert [bool(API_COMPARISON.search(line)) for line in lines] == [True] * 4 + [False] * 2


MODULE_LINES = 600  # past this a module has more than one job (docs/architecture.md)


@pytest.mark.parametrize(
    "file",
    [
        file
        for package in (*PACKAGES, "locustfiles")
        for file in sorted((ROOT / package).rglob("*.py"))
    ],
    ids=relative,
)
def test_no_module_passes_the_line_limit(file):
    lines = len(file.read_text(encoding="utf-8").splitlines())
    assert lines <= MODULE_LINES, f"{relative(file)}: {lines} lines, split it by job"
