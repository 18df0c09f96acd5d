"""The test tree mirrors the source, so a module's tests are found by its path
(docs/architecture.md, its "Tests"): sparkload/run/livetable.py's tests are
tests/sparkload/run/test_livetable.py (or test_livetable_<aspect>.py), and no two files of the
tree share a name. Folders that test something other than a package keep their own names."""

from __future__ import annotations

from pathlib import Path

from tests.architecture.test_layers import write_package
from tests.conftest import ROOT

MIRRORS = ("sparkload", "analysis", "locustfiles")  # tests/<name>/<path>/ mirrors <name>/<path>/
OWN_FOLDERS = ("architecture", "deploy", "docs", "netbed", "packaging", "realservers", "tools")
UNNAMED = ("__init__.py", "conftest.py")  # may recur: pytest imports each as its folder's


def python_files(tests: Path) -> list[Path]:
    return sorted(p for p in tests.rglob("*.py") if "__pycache__" not in p.parts)


def repeated_names(tests: Path) -> dict[str, list[str]]:
    """Each file name used more than once in the tree -> where (``__init__``, ``conftest``
    apart)."""
    where: dict[str, list[str]] = {}
    for file in python_files(tests):
        if file.name not in UNNAMED:
            where.setdefault(file.name, []).append(str(file.relative_to(tests.parent)))
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def module_names(folder: Path) -> set[str]:
    """What a test file in the mirror of ``folder`` may be named after: its modules
    (``__main__`` as ``main``) and its subpackages."""
    names = {p.stem.strip("_") for p in folder.glob("*.py") if p.name != "__init__.py"}
    return names | {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def names_a_module(test_name: str, folder: Path) -> bool:
    """``test_<module>.py`` or ``test_<module>_<aspect>.py``, optionally with the folder's own
    name first where a module's name recurs elsewhere (sim/'s ``test_sim_sse.py``)."""
    stem = test_name.removeprefix("test_").removesuffix(".py")
    stems = [stem, stem.removeprefix(f"{folder.name}_")]
    return any(s == m or s.startswith(f"{m}_") for s in stems for m in module_names(folder))


def misplaced(
    root: Path, mirrors: tuple[str, ...] = MIRRORS, own: tuple[str, ...] = OWN_FOLDERS
) -> dict[str, str]:
    """Each test file under ``root/tests`` that is not where the rules put it -> why."""
    tests = root / "tests"
    found: dict[str, str] = {}
    for file in python_files(tests):
        if not file.name.startswith("test_"):
            continue
        parts = file.relative_to(tests).parts
        if len(parts) == 1:
            why = "a test file at the top of tests/ (only helpers live there)"
        elif parts[0] in own:
            continue
        elif parts[0] not in mirrors:
            why = f"tests/{parts[0]}/ mirrors no source folder and is not one of {own}"
        elif not (source := root.joinpath(*parts[:-1])).is_dir():
            why = f"no source folder {source.relative_to(root)}/ to mirror"
        elif not names_a_module(file.name, source):
            why = f"names no module or subpackage of {source.relative_to(root)}/"
        else:
            continue
        found[str(file.relative_to(root))] = why
    return found


def folders_without_init(tests: Path) -> list[str]:
    """Folders of Python files that are not packages (pytest imports tests by their package:
    ``tests.sparkload.run.test_livetable``)."""
    folders = {file.parent for file in python_files(tests)}
    return sorted(
        str(f.relative_to(tests.parent)) for f in folders if not (f / "__init__.py").is_file()
    )


def test_no_two_files_of_the_test_tree_share_a_name():
    assert repeated_names(ROOT / "tests") == {}


def test_every_test_file_sits_at_the_path_of_what_it_tests():
    assert misplaced(ROOT) == {}


def test_every_folder_of_the_test_tree_is_a_package():
    assert folders_without_init(ROOT / "tests") == []


def test_the_rules_catch_misplaced_files_repeated_names_and_missing_packages(tmp_path):
    write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/records.py": "",
            "pkg/run/__init__.py": "",
            "pkg/run/livetable.py": "",
            "pkg/transport/__init__.py": "",
            "pkg/transport/sse.py": "",
            "pkg/sim/__init__.py": "",
            "pkg/sim/__main__.py": "",
            "pkg/sim/sse.py": "",
            "tests/__init__.py": "",
            "tests/helpers.py": "",
            "tests/test_at_the_top.py": "",
            "tests/pkg/__init__.py": "",
            "tests/pkg/test_records.py": "",
            "tests/pkg/test_records_manifest.py": "",
            "tests/pkg/test_recordsx.py": "",  # no module recordsx
            "tests/pkg/test_run_runs.py": "",  # a subpackage's name is fine
            "tests/pkg/run/__init__.py": "",
            "tests/pkg/run/test_livetable.py": "",
            "tests/pkg/run/test_sse.py": "",  # sse is transport's and sim's, not run's
            "tests/pkg/transport/__init__.py": "",
            "tests/pkg/transport/test_sse.py": "",
            "tests/pkg/sim/test_sim_sse.py": "",  # no __init__.py in tests/pkg/sim/
            "tests/pkg/sim/test_main_notes.py": "",
            "tests/pkg/sim/helpers.py": "",
            "tests/pkg/nowhere/__init__.py": "",
            "tests/pkg/nowhere/test_livetable.py": "",
            "tests/load/__init__.py": "",
            "tests/load/test_stream.py": "",
            "tests/deploy/__init__.py": "",
            "tests/deploy/test_compose.py": "",
        },
    )
    assert misplaced(tmp_path, mirrors=("pkg",), own=("deploy",)) == {
        "tests/test_at_the_top.py": "a test file at the top of tests/ (only helpers live there)",
        "tests/pkg/test_recordsx.py": "names no module or subpackage of pkg/",
        "tests/pkg/run/test_sse.py": "names no module or subpackage of pkg/run/",
        "tests/pkg/nowhere/test_livetable.py": "no source folder pkg/nowhere/ to mirror",
        "tests/load/test_stream.py": (
            "tests/load/ mirrors no source folder and is not one of ('deploy',)"
        ),
    }
    assert repeated_names(tmp_path / "tests") == {
        "helpers.py": ["tests/helpers.py", "tests/pkg/sim/helpers.py"],
        "test_livetable.py": [
            "tests/pkg/nowhere/test_livetable.py",
            "tests/pkg/run/test_livetable.py",
        ],
        "test_sse.py": ["tests/pkg/run/test_sse.py", "tests/pkg/transport/test_sse.py"],
    }
    assert folders_without_init(tmp_path / "tests") == ["tests/pkg/sim"]
