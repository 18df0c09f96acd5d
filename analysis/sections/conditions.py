"""Test conditions: what every label was run with, from its manifest (the quantization report's
1.6-1.8: model, load, requests, prompts, output length, warm-up, sampling, server and client).

One label: a table of conditions. Several: the conditions all labels share, then a table of
those that differ, a row per label, so a matrix's one varying setting stands out. A label run
several times (``--repeat``) is described by its first run.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from analysis.document import Block, Section
from analysis.figures.measured import FloatColumns, group_positions, measured_answered
from analysis.reading.load import Run
from analysis.sections import Context
from analysis.sections.runs import cache_busted
from analysis.views.tables import Table
from sparkload.records import Manifest

UNKNOWN = "not recorded"
# the sampling keys the table names in rows of their own (the others go to "Other sampling")
TEMPERATURE = "temperature"
TEMPLATE_KWARGS = "chat_template_kwargs"
MAX_TOKENS = "max_tokens"


def _listed(values: list[Any]) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def _load(manifest: Manifest) -> str:
    """The levels and how long each lasted."""
    arrival = manifest.arrival
    if arrival is not None and (arrival.rates or arrival.trace):
        rates = _listed(arrival.rates) or "a replayed trace"
        return f"open loop: {rates} req/s from {arrival.users or '?'} users"
    levels = _listed(manifest.ladder) or UNKNOWN
    if manifest.step_duration is not None:
        return f"concurrency {levels}, {manifest.step_duration:g} s per level"
    return f"concurrency {levels}"


def _requests(manifest: Manifest) -> str:
    if manifest.requests_per_user is None:
        return "time-based" if manifest.step_duration is not None else UNKNOWN
    per_user = manifest.requests_per_user
    return f"{per_user} per user per level ({per_user} × C requests measured at C)"


def _max_tokens(manifest: Manifest) -> str:
    said = manifest.sampling.max_tokens or manifest.workload.max_tokens
    if said is None:
        return UNKNOWN
    pinned = " (ignore_eos: every reply that long)" if manifest.workload.ignore_eos else ""
    return f"{said}{pinned}"


def _prompts(run: Run) -> str:
    """Where the prompts came from and whether they were reused."""
    entry = run.manifest.prompts
    said = entry.unknown
    parts = [f"{entry.count} prompts"] if entry.count is not None else []
    if "path" in said:
        parts.append(f"from `{PurePath(str(said['path'])).name}`")
    if "sha256" in said:
        parts.append(f"(sha256 {str(said['sha256'])[:12]}…)")
    if "generator" in said:
        parts.append(f"synthetic ({said['generator']})")
    if entry.input_tokens is not None:
        parts.append(f"{entry.input_tokens} tokens each")
    elif entry.lengths:
        parts.append(
            "lengths "
            + ", ".join(f"{c.input_tokens}±{c.input_stddev:g} tokens" for c in entry.lengths)
        )
    if run.has_manifest:
        reuse = "cache-busted (unique per request)" if cache_busted(run) else "reused"
        parts = [" ".join(parts) + ";", reuse] if parts else [reuse]
    return " ".join(parts) or UNKNOWN


def _prompt_tokens(tokens: np.ndarray | None) -> str:
    """The prompt tokens the server counted (``tokens``: the label's measured successful
    requests' that have a count; None: the records have no such field)."""
    if tokens is None or not len(tokens):
        return UNKNOWN
    return f"mean {tokens.mean():.0f}, {tokens.min():.0f}–{tokens.max():.0f} (server's count)"


def _sampling(manifest: Manifest) -> dict[str, Any]:
    """What the run's requests carried beside the prompt and max_tokens."""
    body = dict(manifest.sampling.unknown)
    if manifest.request is not None:  # --extra-body wins, as on the wire
        body.update(manifest.request.extra_body)
    return body


def _thinking(body: dict[str, Any], reasoned: bool | None) -> str:
    """As the requests asked (``chat_template_kwargs.enable_thinking``), else what the replies
    did (``reasoned``: some reply of the label reasoned; None: no record says)."""
    kwargs = body.get(TEMPLATE_KWARGS)
    asked = kwargs.get("enable_thinking") if isinstance(kwargs, dict) else None
    if asked is not None:
        return f"{'on' if asked else 'off'} (chat_template_kwargs.enable_thinking: {asked})"
    if reasoned is None:
        return "server default; no reply reasoned"
    return "server default; " + ("replies reasoned" if reasoned else "no reply reasoned")


def _other_sampling(body: dict[str, Any]) -> str:
    others = {k: v for k, v in body.items() if k not in (TEMPERATURE, TEMPLATE_KWARGS, MAX_TOKENS)}
    return ", ".join(f"{key}={value}" for key, value in others.items()) or "none"


def _server(manifest: Manifest) -> str:
    """The server's build as the endpoints said it, the simulator's setup, the user's metadata."""
    parts = []
    for server in manifest.servers.values():
        if server.version:
            parts.append(f"version {server.version}")
        elif "server" in server.headers:
            parts.append(server.headers["server"])
    if (sim := manifest.simulator) is not None:
        setup = [f"profile {sim.profile}"]
        setup += [f"speculation {sim.spec}"] if sim.spec else []
        if sim.max_num_batched_tokens is not None:
            setup.append(f"max_num_batched_tokens {sim.max_num_batched_tokens}")
        setup.append(f"prefix caching {'on' if sim.prefix_caching else 'off'}")
        parts.append("sparkload simulator (" + ", ".join(setup) + ")")
    parts += [f"{key}={value}" for key, value in manifest.metadata.items()]
    return "; ".join(dict.fromkeys(parts)) or UNKNOWN


def _client(manifest: Manifest) -> str:
    versions = manifest.versions
    said = f"sparkload {versions.sparkload}, Locust {versions.locust}" if versions else UNKNOWN
    client = manifest.client
    if client is not None and client.workers:
        said += f"; {client.runner or 'local'}, {client.workers} worker(s)"
    return said


def conditions(run: Run, tokens: np.ndarray | None, reasoned: bool | None) -> dict[str, str]:
    """One run's conditions, by name (``tokens`` and ``reasoned``: its label's, as
    ``_prompt_tokens`` and ``_thinking`` take them)."""
    manifest = run.manifest
    body = _sampling(manifest)
    temperature = body.get(TEMPERATURE)
    return {
        "Model": manifest.model or UNKNOWN,
        "Workload": manifest.workload_name,
        "Load": _load(manifest),
        "Requests": _requests(manifest),
        "Warm-up": f"{manifest.warmup_requests_per_level} request(s) per level, not measured",
        "Max tokens": _max_tokens(manifest),
        "Prompts": _prompts(run),
        "Prompt tokens": _prompt_tokens(tokens),
        "Temperature": "server default" if temperature is None else str(temperature),
        "Thinking": _thinking(body, reasoned),
        "Other sampling": _other_sampling(body),
        "Server": _server(manifest),
        "Seed": str(manifest.seed),
        "Client": _client(manifest),
    }


def by_label(context: Context) -> dict[str, dict[str, str]]:
    """Each label's conditions (its first run's), in report order; read at each label's
    positions, the two columns it needs (a label's rows were copied: 90 MB at 10,000,000)."""
    records = context.dataset.records
    first: dict[str, Run] = {}
    for run in context.dataset.runs:
        first.setdefault(run.label, run)
    column = FloatColumns(records)
    answered = measured_answered(records) if "measure" in records else None
    positions = group_positions(records, ["label"]) if "label" in records else {}
    none = np.empty(0, np.int64)
    found = {}
    for label, run in first.items():
        index = positions.get(label, none)
        tokens = reasoned = None
        if answered is not None and "prompt_tokens" in records:
            tokens = column["prompt_tokens"][index[answered[index]]]
            tokens = tokens[np.isfinite(tokens)]
        if "reasoning_tokens" in records:
            reasoned = bool((column["reasoning_tokens"][index] > 0).any())
        found[label] = conditions(run, tokens, reasoned)
    return found


def build(context: Context) -> Section | None:
    labels = by_label(context)
    if not labels:
        return None
    names = list(next(iter(labels.values())))
    shared = [n for n in names if len({values[n] for values in labels.values()}) == 1]
    differ = [n for n in names if n not in shared]
    first = next(iter(labels.values()))
    blocks: list[Block] = []
    if shared:
        blocks.append(
            Table(
                "conditions",
                "Conditions of every label" if len(labels) > 1 else "Conditions",
                pd.DataFrame({"Condition": shared, "Value": [first[n] for n in shared]}),
            )
        )
    if differ:
        blocks.append(
            Table(
                "conditions_by_label",
                "Conditions that differ between labels",
                pd.DataFrame(
                    [{"Label": label, **{n: v[n] for n in differ}} for label, v in labels.items()]
                ),
            )
        )
    return Section("Test conditions", blocks)
