"""The run directory on disk: manifest.json plus the records, appended as they arrive.

Only the master (or the single local process) writes here. Every batch of records is written and
flushed at once (``records.requests_files``: columnar parts, and the open part's records as
whole JSON lines), so a run killed at any moment keeps every record it took; the manifest is
rewritten atomically (write + rename) at every change.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from gevent import get_hub

from sparkload.errors import ConfigError
from sparkload.records import (
    MANIFEST_FILE,
    QUALITY_FILE,
    SERVER_METRICS_FILE,
    Manifest,
    QualityEntry,
)
from sparkload.records.requests_files import Building, RequestsWriter


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def run_dir_name(label: str, when: datetime | None = None) -> str:
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    safe_label = re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-") or "run"
    return f"{stamp}-{safe_label}"


class ResultsWriter:
    def __init__(self, results_dir: Path, manifest: Manifest) -> None:
        self.path = _create_unique_dir(results_dir, run_dir_name(manifest.label))
        self.manifest = manifest
        self._requests = RequestsWriter(self.path, build=_in_a_thread)
        self._server_metrics: TextIO | None = None
        self.write_manifest()

    def append_records(self, records: list[dict]) -> None:
        self._requests.append(records)

    def append_server_metrics(self, snapshot: dict) -> None:
        if self._server_metrics is None:
            self._server_metrics = open(self.path / SERVER_METRICS_FILE, "a", encoding="utf-8")  # noqa: SIM115
        self._server_metrics.write(json.dumps(snapshot, separators=(",", ":")) + "\n")
        self._server_metrics.flush()

    def write_manifest(self) -> None:
        self._replace(MANIFEST_FILE, json.dumps(self.manifest.to_dict(), indent=2))

    def write_quality(self, entry: QualityEntry) -> None:
        """quality.json (a quality run's, or a load run's ``--quality-probe``)."""
        self._replace(QUALITY_FILE, json.dumps(entry.to_dict(), indent=1))

    def _replace(self, name: str, text: str) -> None:
        """One file of the run directory, replaced atomically (a reader never sees half)."""
        tmp = self.path / (name + ".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        os.replace(tmp, self.path / name)

    def finish(self, status: str) -> None:
        """The run is over (its manifest says so); late records may still be appended. Its
        records taken so far are written as a part (a finished repetition holds none in memory
        while the next one runs)."""
        self._requests.close()
        self.manifest.status = status
        self.manifest.ended_at = utc_now()
        self.write_manifest()

    def close(self, status: str | None = None) -> None:
        """Finish (unless already finished, ``status`` None) and close the files."""
        if status is not None:
            self.finish(status)
        self._requests.close()
        if self._server_metrics is not None:
            self._server_metrics.close()


def _in_a_thread(job: Callable[[], None]) -> Building:
    """Run ``job`` in one of gevent's OS threads (the process's threads are greenlets under
    Locust): building a part takes a second or two of CPU, mostly without the GIL, that the
    master's greenlets would otherwise wait for (``benchmarks/records_write_cost.py``)."""
    return get_hub().threadpool.spawn(job)


def _create_unique_dir(parent: Path, name: str) -> Path:
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for suffix in [""] + [f"-{i}" for i in range(2, 100)]:
            path = parent / (name + suffix)
            try:
                path.mkdir()
                return path
            except FileExistsError:
                continue
    except PermissionError:
        raise ConfigError(
            f"--results-dir: permission denied creating a run directory in {parent}"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"--results-dir: cannot create a run directory in {parent}: {exc.strerror}"
        ) from None
    raise ConfigError(f"--results-dir: too many runs named {name} in {parent}")


def check_writable(results_dir: Path) -> None:
    """Fail early (before any load is sent) when results cannot be written."""
    probe = results_dir
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"--results-dir: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(f"--results-dir: permission denied: cannot write in {probe}")
