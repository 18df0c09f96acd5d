"""Every ``sparkload ...`` and ``locust ...`` command line that README.md and docs/*.md show in
a code block parses with today's options, each subcommand by its own parser: an option renamed
or removed in the code fails here until the documentation follows. Nothing is run."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```")
SHELL = ("sh", "bash", "shell", "console")
# What a reader types in place of a placeholder: "results/<run directory>" is one argument.
PLACEHOLDER = re.compile(r"<[a-z][a-z ]*>")
SEPARATORS = {"&&", "||", "|", ";"}
PROGRAMS = ("sparkload", "locust")


@dataclass(frozen=True)
class Shown:
    """One command line as a page shows it."""

    where: str  # file:line
    argv: tuple[str, ...]  # the program's name first, without its path


def yaml_commands(block: str) -> list[str]:
    """The strings of a YAML block (a CI job's ``run:`` steps, a matrix file) that are sparkload
    or locust command lines; a block that is not whole YAML (an excerpt) gives none."""
    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError:
        return []
    found: list[str] = []
    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, str) and item.strip().startswith(tuple(f"{p} " for p in PROGRAMS)):
            found.append(" ".join(item.split()))
    return found


def code_lines(text: str) -> list[tuple[int, str]]:
    """The command lines of the page's fenced code blocks (line number, text): every line of a
    shell block (```sh, ```bash, ```shell), the command strings of a YAML block, and in any
    other block (output, a tree) only a line after a ``$`` prompt. A shell line continued with
    a trailing backslash is joined to the next."""
    lines: list[tuple[int, str]] = []
    block: str | None = None  # the open block's info string
    opened = 0
    body: list[str] = []
    pending: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line.strip()):
            if block is None:
                block, opened, body = line.strip().removeprefix("```").strip(), number, []
            else:
                if block == "yaml":
                    lines.extend((opened, command) for command in yaml_commands("\n".join(body)))
                block = None
            continue
        if block is None:
            continue
        body.append(line)
        if pending is not None:
            start, before = pending
            line, number = before + " " + line.strip(), start
            pending = None
        if line.rstrip().endswith("\\"):
            pending = (number, line.rstrip()[:-1])
            continue
        if block in SHELL or line.lstrip().startswith("$ "):
            lines.append((number, line.strip().removeprefix("$ ")))
    return lines


def commands_in(text: str, name: str) -> list[Shown]:
    """Every sparkload or locust command of the page's code blocks (after a ``$`` prompt,
    environment assignments and ``&&``, in either program's path, e.g. ``.venv/bin/locust``)."""
    found = []
    for number, line in code_lines(text):
        line = PLACEHOLDER.sub("PLACEHOLDER", line)
        line = line.replace('"$(sparkload locustfile)"', "locustfiles/chat.py")
        try:
            words = shlex.split(line, comments=True)
        except ValueError:  # not shell: output, a table, YAML
            continue
        command: list[str] = []
        for word in [*words, ";"]:
            if word not in SEPARATORS:
                command.append(word)
                continue
            while command and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", command[0]):
                command.pop(0)  # VAR=value before the program
            if command and Path(command[0]).name in PROGRAMS:
                found.append(Shown(f"{name}:{number}", (Path(command[0]).name, *command[1:])))
            command = []
    return found


def shown_commands() -> list[Shown]:
    return [
        shown
        for page in DOCUMENTS
        for shown in commands_in(page.read_text(encoding="utf-8"), page.relative_to(ROOT).name)
    ]


def is_synopsis(argv: tuple[str, ...]) -> bool:
    """A usage synopsis (``sparkload compare BASELINE_DIR RUN_DIR [--tolerance SPEC]``) shows
    the grammar, not a command to type: its bracketed options are not parsed."""
    return any(word.startswith("[") for word in argv)


def argparse_problem(parser: argparse.ArgumentParser, args: list[str]) -> str | None:
    """None when ``parser`` accepts ``args``, else what it said. Parsers here report a usage
    error by exiting (argparse) or by raising (the analysis's InputError)."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(args)
    except SystemExit as exc:
        return said.getvalue().strip() or f"exit {exc.code}"
    except Exception as exc:  # noqa: BLE001 -- the analysis's parser raises its InputError
        return f"{type(exc).__name__}: {exc}"
    return None


def run_problem(args: list[str]) -> str | None:
    """``sparkload run`` / ``locust -f <sparkload's locustfile>``: Locust's parser with
    sparkload's options, then every option's own value parser and the plan's rules."""
    from sparkload import config
    from sparkload.errors import ConfigError
    from sparkload.plugin.reference import run_parser

    parser = run_parser()
    problem = argparse_problem(parser, args)
    if problem is not None:
        return problem
    if {"-h", "--help"} & set(args):
        return None
    try:
        config.from_namespace(parser.parse_args(args))
    except (ConfigError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def report_problem(args: list[str]) -> str | None:
    from analysis.cli import _check_options, build_parser

    parser = build_parser("sparkload report")
    problem = argparse_problem(parser, args)
    if problem is not None:
        return problem
    try:
        _check_options(parser.parse_args(args))  # the bounds, as --check-options reads them
    except Exception as exc:  # noqa: BLE001 -- the analysis's InputError
        return f"{type(exc).__name__}: {exc}"
    return None


def parser_of(module: str, prog: str = "") -> Callable[[list[str]], str | None]:
    def problem(args: list[str]) -> str | None:
        import importlib

        build = importlib.import_module(module).build_parser
        return argparse_problem(build(prog) if prog else build(), args)

    return problem


def no_options(args: list[str]) -> str | None:
    return f"takes no options, shown with {args}" if args else None


SUBCOMMANDS: dict[str, Callable[[list[str]], str | None]] = {
    "run": run_problem,
    "report": report_problem,
    "compare": parser_of("analysis.compare.compare_cli", "sparkload compare"),
    "matrix": parser_of("sparkload.matrix.__main__"),
    "quality": parser_of("sparkload.run.quality_options"),
    "demo": parser_of("sparkload.demo"),
    "node-exporter": parser_of("sparkload.node_exporter"),
    "sim": parser_of("sparkload.sim.__main__"),
    "locustfile": no_options,
}
TOP_LEVEL = ({"--version"}, {"-V"}, {"--help"}, {"-h"})
SPARKLOADS_LOCUSTFILE = "locustfiles/chat.py"


def problem_of(argv: tuple[str, ...]) -> str | None:
    """None when today's parsers accept the command line, else why not."""
    program, *args = argv
    if program == "locust":
        locustfile = args[args.index("-f") + 1] if "-f" in args else None
        if locustfile != SPARKLOADS_LOCUSTFILE:
            return f"not sparkload's locustfile: -f {locustfile}"
        return run_problem(args)
    if not args:
        return "sparkload without a command"
    if set(args) in TOP_LEVEL:
        return None
    subcommand = SUBCOMMANDS.get(args[0])
    if subcommand is None:
        return f"no sparkload command {args[0]!r}"
    return subcommand(args[1:])


SHOWN = shown_commands()


def test_the_pages_show_command_lines_of_every_kind():
    """The extraction finds what the pages show, so the parse test below has work to do."""
    kinds = {shown.argv[0] if shown.argv[0] == "locust" else shown.argv[1] for shown in SHOWN}
    assert set(SUBCOMMANDS) - {"locustfile"} | {"locust"} <= kinds


@pytest.mark.parametrize(
    "shown",
    [s for s in SHOWN if not is_synopsis(s.argv)],
    ids=lambda s: f"{s.where} {' '.join(s.argv)[:60]}",
)
def test_every_shown_command_line_parses_with_todays_options(shown):
    assert problem_of(shown.argv) is None


def test_a_command_line_with_an_option_that_no_longer_exists_is_caught():
    page = "```sh\n.venv/bin/sparkload run --headless --ladderr 1,2\n```\n"
    [shown] = commands_in(page, "page.md")
    assert "unrecognized arguments: --ladderr" in (problem_of(shown.argv) or "")


def test_a_command_line_with_a_value_its_option_refuses_is_caught():
    page = "```sh\nlocust -f locustfiles/chat.py --headless --ladder 0\n```\n"
    [shown] = commands_in(page, "page.md")
    assert "--ladder" in (problem_of(shown.argv) or "")


@pytest.mark.parametrize("subcommand", sorted(set(SUBCOMMANDS) - {"locustfile"}))
def test_each_subcommand_refuses_an_option_it_does_not_have(subcommand):
    """Each subcommand is parsed by its own parser, not by a lenient common one."""
    args = ["--no-such-option"] if subcommand != "compare" else ["A", "B", "--no-such-option"]
    assert problem_of(("sparkload", subcommand, *args)) is not None


def test_an_option_of_one_subcommand_is_refused_by_another():
    assert problem_of(("sparkload", "report", "RUN_DIR", "--slo", "ttft_p90_ms<=800")) is None
    assert problem_of(("sparkload", "matrix", "m.yaml", "--slo", "ttft_p90_ms<=800")) is not None


def test_a_continued_line_a_prompt_and_a_placeholder_make_one_command():
    page = (
        "```\n$ FOO=1 .venv/bin/sparkload report results/<run directory> \\\n"
        "  --slice-duration 10   # a comment\n```\n"
    )
    assert [s.argv for s in commands_in(page, "page.md")] == [
        ("sparkload", "report", "results/PLACEHOLDER", "--slice-duration", "10")
    ]


def test_commands_outside_code_blocks_and_other_programs_are_not_taken():
    page = "sparkload run --bogus in prose\n```sh\ndocker compose up && kubectl apply -k x\n```\n"
    assert commands_in(page, "page.md") == []


def test_a_ci_jobs_yaml_steps_are_command_lines_too():
    page = (
        "```yaml\njobs:\n  gate:\n    steps:\n      - run: >\n          sparkload compare"
        " results/baseline results/candidate\n          --json compare.json\n"
        "      - run: pip install sparkload\n```\n"
    )
    assert [s.argv for s in commands_in(page, "page.md")] == [
        ("sparkload", "compare", "results/baseline", "results/candidate", "--json", "compare.json")
    ]
