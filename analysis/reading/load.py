"""Results directories in, one column-oriented table of records plus run metadata out.

Reading speed decides the whole post-processor's speed at 1,000,000 records. Measured on this
project's 2-core machine with 1,000,000 records (790 MB of JSON lines): orjson line by line into
column lists took 7.7 s and 660 MB peak; pyarrow's JSON reader took 2.1 s and 760 MB but is a
45 MB dependency and rejects a whole file on one torn line; ``pandas.read_json(lines=True)``
builds every field of every record. orjson per line wins on robustness (a killed run's partial
last line is skipped and counted, never fatal) at a speed well inside the budget.

Only the fields the metrics, the workload tables, the time slices and the request timelines need
are kept, as float/bool arrays (the workload fields of ``RequestRecord.extra`` as
``extra_<name>`` columns); durations are converted to simulated time here, once, so that nothing
downstream has to know about time scales. This is the only reader of the records (through
``records.requests_files``, which reads the columnar ``requests.parquet`` and the JSON lines of
earlier versions' ``requests.jsonl`` alike) and of manifest.json in the analysis.

An open-loop run (``mode == "arrival"``) keeps all its levels at one pool size C, which says
nothing about the load: its levels differ by offered rate. Each record gets its level's offered
rate here (``offered_rps``, in simulated time like every other figure; NaN for closed-loop runs),
which is what the metrics tell open-loop levels apart by.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.reading import (
    arrow_columns,
    baselines,
    derived_columns,
    json_columns,
    locust_csv,
    pooled,
    sustained,
)
from analysis.reading.record_fields import COLUMNS, EXTRA_DURATIONS
from sparkload.records import (
    DURATION_FIELDS,
    MANIFEST_FILE,
    PHASE_MEASURE,
    RATE_FIELDS,
    REQUESTS_FILE,
    REQUESTS_PARQUET,
    SCHEMA_VERSION,
    SERVER_METRICS_FILE,
    STATUS_COMPLETE,
    STATUS_OK,
    TARGET_TIME,
    ArrivalEntry,
    LevelEntry,
    Manifest,
    read_manifest,
)
from sparkload.records.requests_files import RequestsReader, has_records, records_name

SOURCE_RECORDS = "records"
SOURCE_LOCUST = "locust-csv"
MODE_ARRIVAL = "arrival"  # Manifest.mode of an open-loop run
_TIMESTAMP_PREFIX = re.compile(r"^\d{8}T?\d{4,6}Z?[-_]")


@dataclass
class Run:
    """One results directory and its manifest (a default one when the directory has none)."""

    path: Path
    source: str
    manifest: Manifest
    has_manifest: bool = True
    records: int = 0
    skipped_lines: int = 0
    notes: list[str] = field(default_factory=list)
    # The wall-clock second (epoch, the master's clock, as the snapshots of server_metrics.jsonl
    # are timed) that the records' start_time counts from once loaded: their first send
    time_origin: float = float("nan")

    @property
    def label(self) -> str:
        return self.manifest.label

    @property
    def variant(self) -> str:
        return self.manifest.variant or self.label

    @property
    def tp(self) -> int | None:
        return self.manifest.tp

    @property
    def nodes(self) -> int | None:
        return self.manifest.nodes

    @property
    def time_scale(self) -> float:
        return self.manifest.time_scale

    @property
    def status(self) -> str:
        return self.manifest.status if self.has_manifest else "unknown (no manifest)"

    @property
    def incomplete(self) -> bool:
        """The manifest says the run did not finish (a run without a manifest cannot say)."""
        return self.has_manifest and self.status != STATUS_COMPLETE

    @property
    def open_loop(self) -> bool:
        """Requests were sent at offered rates (arrivals), not by a fixed number of users."""
        return self.manifest.mode == MODE_ARRIVAL

    def offered_rates(self) -> dict[int, float]:
        """Level index → offered rate (requests/s, simulated time) of an open-loop run.

        From each level's ``arrival_rate``; manifests written before rates were per level give
        ``arrival.rates`` (one per level) or ``arrival.rate`` (a single level). Rates are in the
        target's time when ``arrival.time`` says so (``TARGET_TIME``, sparkload since issue 18);
        before that they were per real second, and are turned into simulated time here.
        """
        arrival = self.manifest.arrival or ArrivalEntry()
        rates = dict(enumerate(arrival.rates))
        if arrival.rate is not None:
            rates.setdefault(0, arrival.rate)
        rates.update(
            {
                level.index: level.arrival_rate
                for level in self.manifest.levels
                if level.arrival_rate is not None
            }
        )
        divisor = self.time_scale if arrival.time != TARGET_TIME else 1.0
        return {index: rate / divisor for index, rate in rates.items() if rate}

    def level_name(self, level: LevelEntry) -> str:
        """How messages name one of the run's levels: by C, or by offered rate when open loop."""
        if not self.open_loop:
            return describe_level(level.concurrency, None)
        return describe_level(None, self.offered_rates().get(level.index, np.nan))

    @property
    def server_metrics_path(self) -> Path | None:
        path = self.path / SERVER_METRICS_FILE
        return path if path.is_file() else None


@dataclass
class Dataset:
    """Everything loaded: raw records of all runs, Locust-CSV level rows, and the runs."""

    records: pd.DataFrame
    csv_levels: pd.DataFrame
    runs: list[Run]
    skipped_runs: list[str] = field(default_factory=list)
    baselines: pd.DataFrame = field(default_factory=pd.DataFrame)  # --tenant-baselines' levels
    sustained: pd.DataFrame = field(default_factory=pd.DataFrame)  # --sustain's levels

    @property
    def labels(self) -> list[str]:
        """Labels in order of first appearance (the order the user gave the runs in)."""
        return list(dict.fromkeys(run.label for run in self.runs))


def describe_level(concurrency: int | None, offered_rps: float | None) -> str:
    """A level as reports and messages name it: "C=4" (closed loop) or "offered 150 req/s"."""
    if concurrency is not None:
        return f"C={concurrency}"
    return f"offered {offered_rps:.4g} req/s"


def _holds_records(path: Path) -> bool:
    return has_records(path) or (path / MANIFEST_FILE).is_file()


def _is_run_dir(path: Path) -> bool:
    return _holds_records(path) or locust_csv.find_stats_csv(path) is not None


def discover(paths: list[str | Path]) -> list[Path]:
    """Run directories named directly, or found one level below a directory such as results/.

    A directory with run directories below it is their parent, not a run, even when it also
    holds Locust CSVs (``--csv results/loc`` writes them beside the run directories); only a
    directory with a manifest or records of its own, or Locust CSVs and no runs below, is a run.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw).resolve()  # "." and "..": the directory's own name in the report
        if not path.is_dir():
            raise InputError(f"no such directory: {path}")
        if _holds_records(path):
            found.append(path)
            continue
        children = sorted(p for p in path.iterdir() if p.is_dir() and _is_run_dir(p))
        if not children and locust_csv.find_stats_csv(path) is not None:
            children = [path]
        if not children:
            raise InputError(
                f"{path}: no {REQUESTS_PARQUET}, {REQUESTS_FILE}, {MANIFEST_FILE} or Locust "
                "*_stats.csv here "
                "or in its subdirectories"
            )
        found.extend(children)
    return list(dict.fromkeys(found))


def _read_manifest(path: Path, notes: list[str]) -> Manifest | None:
    if not (path / MANIFEST_FILE).is_file():
        notes.append(f"no {MANIFEST_FILE}: label taken from the directory name")
        return None
    try:
        return read_manifest(path)
    except (OSError, ValueError) as exc:
        notes.append(f"unreadable {MANIFEST_FILE} ({exc.__class__.__name__}): ignored")
        return None


def _checked(manifest: Manifest, notes: list[str]) -> Manifest:
    """The manifest with a note for each figure it could not give: a value of the wrong type
    (the field holds its default, the value stays in ``unknown``) or out of range."""
    if manifest.unknown.get("time_scale") is not None:
        notes.append("time_scale unreadable: 1.0 assumed")
    manifest.time_scale = manifest.time_scale or 1.0
    width = manifest.slice_duration
    if "slice_duration" in manifest.unknown or (width is not None and not 0 <= width < np.inf):
        written = manifest.unknown.get("slice_duration", width)
        notes.append(f"slice_duration {written!r} unreadable: no time slices")
        manifest.slice_duration = None
    if manifest.schema != SCHEMA_VERSION:
        notes.append(f"manifest schema {manifest.schema} (this analysis reads {SCHEMA_VERSION})")
    return manifest


def _level_notes(run: Run) -> list[str]:
    """What the manifest says went wrong per level: missing records, client and stream flags,
    an over-saturated level (where a sweep stopped, or flagged)."""
    notes = []
    for level in run.manifest.levels:
        name = run.level_name(level)
        if level.expected is not None and level.received < level.expected:
            notes.append(f"level {name}: {level.received} of {level.expected} records received")
        notes += [f"level {name}: client flag {flag}" for flag in level.client_flags]
        notes += [f"level {name}: stream flag {flag}" for flag in level.stream_flags]
        if level.saturation and level.index == run.manifest.saturated_at:
            notes.append(
                f"level {name}: over-saturated, its arrivals stopped early ({level.unsent} "
                f"unsent) and the sweep ended there: {level.saturation}"
            )
        elif level.saturation:
            notes.append(
                f"level {name}: over-saturated (flagged, the plan ran on): {level.saturation}"
            )
    return notes


def _run_from_manifest(path: Path, source: str) -> Run:
    notes: list[str] = []
    manifest = _read_manifest(path, notes)
    found = manifest is not None
    manifest = _checked(manifest, notes) if manifest is not None else Manifest(label="")
    manifest.label = manifest.label or _TIMESTAMP_PREFIX.sub("", path.name) or path.name
    run = Run(path=path, source=source, manifest=manifest, has_manifest=found, notes=notes)
    run.notes += _level_notes(run)
    return run


def _first_send(batches: list[dict]) -> float:
    """The run's first send, a wall-clock second (NaN: no record has a start time)."""
    firsts = [
        float(np.nanmin(starts))
        for columns in batches
        if np.isfinite(starts := np.asarray(columns["start_time"], np.float64)).any()
    ]
    return min(firsts) if firsts else float("nan")


def _to_simulated_time(columns: dict[str, np.ndarray], time_scale: float, origin: float) -> None:
    """In place: ``scale_to_simulated_time`` for whole columns, start times included (counted
    from ``origin``, the run's first send)."""
    if np.isfinite(origin):
        columns["start_time"] = (columns["start_time"] - origin) * time_scale
        columns["scheduled_time"] = (columns["scheduled_time"] - origin) * time_scale
    if time_scale == 1:
        return
    for name in (*DURATION_FIELDS, *(f"extra_{name}" for name in EXTRA_DURATIONS)):
        if name in columns:
            columns[name] = columns[name] * time_scale
    for name in RATE_FIELDS:
        if name in columns:
            columns[name] = columns[name] / time_scale


def _offered_rps(rates: dict[int, float], level_index: np.ndarray) -> np.ndarray:
    """Per record, the offered rate of its level (open loop; NaN when unknown or closed loop)."""
    return pd.Series(level_index).map(rates).to_numpy(np.float64, na_value=np.nan)


def _batches(reader: RequestsReader) -> Iterator[dict]:
    """The run's records a batch at a time as column arrays (``record_fields.COLUMNS``): a
    columnar run's straight from its columns, an earlier version's JSON lines record by record
    (lines that do not parse: counted by the reader)."""
    if (reader.run_dir / REQUESTS_PARQUET).is_dir():
        made = map(arrow_columns.columns, reader.arrow_batches(arrow_columns.WANTED))
    else:
        made = map(json_columns.columns, reader.dict_batches())
    for columns in made:
        yield {name: columns[name] for name in COLUMNS}


def _load_records(run: Run, run_index: int) -> list[dict] | None:
    """A run's records as batches of columns (``pooled.frame`` makes one frame of every run's
    batches, so no column is ever held twice), None without any."""
    reader = RequestsReader(run.path)
    rates = run.offered_rates() if run.open_loop else {}
    batches, no_level, no_rate = [], 0, 0
    for columns in _batches(reader):
        columns["offered_rps"] = _offered_rps(rates, columns["level_index"])
        missing = ~np.isfinite(columns["level"])
        unrated = run.open_loop & ~missing & ~np.isfinite(columns["offered_rps"])
        no_level, no_rate = no_level + int(missing.sum()), no_rate + int(unrated.sum())
        if (skip := np.asarray(missing | unrated)).any():
            columns = {name: values[~skip] for name, values in columns.items()}
        if len(columns["level"]):
            batches.append(columns)
    run.skipped_lines = reader.skipped
    for name, bad in reader.skipped_in.items():
        run.notes.append(f"{bad} unparsable line(s) in {name} skipped")
    if no_level:
        run.notes.append(f"{no_level} record(s) without a level skipped")
    if no_rate:
        run.notes.append(f"{no_rate} record(s) of open-loop levels without an offered rate skipped")
    run.records = sum(len(columns["level"]) for columns in batches)
    if run.records == 0:
        return None
    run.time_origin = _first_send(batches)
    for columns in batches:
        _to_simulated_time(columns, run.time_scale, run.time_origin)
        columns["itl"] = derived_columns.measured_itl(columns)
    derived_columns.add_expected_cached(batches)
    for number, columns in enumerate(batches):
        columns = {name: pooled.absent_as_sparse(values) for name, values in columns.items()}
        columns["level"] = columns["level"].astype(np.int32)  # a C: 40 MB less than int64 at 10M
        columns["error_kind"] = pd.Categorical(columns["error_kind"])
        batches[number] = {"run": np.full(len(columns["level"]), run_index, np.int16), **columns}
    return batches


def load_with_records(path: str | Path) -> Dataset:
    """One run directory that must hold per-request records (a comparison draws its intervals
    from them); InputError otherwise."""
    dataset = load([path])
    if dataset.records.empty or "level" not in dataset.records:
        raise InputError(
            f"{path}: no per-request records ({REQUESTS_PARQUET} or {REQUESTS_FILE}; Locust "
            "CSVs alone have no requests to draw from)"
        )
    return dataset


def load(paths: list[str | Path], progress=lambda message: None) -> Dataset:
    """Load every run under ``paths``; raise InputError when nothing usable is there."""
    runs: list[Run] = []
    batches_of_runs: list[dict] = []  # every run's batches of columns, in run order
    csv_frames: list[pd.DataFrame] = []
    skipped: list[str] = []
    for path in discover(paths):
        if has_records(path):
            run = _run_from_manifest(path, SOURCE_RECORDS)
            batches = _load_records(run, len(runs))
            if batches is None:
                skipped.append(f"{path}: no records in {records_name(path)}")
                continue
            batches_of_runs += batches
        elif (stats := locust_csv.find_stats_csv(path)) is not None:
            run = _run_from_manifest(path, SOURCE_LOCUST)
            try:
                levels = locust_csv.read_levels(stats, run.notes)
            except (KeyError, ValueError) as exc:  # pandas' ParserError is a ValueError
                raise InputError(
                    f"{stats}: not a Locust stats CSV ({exc.__class__.__name__}: {exc})"
                ) from None
            if levels.empty:
                skipped.append(f"{path}: no usable rows in {stats.name}")
                continue
            levels.insert(0, "label", run.label)
            run.records = int(levels["n"].sum() + levels["failures"].sum())
            csv_frames.append(levels)
        else:
            skipped.append(
                f"{path}: no {REQUESTS_PARQUET}, no {REQUESTS_FILE} and no Locust *_stats.csv"
            )
            continue
        runs.append(run)
        progress(f"read {path.name}: {run.records:,} records ({run.source})")
    if not runs:
        raise InputError("no records: " + "; ".join(skipped))
    labels = list(dict.fromkeys(run.label for run in runs))
    if batches_of_runs:
        records = pooled.frame(batches_of_runs)
        # each run's label as a code: categories from codes, no text per record to hash
        label_codes = np.array([labels.index(run.label) for run in runs], dtype=np.int32)
        records.insert(
            1,
            "label",
            pd.Categorical.from_codes(label_codes[records["run"].to_numpy()], categories=labels),
        )
    else:
        records = pd.DataFrame(
            {"run": pd.Series(dtype=np.int16), "label": pd.Categorical([], categories=labels)}
        )
    csv_levels = pd.concat(csv_frames, ignore_index=True) if csv_frames else pd.DataFrame()
    records, apart = baselines.split(records)
    records, held = sustained.split(records, [run.manifest for run in runs])
    return Dataset(records, csv_levels, runs, skipped, apart, held)


@dataclass(frozen=True)
class KeptOutput:
    """One measured, answered request's reply as ``--keep-outputs`` kept it."""

    level: int  # its level's concurrency
    level_index: int
    prompt_key: str
    text: str
    chunks: tuple[int, ...]  # characters of each text chunk, in order


def load_outputs(path: str | Path) -> tuple[Run, list[KeptOutput]]:
    """A run's kept outputs (measured requests that were answered, in the file's order);
    InputError for a directory without records or a run that kept none (no --keep-outputs)."""
    path = Path(path)
    if not has_records(path):
        raise InputError(f"{path}: no {REQUESTS_PARQUET} or {REQUESTS_FILE}: not a run directory")
    run = _run_from_manifest(path, SOURCE_RECORDS)
    if run.manifest.outputs_kept is not True:
        raise InputError(f"{path}: outputs were not kept (run it with --keep-outputs)")
    outputs: list[KeptOutput] = []
    reader = RequestsReader(path)
    for records in reader.dict_batches():
        outputs += [kept for r in records if (kept := _kept(r)) is not None]
    run.skipped_lines = reader.skipped
    return run, outputs


def _kept(r: dict) -> KeptOutput | None:
    key, text, level, chunks = (
        r.get(k) for k in ("prompt_key", "output_text", "level", "output_chunks")
    )
    if r.get("phase") != PHASE_MEASURE or r.get("status") != STATUS_OK:
        return None
    if not (isinstance(key, str) and isinstance(text, str) and isinstance(level, int)):
        return None
    sizes = tuple(n for n in chunks if isinstance(n, int)) if isinstance(chunks, list) else ()
    return KeptOutput(level, int(r.get("level_index") or 0), key, text, sizes)
