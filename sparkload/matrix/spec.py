"""The matrix file: YAML in, validated dataclasses out, or one line naming the file, target and key.

Everything is checked before anything runs, so a typo in the fourth target cannot surface an
hour into a matrix on real Sparks. Shape (every key but ``targets`` optional)::

    ladder: [1, 2, 4, 8, 16]             # any sparkload run option, by its name (config/):
    requests_per_user: 10                # ladder, requests_per_user, workload, max_tokens,
    workload: chat                       # prompts, repeat, extra_body, metadata, check, ...
    results_dir: results/matrix-qwen      # default: results/matrix-<UTC timestamp>
    locust_args: ["--processes", "2"]     # extra Locust/sparkload options for every run
    report_args: ["--slo", "ttft_p90_ms<=1000"]   # extra options of the combined report
    note: one line printed with the summary
    targets:
      - label: nvfp4-mtp-tp2              # default: <variant>-tp<tp>
        variant: nvfp4-mtp                # default: the simulator profile
        tp: 2                             # 1, 2 or 4
        nodes: 2                          # default: tp (one GPU per Spark)
        endpoints: [http://spark-1:8000]  # or: simulator: {profile: nvfp4-mtp, time_scale: 20}
        deploy: ./serve.sh nvfp4-mtp 2    # shell command run first; must return once started
        deploy_timeout: 1800
        health: curl -sf http://spark-1:8000/health   # default: GET /health of each endpoint
        health_timeout: 600
        teardown: ./stop.sh nvfp4-mtp     # shell command run after the target, whatever happened
        teardown_timeout: 600
        workload: edit                    # any run option (ladder, max_tokens, ...) for this
        locust_args: ["--model", "qwen"]  # target only; extra options for this target only

Relative paths are relative to the directory sparkload runs in, as Locust's own options are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sparkload import config
from sparkload.errors import ConfigError
from sparkload.run.report_process import check_options
from sparkload.transport.target import Endpoint

TP_SIZES = (1, 2, 4)
DEFAULT_DEPLOY_TIMEOUT = 1800.0
DEFAULT_HEALTH_TIMEOUT = 600.0
DEFAULT_TEARDOWN_TIMEOUT = 600.0
_LABEL = re.compile(r"^[A-Za-z0-9._-]+$")

# sparkload options a matrix file sets for every run (by their names: ``requests_per_user``);
# a deployment's identity is per target, the results directory is the matrix's own, and a
# secret never belongs in a file that is copied beside the results.
RUN_OPTIONS: dict[str, config.Option] = {
    option.dest: option
    for option in config.OPTIONS
    if not option.per_target and not option.secret and option.dest != "results_dir"
}
# A simulator target's keys: the --sim-* options without their prefix (``time_scale``).
SIMULATOR_OPTIONS: dict[str, config.Option] = {
    option.dest.removeprefix("sim_"): option
    for option in config.OPTIONS
    if option.group == config.SIMULATOR
}
SIMULATOR_KEYS = tuple(SIMULATOR_OPTIONS)

# Options the matrix sets on every run itself; in locust_args they would silently fight its keys.
MANAGED_FLAGS = {
    "-f": "it is always the sparkload locustfile",
    "--locustfile": "it is always the sparkload locustfile",
    "--headless": "every matrix run is headless",
    "-H": "use the target's endpoints",
    "--host": "use the target's endpoints",
    "--results-dir": "use results_dir",
    **{
        option.flag: f"use the target's {option.dest.removeprefix('sim_')}"
        for option in config.OPTIONS
        if option.per_target
    },
}


class MatrixError(ConfigError):
    """A bad matrix file; the message is the one line the user sees."""


@dataclass(frozen=True)
class Simulator:
    """The built-in simulator, started by the Locust run itself (no host given)."""

    options: dict[str, Any]  # simulator key (``profile``, ``time_scale``) -> validated value

    @property
    def profile(self) -> str:
        return str(self.options["profile"])

    def args(self) -> list[str]:
        return [
            arg
            for key, value in self.options.items()
            for arg in command_args(SIMULATOR_OPTIONS[key], value)
        ]


@dataclass(frozen=True)
class Target:
    """One deployment to run the ladder against: a simulator, or the endpoints of a server."""

    label: str
    variant: str
    tp: int
    nodes: int
    endpoints: tuple[str, ...] = ()
    simulator: Simulator | None = None
    deploy: str = ""
    deploy_timeout: float = DEFAULT_DEPLOY_TIMEOUT
    health: str = ""
    health_timeout: float = DEFAULT_HEALTH_TIMEOUT
    teardown: str = ""  # run after the target's runs, also after a failure or Ctrl-C
    teardown_timeout: float = DEFAULT_TEARDOWN_TIMEOUT
    run_options: dict[str, Any] = field(
        default_factory=dict
    )  # this target's own, over the matrix's
    locust_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Matrix:
    targets: tuple[Target, ...]
    run_options: dict[str, Any] = field(default_factory=dict)  # given sparkload options, validated
    results_dir: Path | None = None  # None: results/matrix-<UTC timestamp>
    locust_args: tuple[str, ...] = ()
    report_args: tuple[str, ...] = ()
    note: str = ""
    source: str = "matrix"  # the file name errors and the summary refer to
    text: str = ""  # the YAML as given, kept beside the results

    def option(self, dest: str, target: Target | None = None) -> Any:
        """What a run gets for an option: the target's value, the matrix's, or sparkload's own
        default."""
        options = self._options_of(target)
        return options[dest] if dest in options else config.default(dest)

    def run_args(self, target: Target) -> list[str]:
        """The options a target's run is given (its own over the matrix-wide ones)."""
        options = self._options_of(target)
        return [
            arg for dest, value in options.items() for arg in command_args(RUN_OPTIONS[dest], value)
        ]

    def _options_of(self, target: Target | None) -> dict[str, Any]:
        """Matrix-wide options with the target's over them (mappings such as metadata merge)."""
        options = dict(self.run_options)
        for dest, value in (target.run_options if target else {}).items():
            shared = options.get(dest)
            options[dest] = {**shared, **value} if isinstance(shared, dict) else value
        return options


def command_args(option: config.Option, value: Any) -> list[str]:
    """An option and its validated value as command-line arguments."""
    if option.is_flag:
        return [option.flag] if value else []
    if value is None:
        return []
    if isinstance(value, dict):  # --metadata K=V (repeatable), --extra-body JSON
        if option.argparse_extra.get("action") == "append":
            return [arg for key, item in value.items() for arg in (option.flag, f"{key}={item}")]
        return [option.flag, json.dumps(value)] if value else []
    if isinstance(value, tuple):
        return [option.flag, ",".join(map(str, value))]
    if isinstance(value, float):
        return [option.flag, f"{value:g}"]
    return [option.flag, str(value)]


MATRIX_KEYS = ("results_dir", "locust_args", "report_args", "note", "targets")
TOP_KEYS = (*RUN_OPTIONS, *MATRIX_KEYS)
TARGET_KEYS = (
    "label",
    "variant",
    "tp",
    "nodes",
    "endpoints",
    "simulator",
    "deploy",
    "deploy_timeout",
    "health",
    "health_timeout",
    "teardown",
    "teardown_timeout",
    "locust_args",
)


class _Fields:
    """Typed reads of one YAML mapping; every error names the file, the place and the key."""

    def __init__(self, data: object, source: str, where: str) -> None:
        self.source, self.where = source, where
        if not isinstance(data, dict):
            raise self.error(None, f"must be a mapping of keys, not {_kind(data)}")
        self.data = data

    def error(self, key: str | None, problem: str) -> MatrixError:
        place = ": ".join(part for part in (self.source, self.where, key) if part)
        return MatrixError(f"{place}: {problem}")

    def only(self, allowed: tuple[str, ...]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.error(str(key), f"unknown key (known: {', '.join(allowed)})")

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def text(self, key: str, default: str = "") -> str:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string, not {_kind(value)}")
        return value.strip()

    def whole(self, key: str, default: int) -> int:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.error(key, f"must be a whole number >= 1, not {value!r}")
        return value

    def positive(self, key: str, default: float, what: str = "a number of seconds") -> float:
        value = self.data.get(key)
        if value is None:
            return default
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0 < value < float("inf")
        ):
            raise self.error(key, f"must be {what} > 0, not {value!r}")
        return float(value)

    def option(self, option: config.Option, key: str | None = None) -> Any:
        """A sparkload option's value, checked by the option's own parser."""
        key = key or option.dest
        try:
            return option.value(self.data.get(key))
        except ConfigError as exc:
            raise self.error(key, str(exc).removeprefix(option.flag + ": ")) from None

    def strings(self, key: str) -> tuple[str, ...]:
        """A list of strings; a single string is a one-item list (``endpoints: http://x``)."""
        value = self.data.get(key)
        if value is None:
            return ()
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(i, (str, int, float)) for i in items):
            raise self.error(key, f"must be a list of strings, not {_kind(value)}")
        return tuple(str(i) for i in items)


def _kind(value: object) -> str:
    return "nothing" if value is None else f"{type(value).__name__} {value!r}"[:60]


def load(path: Path) -> Matrix:
    """Read and validate a matrix file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MatrixError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MatrixError(f"{path}: cannot read it ({exc.__class__.__name__})") from None
    return parse_text(text, str(path))


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML where a key given twice in one mapping is an error, not "the last one wins"."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise MatrixError(
                    f"{self.name}: line {line}: {key}: given twice (first at line {seen[key]})"
                )
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def parse_text(text: str, source: str) -> Matrix:
    try:
        loader = _UniqueKeyLoader(text)
        loader.name = source
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or exc.__class__.__name__
        raise MatrixError(f"{source}: not valid YAML{where}: {problem}") from None
    return parse(data, source, text)


def parse(data: object, source: str, text: str = "") -> Matrix:
    """Validate already-loaded YAML data (the demo builds it in code)."""
    top = _Fields(data, source, "")
    top.only(TOP_KEYS)
    targets_data = top.data.get("targets")
    if not isinstance(targets_data, list) or not targets_data:
        raise top.error("targets", "give a list of at least one target")
    run_options = {
        dest: top.option(option) for dest, option in RUN_OPTIONS.items() if top.has(dest)
    }
    targets = tuple(
        _target(item, source, i, run_options) for i, item in enumerate(targets_data, start=1)
    )
    seen: set[str] = set()
    for i, target in enumerate(targets, start=1):
        if target.label in seen:
            raise MatrixError(
                f"{source}: targets[{i}]: label: {target.label!r} is used by an earlier "
                "target (labels name the run directories and the report rows)"
            )
        seen.add(target.label)
    return Matrix(
        targets=targets,
        run_options=run_options,
        results_dir=Path(top.text("results_dir")) if top.has("results_dir") else None,
        locust_args=_locust_args(top, run_options),
        report_args=_report_args(top),
        note=top.text("note"),
        source=source,
        text=text,
    )


def _locust_args(fields: _Fields, run_options: dict[str, Any]) -> tuple[str, ...]:
    """Extra options; none may fight what the matrix or its keys already set."""
    args = fields.strings("locust_args")
    given = {RUN_OPTIONS[dest].flag: dest for dest in run_options}
    for arg in args:
        flag = arg.split("=", 1)[0]
        if flag in MANAGED_FLAGS:
            raise fields.error("locust_args", f"{flag} is set by the matrix: {MANAGED_FLAGS[flag]}")
        if flag in given:
            raise fields.error("locust_args", f"{flag} is set by the key {given[flag]}")
    return args


def _report_args(fields: _Fields) -> tuple[str, ...]:
    """Checked by the report's own parser now, not after hours of runs."""
    args = fields.strings("report_args")
    if not args:
        return args
    if any(arg.split("=", 1)[0] == "--out" for arg in args):
        raise fields.error(
            "report_args", "--out is set by the matrix: the report goes to <results_dir>/report"
        )
    problem = check_options(list(args))
    if problem is not None:
        raise fields.error("report_args", problem)
    return args


def _target(data: object, source: str, index: int, run_options: dict[str, Any]) -> Target:
    name = data.get("label") if isinstance(data, dict) else None
    fields = _Fields(
        data, source, f"targets[{index}]" + (f" ({name})" if isinstance(name, str) else "")
    )
    fields.only((*TARGET_KEYS, *RUN_OPTIONS))
    own_options = {
        dest: fields.option(option) for dest, option in RUN_OPTIONS.items() if fields.has(dest)
    }
    simulator = _simulator(fields) if fields.has("simulator") else None
    endpoints = fields.strings("endpoints")
    if simulator is None and not endpoints:
        raise fields.error(None, "give endpoints (URLs of the deployment) or simulator (a profile)")
    if simulator is not None and endpoints:
        raise fields.error(None, "give endpoints or simulator, not both")
    for url in endpoints:
        try:
            Endpoint.parse(url)
        except ConfigError as exc:
            raise fields.error("endpoints", str(exc)) from None
    if simulator is not None:
        for key in ("deploy", "health", "teardown"):
            if fields.has(key):
                raise fields.error(
                    key,
                    "a simulator target is started and stopped by the run itself; "
                    "deploy, health and teardown apply to endpoints",
                )
    tp = fields.whole("tp", 1)
    if tp not in TP_SIZES:
        raise fields.error("tp", f"{tp} is not one of {', '.join(map(str, TP_SIZES))}")
    variant = fields.text("variant", simulator.profile if simulator else "")
    if not variant:
        raise fields.error(
            "variant",
            "give the deployment's variant, e.g. nvfp4-mtp (the report "
            "compares variants, and TP sizes within one variant)",
        )
    label = fields.text("label", f"{variant}-tp{tp}")
    if not _LABEL.match(label):
        raise fields.error("label", f"{label!r} may hold only letters, digits, '.', '_' and '-'")
    return Target(
        label=label,
        variant=variant,
        tp=tp,
        nodes=fields.whole("nodes", tp),
        endpoints=endpoints,
        simulator=simulator,
        deploy=fields.text("deploy"),
        deploy_timeout=fields.positive("deploy_timeout", DEFAULT_DEPLOY_TIMEOUT),
        health=fields.text("health"),
        health_timeout=fields.positive("health_timeout", DEFAULT_HEALTH_TIMEOUT),
        teardown=fields.text("teardown"),
        teardown_timeout=fields.positive("teardown_timeout", DEFAULT_TEARDOWN_TIMEOUT),
        run_options=own_options,
        locust_args=_locust_args(fields, {**run_options, **own_options}),
    )


def _simulator(target: _Fields) -> Simulator:
    fields = _Fields(target.data["simulator"], target.source, f"{target.where}: simulator")
    fields.only(SIMULATOR_KEYS)
    if not fields.has("profile"):
        raise fields.error("profile", f"give one of {', '.join(config.SIM_PROFILES)}")
    return Simulator(
        {
            key: fields.option(option, key)
            for key, option in SIMULATOR_OPTIONS.items()
            if fields.has(key) or key == "time_scale"
        }
    )
