"""The option table's value parsers: (flag, raw value) -> value, or a ConfigError naming the flag.

Values arrive from the command line, ``locust.conf``, the environment, the web form (all
strings) or a matrix file (YAML values), so each parser accepts whichever and validates it.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sparkload.errors import ConfigError
from sparkload.model_mix import ModelMix
from sparkload.sim.speculation import parse_category_acceptance, parse_spec

IGNORE_EOS_CHOICES = ("auto", "yes", "no")
CONTENT_CODINGS = ("identity", "gzip", "deflate", "br")

Parse = Callable[[str, Any], Any]


# ----- value parsers: (flag, raw value) -> value, or ConfigError naming the flag ---------------
def whole(flag: str, value: Any) -> int:
    """A whole number >= 1."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a whole number") from None
    if number < 1:
        raise ConfigError(f"{flag}: {value!r} must be 1 or more")
    return number


def integer(flag: str, value: Any) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a whole number") from None


def port(flag: str, value: Any) -> int:
    """A TCP port, 1..65535, or 0: off (nothing listens)."""
    number = integer(flag, value)
    if not 0 <= number <= 65535:
        raise ConfigError(f"{flag}: {value!r} is not a port: give 1..65535 (0: off)")
    return number


def non_negative(flag: str, value: Any) -> float:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a number") from None
    if not 0 <= number < math.inf:
        raise ConfigError(f"{flag}: {value!r} must be a finite number >= 0")
    return number


def optional_non_negative(flag: str, value: Any) -> float | None:
    """A finite number >= 0, or None (not given)."""
    return None if value is None or str(value).strip() == "" else non_negative(flag, value)


def positive(flag: str, value: Any) -> float:
    number = non_negative(flag, value)
    if number == 0:
        raise ConfigError(f"{flag}: must be more than 0")
    return number


_ZERO = re.compile(r"0+(\.0*)?")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration(flag: str, value: Any) -> float:
    """A length of time with its units (``90s``, ``5m``, ``1h30m``, ``250ms``), in seconds; 0
    (or empty) is none. A bare number is refused: seconds or minutes is the user's to say."""
    raw = str(value).strip().lower().replace(" ", "")
    if raw in ("", "0") or _ZERO.fullmatch(raw):  # 0.0 too: a parsed default given again
        return 0.0
    parts = _DURATION_PART.findall(raw)
    if not parts or "".join(number + unit for number, unit in parts) != raw:
        raise ConfigError(
            f"{flag}: {value!r} is not a duration: give a number with its unit, e.g. 90s, 5m, "
            "1h30m (units ms, s, m, h)"
        )
    return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)


def fraction(flag: str, value: Any) -> float:
    """A share: a number from 0 to 1."""
    number = non_negative(flag, value)
    if number > 1:
        raise ConfigError(f"{flag}: {value!r} is a share: give a number from 0 to 1")
    return number


def text(_flag: str, value: Any) -> str:
    return str(value or "").strip()


def model_choice(flag: str, value: Any) -> str:
    """One model's name or a mix of models with shares (``sparkload.model_mix``'s forms),
    checked here and kept as written."""
    given = text(flag, value)
    ModelMix.parse(given, flag)
    return given


def boolean(_flag: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def path(_flag: str, value: Any) -> Path:
    return Path(os.path.expanduser(str(value)))


def rates(flag: str, value: Any) -> tuple[float, ...]:
    """Comma-separated rates >= 0; a single 0 means none (closed loop)."""
    parts = value if isinstance(value, list | tuple) else str(value).split(",")
    found = tuple(non_negative(flag, part) for part in parts if str(part).strip())
    if len(found) > 1 and not all(found):
        raise ConfigError(f"{flag}: every rate of a sweep must be more than 0")
    return found if any(found) else ()


def optional_whole(flag: str, value: Any) -> int | None:
    """A whole number >= 1, or None (not given)."""
    return None if value is None or str(value).strip() == "" else whole(flag, value)


def optional_count(flag: str, value: Any) -> int | None:
    """A whole number >= 0 (a count where 0 means none), or None (not given)."""
    if value is None or str(value).strip() == "":
        return None
    number = integer(flag, value)
    if number < 0:
        raise ConfigError(f"{flag}: {value!r} must be 0 or more")
    return number


def levels(flag: str, value: Any) -> tuple[int, ...]:
    """Comma-separated whole numbers (a YAML list is accepted too)."""
    parts = value if isinstance(value, list | tuple) else str(value or "").split(",")
    if not any(str(part).strip() for part in parts):
        raise ConfigError(f"{flag}: give at least one level, e.g. 1,2,4,8,16")
    return tuple(whole(flag, part) for part in parts)


def optional_path(_flag: str, value: Any) -> Path | None:
    """A path, or None (not given)."""
    return None if value is None or str(value).strip() == "" else path(_flag, value)


def urls(_flag: str, value: Any) -> tuple[str, ...]:
    parts = value if isinstance(value, list | tuple) else str(value or "").split(",")
    return tuple(str(url).strip() for url in parts if str(url).strip())


def optional_number(flag: str, value: Any) -> float | None:
    """A finite number, or None (not given)."""
    if value is None or str(value).strip() == "":
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ConfigError(f"{flag}: {value!r} must be a finite number")
    return number


def json_object(flag: str, value: Any) -> dict[str, Any]:
    """A JSON object (``'{"temperature": 0}'``); a dict from a matrix file is taken as it is."""
    if isinstance(value, dict):
        return dict(value)
    text = str(value or "").strip()
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{flag}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{flag}: give a JSON object, e.g. '{{\"temperature\": 0}}'")
    return data


def pairs(value: Any) -> list[str]:
    """A repeatable option's values: a list (command line) or one string (env, web form)."""
    if isinstance(value, list | tuple):
        return [str(item) for item in value if str(item).strip()]
    return [str(value)] if str(value or "").strip() else []


def headers(flag: str, value: Any) -> dict[str, str]:
    """``Name: value`` pairs. The values are never shown: they may be secrets."""
    out: dict[str, str] = {}
    for pair in pairs(value):
        name, colon, header_value = pair.partition(":")
        if not colon or not name.strip():
            raise ConfigError(f"{flag}: give 'Name: value' (the value is not shown here)")
        out[name.strip()] = header_value.strip()
    return out


def key_values(flag: str, value: Any) -> dict[str, str]:
    """``KEY=VALUE`` pairs (a mapping from a matrix file is taken as it is)."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    out: dict[str, str] = {}
    for pair in pairs(value):
        key, equals, item = pair.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"{flag}: {pair!r} is not KEY=VALUE")
        out[key.strip()] = item.strip()
    return out


_NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def scrape_targets(flag: str, value: Any) -> dict[str, str]:
    """``NAME=URL`` per node (repeatable, or comma-separated in one value; a mapping from a
    matrix file): a Prometheus endpoint to read beside the target's. A URL without a path gets
    ``/metrics``; credentials in a URL are refused, as the manifest keeps the URLs."""
    if isinstance(value, dict):
        items = list(value.items())
    else:
        given = [part for pair in pairs(value) for part in pair.split(",") if part.strip()]
        if any("=" not in pair for pair in given):
            raise ConfigError(f"{flag}: give NAME=URL, e.g. spark-2=http://spark-2:9400/metrics")
        items = [(pair.partition("=")[0], pair.partition("=")[2]) for pair in given]
    out: dict[str, str] = {}
    for raw_name, raw_url in items:
        name, url = str(raw_name).strip(), str(raw_url).strip()
        if not _NODE_NAME.fullmatch(name):
            raise ConfigError(f"{flag}: node name {name!r}: letters, digits, '.', '_' or '-'")
        if name in out:
            raise ConfigError(f"{flag}: node {name} given twice")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"{flag}: {name}: {url!r} is not an http(s) URL")
        if parts.username or parts.password:
            raise ConfigError(f"{flag}: {name}: no credentials in the URL (it is kept in results)")
        out[name] = url if parts.path not in ("", "/") else url.rstrip("/") + "/metrics"
    return out


def encodings(flag: str, value: Any) -> str:
    """What the client accepts: identity (the default), or gzip / deflate / br, comma-separated."""
    codings = [part.strip().lower() for part in str(value or "identity").split(",") if part.strip()]
    unknown = [c for c in codings if c not in CONTENT_CODINGS]
    if unknown or not codings:
        raise ConfigError(f"{flag}: {value!r}: give any of {', '.join(CONTENT_CODINGS)}")
    return ", ".join(codings)


def one_of(choices: tuple[str, ...]) -> Parse:
    def parse(flag: str, value: Any) -> str:
        name = str(value).strip()
        if name not in choices:
            raise ConfigError(f"{flag}: {name!r} is not one of {', '.join(choices)}")
        return name

    return parse


def ignore_eos(flag: str, value: Any) -> str:
    word = str(value if value is not None else "auto").strip().lower()
    if word in IGNORE_EOS_CHOICES:
        return word
    if word in ("1", "true", "on"):
        return "yes"
    if word in ("0", "false", "off"):
        return "no"
    raise ConfigError(f"{flag}: give auto, yes or no")


def spec(flag: str, value: Any) -> str | None:
    """Speculative decoding of a simulator build (``none``, ``mtp:K``, ``dspark:K``) or None."""
    text = str(value or "").strip()
    if not text:
        return None
    try:
        parse_spec(text)
    except ValueError as exc:
        raise ConfigError(f"{flag}: {exc}") from None
    return text


def category_acceptance(flag: str, value: Any) -> str | None:
    """A simulator's per-category acceptance rates (``CATEGORY=RATE,...``) or None."""
    text = str(value or "").strip()
    if not text:
        return None
    try:
        parse_category_acceptance(text)
    except ValueError as exc:
        raise ConfigError(f"{flag}: {exc}") from None
    return text


@dataclass(frozen=True)
class Component:
    """One part of a length distribution: normal input and output lengths, and its weight."""

    input_tokens: int
    output_tokens: int | None  # None: the run's output length (--max-tokens, else the workload's)
    weight: float = 1.0
    input_stddev: float = 0.0
    output_stddev: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "input_stddev": self.input_stddev,
            "output_tokens": self.output_tokens,
            "output_stddev": self.output_stddev,
            "weight": self.weight,
        }


def seq_dist(flag: str, value: Any) -> tuple[Component, ...]:
    """``ISL[|SD],OSL[|SD]:WEIGHT;...`` (aiperf's semicolon format) → components whose weights
    sum to 1; empty when not given. A ConfigError of one line names the part that is wrong."""
    text = str(value or "").strip()
    if not text:
        return ()
    parts = [part.strip() for part in text.split(";") if part.strip()]
    components = [_component(flag, part) for part in parts]
    total = sum(c.weight for c in components)
    if not total > 0:
        raise ConfigError(f"{flag}: the weights sum to 0; give each pair a weight above 0")
    return tuple(
        Component(
            c.input_tokens, c.output_tokens, c.weight / total, c.input_stddev, c.output_stddev
        )
        for c in components
        if c.weight > 0  # a pair of weight 0 is never sent
    )


def _component(flag: str, part: str) -> Component:
    lengths, colon, weight_text = part.rpartition(":")
    if not colon:
        raise ConfigError(f"{flag}: {part!r} has no weight: give ISL,OSL:WEIGHT, e.g. 256,128:0.7")
    try:
        weight = float(weight_text)
    except ValueError:
        raise ConfigError(f"{flag}: {part!r}: the weight {weight_text!r} is not a number") from None
    if not (math.isfinite(weight) and weight >= 0):
        raise ConfigError(f"{flag}: {part!r}: the weight must be a finite number >= 0")
    pair = lengths.split(",")
    if len(pair) != 2:
        raise ConfigError(f"{flag}: {part!r}: give ISL,OSL:WEIGHT, e.g. 256,128:0.7")
    (isl, isl_sd), (osl, osl_sd) = (_length(flag, part, side) for side in pair)
    return Component(isl, osl, weight, isl_sd, osl_sd)


def _length(flag: str, part: str, side: str) -> tuple[int, float]:
    """``MEAN`` or ``MEAN|STDDEV``: a whole number >= 1 and a number >= 0."""
    mean_text, bar, sd_text = side.strip().partition("|")
    try:
        mean = int(mean_text)
        stddev = float(sd_text) if bar else 0.0
    except ValueError:
        raise ConfigError(
            f"{flag}: {part!r}: {side.strip()!r} is not LENGTH or LENGTH|STDDEV"
        ) from None
    if mean < 1 or not (math.isfinite(stddev) and stddev >= 0):
        raise ConfigError(f"{flag}: {part!r}: lengths are whole numbers >= 1, deviations >= 0")
    return mean, stddev
