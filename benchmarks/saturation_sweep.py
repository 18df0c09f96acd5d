"""Where does a rate sweep stop? Issue 19's must-show 2 on the built-in simulator, per level.

Runs ``locust -f locustfiles/chat.py --headless --arrival-rate 1,2,4,8,16,32 --arrival-duration
15 --arrival-users 256 --max-tokens 256`` (no host: the built-in simulator at its default 10x)
and prints per level: the offered rate, the achieved rate (answered requests over the level's
first send to last answer, target time), the backlog's peak (requests due and not yet answered,
rebuilt from the records' due and answer times; arrivals stopped before they were sent are the
``unsent`` column), the over-saturation verdict, and the level's wall time (real seconds,
manifest start to end). ``--no-saturation-stop`` runs every rate for comparison.

    .venv/bin/python benchmarks/saturation_sweep.py [--rates 1,2,4,8,16,32] [--duration 15]
        [--users 256] [--max-tokens 256] [--no-saturation-stop]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from sparkload.records.requests_files import read_records

ROOT = Path(__file__).resolve().parent.parent
LOCUST = str(Path(sys.executable).with_name("locust"))


def backlog_peak(records: list[dict]) -> int:
    """The most requests due and not yet answered at once (+1 at due, -1 at answer)."""
    events = []
    for record in records:
        due = record.get("scheduled_time") or record["start_time"]
        events += [(due, 1), (record["start_time"] + (record.get("latency") or 0.0), -1)]
    peak = backlog = 0
    for _, step in sorted(events):
        backlog += step
        peak = max(peak, backlog)
    return peak


def achieved(records: list[dict], time_scale: float) -> float:
    """Answered requests per target second over first send to last answer."""
    ok = [r for r in records if r["status"] == "ok"]
    if not ok:
        return 0.0
    first = min(r["start_time"] for r in records)
    last = max(r["start_time"] + r["latency"] for r in ok)
    return len(ok) / ((last - first) * time_scale)


def seconds(start: str, end: str | None) -> float:
    if not end:
        return float("nan")
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="1,2,4,8,16,32")
    parser.add_argument("--duration", default="15")
    parser.add_argument("--users", default="256")
    parser.add_argument("--max-tokens", default="256")
    parser.add_argument("--no-saturation-stop", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plan = [
            "--headless",
            "--arrival-rate",
            args.rates,
            "--arrival-duration",
            args.duration,
            "--arrival-users",
            args.users,
            "--max-tokens",
            args.max_tokens,
            *(["--no-saturation-stop"] if args.no_saturation_stop else []),
        ]
        command = [LOCUST, "-f", str(ROOT / "locustfiles" / "chat.py"), *plan, "--results-dir", tmp]
        began = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        total = time.monotonic() - began
        if done.returncode != 0:
            raise SystemExit(f"the run failed ({done.returncode}):\n{done.stderr[-2000:]}")
        run_dir = next(Path(tmp).iterdir())
        manifest = json.loads((run_dir / "manifest.json").read_text())
        records = [r for r in read_records(run_dir) if r["phase"] == "measure"]
    print("locust -f locustfiles/chat.py " + " ".join(plan))
    heading = ("offered/s", "achieved/s", "n", "backlog peak", "unsent", "wall s", "verdict")
    print(
        f"{heading[0]:>9} {heading[1]:>10} {heading[2]:>5} {heading[3]:>12} {heading[4]:>6} "
        f"{heading[5]:>6}  {heading[6]}"
    )
    for level in manifest["levels"]:
        mine = [r for r in records if r["level_index"] == level["index"]]
        verdict = level["saturation"] or "ok"
        if level["index"] == manifest["saturated_at"]:
            verdict = f"OVER-SATURATED, sweep stopped: {verdict}"
        elif level["saturation"]:
            verdict = f"OVER-SATURATED (flag): {verdict}"
        print(
            f"{level['arrival_rate']:>9g} {achieved(mine, manifest['time_scale']):>10.2f} "
            f"{len(mine):>5} {backlog_peak(mine):>12} {level['unsent']:>6} "
            f"{seconds(level['started_at'], level['ended_at']):>6.1f}  {verdict}"
        )
    not_run = [r for r in manifest["arrival"]["rates"][len(manifest["levels"]) :]]
    print(
        f"not run: {', '.join(f'{r:g}/s' for r in not_run) or 'none'}; "
        f"saturated_at: {manifest['saturated_at']}; whole run {total:.1f} s"
    )


if __name__ == "__main__":
    main()
