"""The capacity search beside a full ladder of the same server: same answer, fewer levels?

Against llama.cpp's ``llama-server`` (built and started by ``llama_server.py``: the ``small``
model, 8 slots) or any server given with ``--url``: first the whole ladder (``--ladder``, every
level judged afterwards by the analysis's ``--check-level``, the search's own verdict), then
``--find-capacity`` with the same bounds, requests per user and tokens. Printed: each ladder
level's figure and verdict, the ladder's capacity (the largest level below the first breaking
one), the search's probes and answer, and the requests and wall time each spent.

    python -m benchmarks.realservers.capacity_vs_ladder [--url URL] [--bounds 'ttft_p90_ms<=X']
        [--ladder 1,2,4,8,16] [--requests-per-user 3] [--tokens 32]

Without ``--bounds`` the bound is TTFT p90 <= 4 x the ladder's C=1 figure (printed), so the
crossing falls inside the ladder whatever the machine. Bounded: every run has the harness's
deadline.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.harness import run_main_job
from benchmarks.realservers.llama_server import LlamaServer
from sparkload.run.report_process import judge_level

AUTO_FACTOR = 4.0  # the default bound: TTFT p90 <= this x the ladder's C=1 TTFT p90


def run_dir(workdir: Path) -> Path:
    return next((workdir / "results").iterdir())


def timed_run(url: str, workdir: Path, *args: str) -> tuple[dict[str, Any], int, float]:
    """One run of the main job: its manifest, its requests (warm-ups included), wall seconds."""
    started = time.monotonic()
    manifest, records = run_main_job(url, workdir, *args)
    return manifest, len(records), time.monotonic() - started


def ladder_verdicts(bounds: str, workdir: Path, levels: int) -> list[dict[str, Any]]:
    """Every ladder level judged as the search judges a probe."""
    return [judge_level(bounds, str(run_dir(workdir)), index) for index in range(levels)]


def ladder_capacity(levels: tuple[int, ...], verdicts: list[dict[str, Any]]) -> int | None:
    """The largest level below the first that breaks the bounds (None: the first breaks)."""
    capacity = None
    for c, verdict in zip(levels, verdicts, strict=True):
        if not verdict["meets"]:
            break
        capacity = c
    return capacity


def auto_bounds(url: str, workdir: Path, job: list[str]) -> str:
    """TTFT p90 <= AUTO_FACTOR x what one user alone sees (a C=1 run of its own)."""
    timed_run(url, workdir, "--ladder", "1", *job)
    verdict = judge_level("ttft_p90_ms<=1000000000", str(run_dir(workdir)), 0)
    single = next(iter(verdict["figures"].values()))
    return f"ttft_p90_ms<={single * AUTO_FACTOR:.0f}"


@contextmanager
def target(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    with LlamaServer(model_size="small") as server:
        yield server.url


def figure_text(verdict: dict[str, Any]) -> str:
    values = [f"{v:.1f}" if v is not None else "-" for v in verdict["figures"].values()]
    return " ".join(values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start llama-server)")
    parser.add_argument("--bounds", help="--check bounds (default: 4 x C=1's TTFT p90)")
    parser.add_argument("--ladder", default="1,2,4,8,16")
    parser.add_argument("--requests-per-user", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=32)
    args = parser.parse_args(argv)
    ladder = tuple(int(c) for c in args.ladder.split(","))
    job = ["--requests-per-user", str(args.requests_per_user), "--max-tokens", str(args.tokens)]
    job += ["--cache-bust"]  # cold prompts in both runs: the second must not find the first's
    with target(args.url) as url, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bounds = args.bounds or auto_bounds(url, root / "single", job)
        print(f"target {url}; bounds {bounds}; {args.requests_per_user} requests per user")
        _, ladder_requests, ladder_wall = timed_run(
            url, root / "ladder", "--ladder", args.ladder, *job
        )
        verdicts = ladder_verdicts(bounds, root / "ladder", len(ladder))
        manifest, search_requests, search_wall = timed_run(
            url, root / "search", "--find-capacity", bounds, *job
        )
    print("\n== ladder: every level ==")
    for c, verdict in zip(ladder, verdicts, strict=True):
        print(f"C={c:<4d} {figure_text(verdict):>10}  {'meets' if verdict['meets'] else 'breaks'}")
    print(
        f"ladder capacity: C={ladder_capacity(ladder, verdicts)} "
        f"({len(ladder)} levels, {ladder_requests} requests, {ladder_wall:.1f} s)"
    )
    print("\n== capacity search: its probes, in order ==")
    found = manifest.get("capacity") or {}
    for probe in found.get("probes", []):
        verdict_text = "meets" if probe["meets"] else "breaks"
        print(f"C={probe['value']:<4g} {figure_text(probe):>10}  {verdict_text}")
    print(
        f"search capacity: C={found.get('capacity')} "
        f"({len(found.get('probes', []))} probes, {search_requests} requests, {search_wall:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
