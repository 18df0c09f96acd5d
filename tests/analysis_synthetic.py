"""Builders of synthetic results directories (the contract of sparkload.records).

A uniquely named module rather than conftest.py, so that test modules can import it without
clashing with other test folders' conftest modules.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from sparkload.records import MANIFEST_FILE, REQUESTS_FILE, RequestRecord

DATA = Path(__file__).parent / "analysis" / "data"
REPORT_ORDER = ["FP8", "FP8-MTP", "AWQ-MTP", "NVFP4", "NVFP4-MTP"]


def make_record(
    level: int,
    level_index: int,
    *,
    ttft: float | None,
    itl: float | None,
    tps: float | None,
    latency: float | None,
    start_time: float,
    output_tokens: int | None = 128,
    phase: str = "measure",
    status: str = "ok",
    error_kind: str | None = None,
    user: int = 0,
    **fields,
) -> dict:
    """One record as the load side writes it, with the derived fields given explicitly."""
    t_last = (
        None if ttft is None or output_tokens is None else ttft + (itl or 0.0) * (output_tokens - 1)
    )
    record = RequestRecord(
        request_id=f"r{level}-{user}-{start_time}",
        level=level,
        level_index=level_index,
        phase=phase,
        worker="local",
        user=user,
        endpoint="http://127.0.0.1:8000/v1",
        model="test-model",
        prompt_index=0,
        max_tokens=128,
        start_time=start_time,
        status=status,
        error_kind=error_kind,
        ttft=ttft,
        t_last_token=t_last,
        latency=latency,
        output_tokens=output_tokens,
        **fields,
    )
    record.itl, record.tps = itl, tps
    return record.to_dict()


def closed_loop_level(
    level: int,
    level_index: int,
    t0: float,
    *,
    ttft: float,
    itl: float,
    tps: float,
    latency: float,
    per_user: int = 10,
    warmup: dict | None = None,
) -> list[dict]:
    """C users each sending ``per_user`` identical requests back to back, after one warm-up."""
    records = []
    if warmup is not None:
        records.append(
            make_record(level, level_index, phase="warmup", start_time=t0 - 100, **warmup)
        )
    for user in range(level):
        for i in range(per_user):
            records.append(
                make_record(
                    level,
                    level_index,
                    ttft=ttft,
                    itl=itl,
                    tps=tps,
                    latency=latency,
                    start_time=t0 + i * latency,
                    user=user,
                )
            )
    return records


def open_loop_level(
    pool: int,
    level_index: int,
    t0: float,
    *,
    interval: float,
    count: int,
    latency: float,
    queue_wait: float = 0.001,
    ttft: float = 0.2,
    itl: float = 0.01,
    tps: float = 100.0,
) -> list[dict]:
    """``count`` requests sent every ``interval`` seconds from a pool of ``pool`` users, as an
    open-loop level records them: ``level`` is the pool, ``level_index`` tells the rates apart."""
    return [
        make_record(
            pool,
            level_index,
            ttft=ttft,
            itl=itl,
            tps=tps,
            latency=latency,
            start_time=t0 + i * interval,
            user=i % pool,
            scheduled_time=t0 + i * interval - queue_wait,
            queue_wait=queue_wait,
        )
        for i in range(count)
    ]


def arrival_manifest(rates: list[float], pool: int, duration: float = 15.0) -> dict:
    """The manifest fields of an open-loop run: one level per offered rate, all at the pool."""
    return {
        "mode": "arrival",
        "ladder": [],
        "requests_per_user": None,
        "warmup_requests_per_level": 0,
        "arrival": {"rates": rates, "users": pool, "duration": duration},
        "levels": [
            {
                "index": index,
                "concurrency": pool,
                "expected": None,
                "started_at": "2026-01-01T00:00:00Z",
                "arrival_rate": rate,
            }
            for index, rate in enumerate(rates)
        ],
    }


def write_run(
    root: Path,
    label: str,
    records: list[dict],
    *,
    variant: str | None = None,
    tp: int | None = 1,
    nodes: int | None = 1,
    status: str = "complete",
    time_scale: float = 1.0,
    tail: bytes = b"",
    stamp: str = "20260101T000000Z",
    manifest_fields: dict | None = None,
) -> Path:
    """A results directory with a manifest (plus ``manifest_fields``) and requests.jsonl (plus
    ``tail`` bytes appended)."""
    run = root / f"{stamp}-{label}"
    run.mkdir(parents=True)
    ladder = sorted({r["level"] for r in records})
    manifest = {
        "schema": 1,
        "label": label,
        "variant": variant or label,
        "tp": tp,
        "nodes": nodes,
        "endpoints": ["http://127.0.0.1:8000/v1"],
        "model": "test-model",
        "mode": "ladder",
        "ladder": ladder,
        "requests_per_user": 10,
        "warmup_requests_per_level": 1,
        "workload": "chat",
        "seed": 1,
        "simulator": None,
        "time_scale": time_scale,
        "started_at": "2026-01-01T00:00:00Z",
        "ended_at": None,
        "status": status,
        "levels": [],
        **(manifest_fields or {}),
    }
    (run / MANIFEST_FILE).write_text(json.dumps(manifest))
    with (run / REQUESTS_FILE).open("wb") as handle:
        handle.write("".join(json.dumps(r) + "\n" for r in records).encode())
        handle.write(tail)
    return run


def report_means() -> dict[str, dict[int, dict[str, float]]]:
    """report_means.csv as {variant: {C: row}}."""
    table: dict[str, dict[int, dict[str, float]]] = {}
    with (DATA / "report_means.csv").open() as handle:
        for row in csv.DictReader(handle):
            table.setdefault(row["variant"], {})[int(row["concurrency"])] = {
                k: float(v) for k, v in row.items() if k not in ("variant", "concurrency")
            }
    return table


def write_report_runs(root: Path, warmup: dict | None = None) -> list[Path]:
    """Five runs whose every measured request equals the report's mean values."""
    runs = []
    for i, variant in enumerate(REPORT_ORDER):
        records, t0 = [], 1_700_000_000.0
        for index, (level, row) in enumerate(sorted(report_means()[variant].items())):
            records += closed_loop_level(
                level,
                index,
                t0,
                ttft=row["ttft_ms"] / 1000,
                itl=row["itl_ms"] / 1000,
                tps=row["tps_tok_s"],
                latency=row["latency_s"],
                warmup=warmup,
            )
            t0 += 10 * row["latency_s"] + 5
        runs.append(write_run(root, variant, records, stamp=f"20260101T00000{i}Z"))
    return runs


def markdown_table(text: str, title: str) -> list[list[str]]:
    """Rows (header first) of the Markdown table printed under the bold line ``**title**``."""
    lines = text.splitlines()
    start = lines.index(f"**{title}**") + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        if not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def compare_run(
    root: Path,
    label: str = "sim",
    *,
    levels: tuple[int, ...] = (1, 2),
    ttft: float = 0.1,
    itl: float = 0.02,
    per_level: int = 40,
    failures: int = 0,
    spread: float = 0.05,
    seed: int = 0,
    stamp: str = "20260101T000000Z",
    reasoning: int = 0,
    no_answer: int = 0,
    manifest_fields: dict | None = None,
) -> Path:
    """A closed-loop run for ``sparkload compare``: ``per_level`` ok measured requests per level
    whose TTFT and ITL scatter around ``ttft`` and ``itl`` (lognormal, sd ``spread``, seeded),
    16 output tokens each (TTFO = TTFT), plus ``failures`` failed ones. With ``reasoning``, each
    request's first that many tokens are reasoning (its TTFO that many gaps after its TTFT), and
    the first ``no_answer`` requests of a level reasoned to the end and never answered."""
    rng = np.random.default_rng(seed)
    records, t0 = [], 1_700_000_000.0
    tokens = 16
    for index, level in enumerate(levels):
        for i in range(per_level):
            first = ttft * float(rng.lognormal(0.0, spread))
            gap = itl * float(rng.lognormal(0.0, spread))
            latency = first + gap * (tokens - 1)
            answered = i >= no_answer  # TTFO is TTFT where nothing reasoned, as the load writes
            thinking = {"ttfo": first + gap * reasoning if answered else None}
            if reasoning:
                thinking["reasoning_tokens"] = reasoning if answered else tokens
            if not answered:  # reasoned until max_tokens: the limit ended it
                thinking["finish_reason"] = "length"
            records.append(
                make_record(
                    level,
                    index,
                    ttft=first,
                    itl=gap,
                    tps=tokens / latency,
                    latency=latency,
                    start_time=t0 + i * latency / level,
                    output_tokens=tokens,
                    user=i % level,
                    **thinking,
                )
            )
        records += [
            make_record(
                level,
                index,
                ttft=None,
                itl=None,
                tps=None,
                latency=0.01,
                start_time=t0 + j,
                output_tokens=None,
                status="error",
                error_kind="http_500",
            )
            for j in range(failures)
        ]
        t0 += per_level * ttft * 2 + 60
    return write_run(root, label, records, stamp=stamp, manifest_fields=manifest_fields)


def write_tp_matrix_runs(
    root: Path, tps: tuple[int, ...] = (1, 2, 4), levels: tuple[int, ...] = (1, 16)
) -> list[Path]:
    """The report's five variants at each TP size, as a matrix names them (``fp8-mtp-tp2``):
    two requests per user at the lowest and highest of the report's levels, the report's means
    with TPS scaled by the TP size."""
    runs = []
    for tp in tps:
        for variant in REPORT_ORDER:
            rows = report_means()[variant]
            records, t0 = [], 1_700_000_000.0
            for index, level in enumerate(levels):
                row = rows[level]
                records += closed_loop_level(
                    level,
                    index,
                    t0,
                    ttft=row["ttft_ms"] / 1000,
                    itl=row["itl_ms"] / 1000 / tp,
                    tps=row["tps_tok_s"] * tp,
                    latency=row["latency_s"] / tp,
                    per_user=2,
                )
                t0 += 2 * row["latency_s"] + 5
            label = f"{variant.lower()}-tp{tp}"
            runs.append(
                write_run(
                    root,
                    label,
                    records,
                    variant=variant.lower(),
                    tp=tp,
                    nodes=tp,
                    stamp=f"20260101T00{tp}00{len(runs) % 10}Z",
                    manifest_fields={"requests_per_user": 2},
                )
            )
    return runs
