"""Mutation testing of the measurement core: module by module, totals and survivors printed.

    .venv/bin/python -m tools.mutation.run [MODULE ...] [--jobs N]

Each module of ``targets.TARGETS`` (all of them by default, in that order) gets a fresh work
directory ``mutants/<module>/`` (git-ignored) holding links to the tree and a generated
``pyproject.toml`` that tells mutmut which file to mutate and which tests cover it; mutmut copies
the tree into ``mutants/<module>/mutants/``, records which test runs which function, then runs
each mutant against the tests that reach the mutated function. Results are never reused between
runs: mutmut keeps a surviving mutant's verdict even after new tests arrive.

mutmut runs in its fork-server mode. In its default mode it runs the suite's clean pass in its
own main process, where importing Locust (tests/conftest.py) lets gevent monkey-patch threading;
mutmut's wall-clock timeout thread then becomes a greenlet that never runs while mutmut waits for
a mutant, and a mutant that blocks without using CPU hangs the whole run (seen on a two-line
example). The fork server keeps gevent out of mutmut's main process.

A survivor listed in ``equivalents.md`` (no test can tell it from the original) is counted as
equivalent, apart from the survivors; the score is killed + timed out over the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tools.mutation import equivalents
from tools.mutation.targets import TARGET_BY_NAME, TARGETS, Target

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "mutants"
EQUIVALENTS = Path(__file__).with_name("equivalents.md")
MUTMUT_VERSION = "3.8.1"
# What a work directory links to: the sources, the tests, this plugin, the data the tests read.
LINKED = ("sparkload", "analysis", "tests", "tools", "prompts", "locustfiles", "examples")
PYTEST_ARGS = [
    "-p",
    "no:cacheprovider",
    "-p",
    "tools.mutation.fastest_first",
    "-m",
    "not e2e and not realserver",
]
CAUGHT = ("killed", "timeout")


@dataclass
class Survivor:
    name: str
    status: str  # mutmut's: survived, no tests, suspicious, segfault, ...
    diff: str


@dataclass
class ModuleResult:
    target: Target
    seconds: float
    statuses: dict[str, str]  # mutant name -> mutmut's status
    survivors: list[Survivor] = field(default_factory=list)  # not caught, not equivalent
    equivalent: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # entries of equivalents.md that do not match

    def totals(self) -> dict[str, int]:
        counts = {status: 0 for status in (*CAUGHT, "survived")}
        for status in self.statuses.values():
            counts[status] = counts.get(status, 0) + 1
        equivalent = len(self.equivalent)
        counts["survived"] -= sum(self.statuses[name] == "survived" for name in self.equivalent)
        other = len(self.statuses) - equivalent - sum(counts[s] for s in (*CAUGHT, "survived"))
        return {
            "mutants": len(self.statuses),
            "killed": counts["killed"],
            "timed out": counts["timeout"],
            "survived": counts["survived"],
            "other": other,  # no tests, suspicious, segfault, not checked: not caught either
            "equivalent": equivalent,
        }


def score(totals: dict[str, int]) -> float | None:
    """Killed and timed-out mutants as a share of the non-equivalent ones."""
    relevant = totals["mutants"] - totals["equivalent"]
    return (totals["killed"] + totals["timed out"]) / relevant if relevant else None


def ensure_mutmut() -> Path | None:
    """mutmut's command in this interpreter's environment, installed there first if missing
    (None when pip could not install it: pip has said why)."""
    try:
        installed = importlib.metadata.version("mutmut")
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed != MUTMUT_VERSION:
        print(f"installing mutmut=={MUTMUT_VERSION} into {sys.prefix}", flush=True)
        pip = [sys.executable, "-m", "pip", "install", "--quiet", f"mutmut=={MUTMUT_VERSION}"]
        if subprocess.run(pip).returncode != 0:
            return None
    return Path(sys.executable).with_name("mutmut")


def mutmut_config(target: Target) -> str:
    """The work directory's pyproject.toml: the project's pytest options and mutmut's."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_options = project["tool"]["pytest"]["ini_options"]
    mutmut = {
        "source_paths": ["sparkload", "analysis"],
        "only_mutate": [target.source],
        "also_copy": [name for name in LINKED if name not in ("sparkload", "analysis", "tests")],
        "pytest_add_cli_args_test_selection": list(target.tests),
        "pytest_add_cli_args": PYTEST_ARGS,
        "process_isolation": "forkserver",
        "use_git_change_detection": False,
    }
    return _toml_table("tool.pytest.ini_options", pytest_options) + _toml_table(
        "tool.mutmut", mutmut
    )


def _toml_table(name: str, values: dict) -> str:
    # strings, lists of strings and booleans: JSON writes them as TOML reads them
    return f"[{name}]\n" + "".join(f"{key} = {json.dumps(v)}\n" for key, v in values.items()) + "\n"


def prepare(target: Target) -> Path:
    work = WORK / target.name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in LINKED:
        (work / name).symlink_to(ROOT / name)
    (work / "pyproject.toml").write_text(mutmut_config(target), encoding="utf-8")
    return work


def run_module(mutmut: Path, target: Target, jobs: int) -> tuple[Path, float, int]:
    """mutmut over one module; its work directory, wall time and exit code."""
    work = prepare(target)
    started = time.monotonic()
    with open(work / "mutmut.log", "wb") as log:
        completed = subprocess.run(
            [str(mutmut), "run", "--max-children", str(jobs)],
            cwd=work,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    return work, time.monotonic() - started, completed.returncode


def read_results(
    target: Target, work: Path, seconds: float, listed: dict[str, equivalents.Equivalent]
) -> ModuleResult:
    """mutmut's verdicts for one module, its survivors' diffs, and which survivors are
    equivalent (listed with the very mutation mutmut made)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code

    meta = json.loads((work / "mutants" / f"{target.source}.meta").read_text(encoding="utf-8"))
    statuses = {name: status_by_exit_code[code] for name, code in meta["exit_code_by_key"].items()}
    result = ModuleResult(target, seconds, statuses)
    with contextlib.chdir(work):
        for name, status in sorted(statuses.items(), key=lambda item: _natural(item[0])):
            entry = listed.get(name)
            if status in CAUGHT:
                if entry is not None:
                    result.stale.append(f"{name} is listed as equivalent but was {status}")
                continue
            diff = get_diff_for_mutant(name, path=target.source)
            if entry is not None and entry.mutation == equivalents.mutation_of(diff):
                result.equivalent.append(name)
                continue
            if entry is not None:
                result.stale.append(
                    f"{name} is listed as `{entry.mutation}` but is now "
                    f"`{equivalents.mutation_of(diff)}`"
                )
            result.survivors.append(Survivor(name, status, diff))
    prefix = target.source.removesuffix(".py").replace("/", ".") + "."
    result.stale.extend(
        f"{name} is listed as equivalent but mutmut made no such mutant"
        for name in listed
        if name.startswith(prefix) and name not in statuses
    )
    return result


def _natural(name: str) -> tuple[str, int]:
    function, _, number = name.rpartition("__mutmut_")
    return function, int(number) if number.isdigit() else 0


COLUMNS = ("mutants", "killed", "timed out", "survived", "other", "equivalent")


def table(results: list[ModuleResult]) -> str:
    header = f"{'module':<26}" + "".join(f"{c:>11}" for c in COLUMNS) + f"{'killed %':>10}  time"
    lines = [header]
    grand = dict.fromkeys(COLUMNS, 0)
    for result in results:
        totals = result.totals()
        for column in COLUMNS:
            grand[column] += totals[column]
        lines.append(_row(result.target.source, totals, _minutes(result.seconds)))
    if len(results) > 1:
        lines.append(_row("all", grand, _minutes(sum(r.seconds for r in results))))
    return "\n".join(lines)


def _row(name: str, totals: dict[str, int], duration: str) -> str:
    share = score(totals)
    percent = "-" if share is None else f"{100 * share:.1f}"
    counts = "".join(f"{totals[c]:>11}" for c in COLUMNS)
    return f"{name:<26}{counts}{percent:>10}  {duration}"


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


def survivors_text(result: ModuleResult) -> str:
    lines = [f"survivors of {result.target.source}: {len(result.survivors)}"]
    for survivor in result.survivors:
        lines.append(f"  {survivor.name}  ({survivor.status})")
        changed = [
            line
            for line in survivor.diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
        ]
        lines.extend(f"      {line[0]} {line[1:].strip()}" for line in changed)
    lines.extend(f"  equivalents.md: {note}" for note in result.stale)
    return "\n".join(lines)


def summary(results: list[ModuleResult], seconds: float) -> dict:
    return {
        "mutmut": MUTMUT_VERSION,
        "seconds": round(seconds, 1),
        "modules": {
            r.target.source: {
                **r.totals(),
                "seconds": round(r.seconds, 1),
                "survivors": [s.name for s in r.survivors],
                "equivalent": r.equivalent,
            }
            for r in results
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.mutation.run",
        description="Mutation testing of sparkload's measurement core with mutmut.",
    )
    parser.add_argument(
        "modules",
        nargs="*",
        metavar="MODULE",
        help=f"modules to mutate (default: all): {', '.join(TARGET_BY_NAME)}",
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="mutants tested at once"
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.modules if name not in TARGET_BY_NAME]
    if unknown or args.jobs < 1:
        problem = f"unknown module {unknown[0]!r}" if unknown else "--jobs must be 1 or more"
        print(f"error: {problem} (modules: {', '.join(TARGET_BY_NAME)})", file=sys.stderr)
        return 2
    try:
        listed = equivalents.load(EQUIVALENTS)
    except (OSError, equivalents.EquivalentsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    targets = [TARGET_BY_NAME[name] for name in args.modules] or list(TARGETS)

    started = time.monotonic()
    mutmut = ensure_mutmut()
    if mutmut is None:
        print(f"error: could not install mutmut=={MUTMUT_VERSION}", file=sys.stderr)
        return 1
    results, failed = [], []
    for target in targets:
        tests = len(target.tests)
        print(f"{target.name}: mutating {target.source}, {tests} test files", flush=True)
        work, seconds, code = run_module(mutmut, target, args.jobs)
        if code != 0:
            failed.append(target.name)
            print(f"{target.name}: mutmut failed (exit {code}); see {work / 'mutmut.log'}")
            continue
        result = read_results(target, work, seconds, listed)
        results.append(result)
        print(f"{target.name}: {len(result.statuses)} mutants in {_minutes(seconds)}", flush=True)
    elapsed = time.monotonic() - started

    for result in results:
        print()
        print(survivors_text(result))
    print()
    print(table(results))
    print(f"\nwhole command: {_minutes(elapsed)} with --jobs {args.jobs}")
    WORK.mkdir(exist_ok=True)
    (WORK / "summary.json").write_text(json.dumps(summary(results, elapsed), indent=2) + "\n")
    if failed:
        print(f"mutmut failed on: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: mutants/ keeps the work directories as they were", file=sys.stderr)
        sys.exit(130)
