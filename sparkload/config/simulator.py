"""The built-in simulator's options, as a load test sets them: ``--sim-X`` for its ``--X``.

The simulator defines them once (``sparkload/sim/options.py``); each becomes the locustfile's
option here with the same meaning, help and choices, and the run hands them back to the
simulator it starts (``SimulatorOptions.args``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkload.config.option import SIMULATOR, Option
from sparkload.config.parsers import (
    Parse,
    boolean,
    category_acceptance,
    non_negative,
    one_of,
    optional_count,
    optional_whole,
    positive,
    spec,
)
from sparkload.errors import ConfigError
from sparkload.sim import options as sim_options

SIM_PROFILES = sim_options.PROFILE_NAMES
LOCUSTFILE_SIM_TIME_SCALE = 10.0  # a newcomer's first run: about a minute for the whole ladder


def rate(flag: str, value: object) -> float:
    """A share from 0 to 1 (a simulator's rate of tool calls, of spoiled ones)."""
    number = non_negative(flag, value)
    if number > 1:
        raise ConfigError(f"{flag}: {value!r} must be from 0 to 1")
    return number


def names(flag: str, value: object) -> str | None:
    """NAME,NAME,...: distinct names, kept as written (None: not given)."""
    if value is None or str(value).strip() == "":
        return None
    listed = [name.strip() for name in str(value).split(",")]
    if not all(listed) or len(set(listed)) != len(listed):
        raise ConfigError(f"{flag}: {value!r}: give distinct names, comma-separated")
    return ",".join(listed)


def optional_rate(flag: str, value: object) -> float | None:
    """A share from 0 to 1, or None (not given: the simulator's own behaviour)."""
    if value is None or str(value).strip() == "":
        return None
    return rate(flag, value)


def _simulator_option(option: sim_options.SimOption) -> Option:
    """The locustfile's ``--sim-X`` for the simulator's ``--X``: same meaning, help and choices;
    the time scale defaults to 10x here (1x for a standalone ``sparkload sim``)."""
    parse: Parse
    if option.choices:
        parse = one_of(option.choices)
    elif option.switch:
        parse = boolean
    elif option is sim_options.SPEC:
        parse = spec
    elif option is sim_options.CATEGORY_ACCEPTANCE:
        parse = category_acceptance
    elif option is sim_options.LORA:
        parse = names
    elif option is sim_options.LORA_SWITCH_MS:
        parse = non_negative
    elif option.type is int:
        parse = optional_count if option.count else optional_whole
    elif option.rate:
        parse = rate if option.default is not None else optional_rate
    else:
        parse = positive
    default = LOCUSTFILE_SIM_TIME_SCALE if option is sim_options.TIME_SCALE else option.default
    name = option.flag.removeprefix("--")
    return Option(
        "--sim-" + name,
        default,
        f"Built-in simulator (no --host given): {option.help}",
        SIMULATOR,
        parse,
        choices=option.choices,
        per_target=True,
        attr=name.replace("-", "_"),
    )


ROWS: tuple[Option, ...] = tuple(_simulator_option(option) for option in sim_options.SHARED)


@dataclass(frozen=True)
class SimulatorOptions:
    profile: str
    spec: str | None
    max_num_batched_tokens: int | None
    no_prefix_caching: bool
    block_size: int | None
    time_scale: float
    reasoning_tokens: int | None
    reasoning_field: str
    no_reasoning_usage: bool
    tool_call_rate: float
    tool_call_error_rate: float
    tool_parser_holdback: int | None
    schema_error_rate: float
    output_drift: float  # share of batched greedy replies changed (sim/drift.py)
    accuracy: float | None
    category_acceptance: str | None  # CATEGORY=RATE,... (sim/speculation.py)
    lora: str | None  # NAME,NAME,...: LoRA adapters served (sim/lora.py)
    max_loras: int | None  # adapters a batch may hold (None: the simulator's 1)
    lora_switch_ms: float  # loading an adapter into a slot
    thermal: bool  # heat and throttle the nodes (sim/thermal.py)

    def args(self) -> list[str]:
        """The built-in simulator's own options, as the run's --sim-* options set them: the
        profile, then only what differs from the simulator's own default, so the start-up line
        names what this run chose (and no default's name, "--tool-call-error-rate 0" among them,
        reads as an error line)."""
        args: list[str] = []
        for row, option in zip(ROWS, sim_options.SHARED, strict=True):
            value = getattr(self, row.field_name)
            if option is not sim_options.PROFILE and value == option.default:
                continue
            if option.switch:
                args += [option.flag] if value else []
            elif value is not None:
                args += [option.flag, f"{value:g}" if isinstance(value, float) else str(value)]
        return args
