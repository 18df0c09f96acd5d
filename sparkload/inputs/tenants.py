"""``--tenants FILE``: the traffic classes one run sends side by side, typed.

The file is one JSON or YAML document (a ``.yaml``/``.yml`` name reads as YAML, any other as
JSON)::

    {"classes": [
      {"name": "chat", "share": 0.6, "workload": "chat", "slo": "ttft_p90_ms<=2000"},
      {"name": "agents", "share": 0.3, "workload": "agent", "options": {"tool-turns": 1}},
      {"name": "batch", "share": 0.1, "workload": "prefill", "model": "base"}
    ]}

Each class's ``share`` of the users (or of an open loop's arrival rate), its ``workload``, the
run options its workload runs with (``options``: names as on the command line without the
dashes; the workload checks them against the option table: ``workloads/tenants.py``), the model
it asks for (``model``: one, or a mix in ``--model``'s syntax, e.g. ``a:0.5,b:0.5``; the run's
when absent) and its service level (``slo``: ``--check``'s syntax, which the analysis parses
before the load). What is wrong is one ``ConfigError`` line
naming the file and the class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sparkload.errors import ConfigError
from sparkload.inputs import files
from sparkload.model_mix import ModelMix
from sparkload.records import WORKLOAD_NAMES

FLAG = "--tenants"
SHARE_TOLERANCE = 1e-6  # the shares' sum may miss 1 by this much (0.1 + 0.2 + 0.7 in floats)
_YAML_SUFFIXES = (".yaml", ".yml")
_KEYS = ("name", "share", "workload", "options", "model", "slo")


@dataclass(frozen=True)
class TenantClass:
    """One traffic class: who it is, how much of the load it takes, what it sends."""

    name: str
    share: float  # of the users at every level (or of the arrival rate), 0 < share <= 1
    workload: str  # one of records.WORKLOAD_NAMES
    options: dict[str, Any] = field(default_factory=dict)  # option dest -> value, as written
    # the model (or adapter) its requests ask for, or a mix of them in --model's syntax
    # (``model_mix``: each user of the class deals its own requests over it); None: the run's
    model: str | None = None
    slo: str = ""  # its service level in --check's syntax ("" : none)

    def to_dict(self) -> dict[str, Any]:
        """The manifest's form (plain JSON): every key, so the analysis reads the SLO back."""
        return {
            "name": self.name,
            "share": self.share,
            "workload": self.workload,
            "options": dict(self.options),
            "model": self.model,
            "slo": self.slo,
        }


@dataclass(frozen=True)
class Tenants:
    """The classes of ``--tenants``, in the file's order, and where they came from."""

    classes: tuple[TenantClass, ...]
    source: str  # the path as given
    sha256: str

    @property
    def shares(self) -> tuple[float, ...]:
        return tuple(tenant.share for tenant in self.classes)


def load_tenants(path: Path) -> Tenants:
    """The classes of ``path``: a ConfigError of one line when they cannot be used."""
    file = files.read(FLAG, path)
    data = _yaml(file) if file.suffix in _YAML_SUFFIXES else file.json()
    return Tenants(check_classes(data, f"{FLAG}: {path}"), str(path), file.sha256)


def _yaml(file: files.UserFile) -> Any:
    try:
        return yaml.safe_load(file.text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = file.at(mark.line + 1) if mark is not None else f"{FLAG}: {file.path}"
        raise ConfigError(f"{where}: not YAML ({getattr(exc, 'problem', None) or exc})") from None


def check_classes(data: Any, where: str) -> tuple[TenantClass, ...]:
    """``data`` as the classes, each checked; ``where`` starts every error's line."""
    classes = data.get("classes") if isinstance(data, dict) else None
    if not isinstance(classes, list) or not classes:
        raise ConfigError(f'{where}: expected {{"classes": [...]}} with at least one class')
    out: list[TenantClass] = []
    for number, entry in enumerate(classes, 1):
        tenant = _tenant(entry, where, number)
        if any(seen.name == tenant.name for seen in out):
            raise ConfigError(f"{where}: class {tenant.name!r}: the name is used twice")
        out.append(tenant)
    total = math.fsum(tenant.share for tenant in out)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        raise ConfigError(f"{where}: the classes' shares sum to {total:g}, not 1")
    return tuple(out)


def _tenant(entry: Any, file: str, number: int) -> TenantClass:
    """Class ``number`` of the file; its errors name it (by its name once it has one)."""
    if not isinstance(entry, dict):
        raise ConfigError(f"{file}: class {number}: an object with name, share and workload")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{file}: class {number}: no name (a non-empty string)")
    where = f"{file}: class {name!r}"
    unknown = [key for key in entry if key not in _KEYS]
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(_KEYS)})")
    share = entry.get("share")
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        raise ConfigError(f"{where}: share {share!r} is not a number above 0 and at most 1")
    workload = entry.get("workload")
    if workload not in WORKLOAD_NAMES:
        raise ConfigError(
            f"{where}: unknown workload {workload!r} (known: {', '.join(WORKLOAD_NAMES)})"
        )
    options = entry.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{where}: options must be an object of option names and values")
    model = entry.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ConfigError(f"{where}: model must be a non-empty string")
    if model is not None:
        model = model.strip()
        ModelMix.parse(model, f"{where}: model")  # a mix's syntax, as --model's
    slo = entry.get("slo") or ""
    if not isinstance(slo, str):
        raise ConfigError(f"{where}: slo must be a string in --check's syntax")
    return TenantClass(name, float(share), workload, dict(options), model, slo.strip())
