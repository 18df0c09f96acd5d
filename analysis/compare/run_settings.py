"""What a run asked of the server, from its manifest, and where two runs' settings differ
(``sparkload compare`` refuses runs whose settings differ unless told to compare them anyway).

A run's settings are the manifest's request and workload sections (``SETTINGS``): the model,
the workload and its output length, the prompts, the sampling keys of the body, how requests
were sent (API, extra body such as ``chat_template_kwargs.enable_thinking``, header names), the
built-in simulator's setup (its profile, reasoning tokens, ...) and an open loop's arrival
process. Each section is read as the typed entry writes it (``Entry.to_dict``, with the keys
this version does not know), flattened to dotted keys (``workload.max_tokens``), so a field
added to an entry is compared without a change here. Every other field of the manifest is in
``NOT_SETTINGS``, with why; a test holds that every field is in one or the other.

Not compared, within the sections: what the level matching already covers or only sizes a
level (``UNCOMPARED``), and a file's path beside its digest (the same prompts from another
checkout). The manifest holds no secret (header names only, never values, nor the API key).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sparkload.records.manifest import Manifest

SETTINGS = ("model", "workload", "prompts", "sampling", "request", "simulator", "arrival", "seed")
NOT_SETTINGS = {
    "label": "names the run",
    "schema": "the manifest's format",
    "variant": "names the run",
    "tp": "the deployment, named by the label",
    "nodes": "the deployment, named by the label",
    "endpoints": "where the server was, not what it was asked",
    "mode": "levels of another mode have other names: not matched",
    "ladder": "levels are matched by name",
    "requests_per_user": "sizes a level",
    "warmup_requests_per_level": "requests that are not measured",
    "step_duration": "sizes a level",
    "slice_duration": "the report's windows",
    "capacity": "a search's answer, not a setting",
    "scenario": "a --scenario's phases: its levels, matched by name",
    "tiers": "each tier search's answer, not a setting",
    "saturated_at": "how far the run got",
    "outputs_kept": "what the records keep",
    "request_timeout": "the client's patience: its failures are compared",
    "time_scale": "the figures are in the target's time at any scale",
    "versions": "the tools that ran",
    "host_info": "the machine that ran",
    "client": "the load generator",
    "servers": "what the server said of itself",
    "scrape": "metrics endpoints",
    "metadata": "the user's notes",
    "repeat": "which run of a --repeat",
    "command": "argv, said by the settings above",
    "started_at": "when",
    "ended_at": "when",
    "status": "how far the run got (a note of its own)",
    "abort_reason": "how far the run got",
    "levels": "each level's timing and checks",
    "workers": "who ran it",
    "refused_workers": "who was turned away",
}
# within the sections: the plan's levels and their sizes (the levels are matched by name), and
# the simulator's speed-up (its figures are in simulated time)
UNCOMPARED = (
    "arrival.rates",
    "arrival.rate",
    "arrival.users",
    "arrival.duration",
    "simulator.time_scale",
)
UNSET = "unset"
_SHOWN = 60  # characters of a value in a message


@dataclass(frozen=True)
class SettingDifference:
    """One setting two runs (or two labels of them) do not share, each side's value as JSON."""

    setting: str  # "workload.max_tokens", "request.extra_body.chat_template_kwargs"
    baseline: str  # "16"; UNSET where that side did not record it
    run: str
    label: str = ""  # the baseline's label, where several are compared

    def __str__(self) -> str:
        where = f"{self.label}: " if self.label else ""
        return f"{where}{self.setting} {_short(self.baseline)} vs {_short(self.run)}"


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _flat(prefix: str, value: Any) -> dict[str, Any]:
    """Dotted keys to leaves (a list is one); an empty object has none: ``extra_body: {}`` says
    no more than no extra body, and a key set on one side reads "unset" on the other."""
    if not isinstance(value, dict):
        return {prefix: value}
    found: dict[str, Any] = {}
    for key, item in value.items():
        found.update(_flat(f"{prefix}.{key}", item))
    return found


def settings(manifest: Manifest) -> dict[str, str]:
    """The run's settings: dotted key → its value as compact JSON (the module docstring's)."""
    flat: dict[str, Any] = {}
    for name in SETTINGS:
        value = getattr(manifest, name)
        flat.update(_flat(name, value.to_dict() if hasattr(value, "to_dict") else value))
    digested = {key.rsplit(".", 1)[0] for key in flat if key.endswith(".sha256")}
    return {
        key: json.dumps(value, sort_keys=True, separators=(",", ":"))
        for key, value in flat.items()
        if key not in UNCOMPARED and not (key.endswith(".path") and key[:-5] in digested)
    }


def differences(
    baseline: list[Manifest], run: list[Manifest], label: str = ""
) -> list[SettingDifference]:
    """Where the settings of two sides differ, each side's runs pooled (a side whose runs hold
    several values of one setting shows them all, ``a | b``); in the baseline's key order."""
    sides = [_pooled(manifests) for manifests in (baseline, run)]
    keys = list(dict.fromkeys([*sides[0], *sides[1]]))
    return [
        SettingDifference(key, sides[0].get(key, UNSET), sides[1].get(key, UNSET), label)
        for key in keys
        if sides[0].get(key, UNSET) != sides[1].get(key, UNSET)
    ]


def _pooled(manifests: list[Manifest]) -> dict[str, str]:
    each = [settings(manifest) for manifest in manifests]
    values: dict[str, list[str]] = {}
    for found in each:
        for key, value in found.items():
            values.setdefault(key, [])
            if value not in values[key]:
                values[key].append(value)
    return {
        key: " | ".join(found if all(key in s for s in each) else [*found, UNSET])
        for key, found in values.items()
    }
