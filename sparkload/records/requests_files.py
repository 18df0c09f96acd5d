"""Which files of a run directory hold its records, how the master writes them as they arrive,
and the one reader of them, whatever version of sparkload wrote them.

A run directory holds its records in ``requests.parquet/``, a directory of Parquet files (one
Arrow dataset: pyarrow, Polars and DuckDB read the directory, or ``*.parquet`` in it, as one
table): ``part-000000.parquet``, ``part-000001.parquet``, ... in the order the records arrived,
each of at most ``PART_ROWS`` records, zstd-compressed, written whole and renamed into place (a
reader never sees half of one). The records of the part being filled are also appended, as they
arrive, to ``_pending-<n>.jsonl`` beside it, as JSON lines flushed whole, as ``requests.jsonl``
always was: a run killed at any moment loses no record it took (the reader reads the pending
lines of a part that was never written, and skips and counts a torn last line). A part's pending
file is removed once the part is in place, and a reader ignores it if both are there (a kill
between the two). A part is built from its pending file's lines (Arrow's JSON reader, in C++),
so the master's cost a record as it arrives is about that of the JSON line, and it holds in
memory only each open part's records' ``extra`` and unknown fields, as JSON text.

Why not one Parquet file: its footer, written at the close, is what makes it readable, so a run
killed before its close would leave nothing readable. Why not Arrow's IPC stream, which is
readable to its last whole batch: its compression is per buffer, without Parquet's encodings,
and came out several times larger here.

Run directories of earlier versions hold ``requests.jsonl`` (one JSON record a line) instead;
``RequestsReader`` reads both, into the same record dicts or the same Arrow columns.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import BinaryIO, Protocol

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from sparkload.records.columnar import SCHEMA, lines_table, side_columns, to_batch, to_records
from sparkload.records.vocabulary import REQUESTS_FILE, REQUESTS_PARQUET

PART_ROWS = 65_536  # records a part holds (one row group); the most a writer keeps in memory
_PART = "part-{:06d}.parquet"
_PENDING = "_pending-{:06d}.jsonl"
_PART_NUMBER = re.compile(r"^(?:part-|_pending-)(\d+)\.(?:parquet|jsonl)$")
_CHUNK_BYTES = 16 << 20  # JSON lines are parsed in ~16 MB batches to bound peak memory
# Floats are split into byte streams before zstd (their exponents compress apart from their
# mantissas), not dictionary-encoded (measured times hardly repeat): a realistic run's records
# took 180 bytes each on disk, 198 with Parquet's default dictionaries, 1,348 as JSON lines.
_FLOATS = [field.name for field in SCHEMA if pa.types.is_floating(field.type)]
_NOT_FLOATS = [field.name for field in SCHEMA if field.name not in _FLOATS]


def has_records(run_dir: Path) -> bool:
    """The directory holds records, in either layout."""
    return (run_dir / REQUESTS_PARQUET).is_dir() or (run_dir / REQUESTS_FILE).is_file()


def records_name(run_dir: Path) -> str:
    """How messages name the records of ``run_dir``: the columnar directory, else the old file."""
    return REQUESTS_PARQUET if (run_dir / REQUESTS_PARQUET).is_dir() else REQUESTS_FILE


def record_line(record: dict) -> bytes:
    """One record as one line of JSON: orjson, a tenth of the stdlib's cost per record. Keys
    that are not strings are written as strings, as ``json`` does."""
    return orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)


class Building(Protocol):
    """A part being built elsewhere (a thread): ``result`` waits for it, raising its error."""

    def result(self) -> object: ...


# Runs a part's building (a callable of no arguments) somewhere, at once or in a thread.
PartBuilder = Callable[[Callable[[], None]], Building]


class RequestsWriter:
    """The records of one run directory, appended as they arrive (see the module's note).

    A full part is built by ``build`` (None: at once, in the caller): the master passes one
    that runs it in a thread, as Arrow's reader and Parquet's writer run without the GIL, so
    taking records goes on meanwhile. ``close`` waits for every part."""

    def __init__(
        self, run_dir: Path, part_rows: int = PART_ROWS, build: PartBuilder | None = None
    ) -> None:
        self.path = run_dir / REQUESTS_PARQUET
        self.path.mkdir(exist_ok=True)
        self.part_rows = part_rows
        self._build = build
        self._building: list[Building] = []
        self._part = 0
        self._sides: list[tuple[str | None, str | None]] = []  # side_columns, a record each
        self._pending: BinaryIO | None = None

    def append(self, records: list[dict]) -> None:
        """Take records: their lines flushed to the pending file at once (all the master pays
        a record but its two JSON text columns: ``records_write_cost.py`` measures it)."""
        while records:
            room = self.part_rows - len(self._sides)
            taken, records = records[:room], records[room:]
            if self._pending is None:
                self._pending = open(self.path / _PENDING.format(self._part), "ab")  # noqa: SIM115
            self._pending.write(b"".join(record_line(r) for r in taken))
            self._pending.flush()
            self._sides.extend(map(side_columns, taken))
            if len(self._sides) >= self.part_rows:
                self.write_part()

    def write_part(self) -> None:
        """The records taken since the last part, as the next part (nothing when none)."""
        if not self._sides:
            return
        assert self._pending is not None
        self._pending.close()
        job = partial(_build_part, self.path, self._part, self._sides, self.part_rows)
        if self._build is None:
            job()
        else:
            self._building.append(self._build(job))
        self._pending = None
        self._sides = []
        self._part += 1

    def close(self) -> None:
        """Write what is left as a part, and wait for every part (records taken after are
        written as parts of their own)."""
        self.write_part()
        for building in self._building:
            building.result()
        self._building = []


def _build_part(
    directory: Path, number: int, sides: list[tuple[str | None, str | None]], rows: int
) -> None:
    """Part ``number`` from its pending file's lines, by Arrow's JSON reader (by ``to_batch``
    where a value does not fit its column), written whole and renamed into place; then its
    pending file removed."""
    pending = directory / _PENDING.format(number)
    table = lines_table(str(pending), sides)
    if table is None:
        records, _ = parse_lines(pending.read_bytes().splitlines())
        table = pa.Table.from_batches([to_batch(records)], schema=SCHEMA)
    name = _PART.format(number)
    tmp = directory / ("_" + name + ".tmp")
    pq.write_table(
        table,
        tmp,
        row_group_size=rows,
        compression="zstd",
        use_dictionary=_NOT_FLOATS,
        use_byte_stream_split=_FLOATS,
    )
    os.replace(tmp, directory / name)
    pending.unlink()


class RequestsReader:
    """A run directory's records in arrival order, from either layout, in bounded batches.

    ``skipped`` counts the lines that did not parse as a JSON object (a killed run's torn last
    line) once a reading is done; ``skipped_in`` says in which file (relative to the run)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.skipped = 0
        self.skipped_in: dict[str, int] = {}

    def _sources(self) -> list[Path]:
        """The files to read, in order: the parts, then pending lines of parts never written;
        or the old layout's one file."""
        directory = self.run_dir / REQUESTS_PARQUET
        if not directory.is_dir():
            return [self.run_dir / REQUESTS_FILE]
        parts: dict[int, Path] = {}
        pending: dict[int, Path] = {}
        for path in directory.iterdir():
            if match := _PART_NUMBER.match(path.name):
                number = int(match.group(1))
                (parts if path.suffix == ".parquet" else pending)[number] = path
        pending = {n: path for n, path in pending.items() if n not in parts}
        return [{**parts, **pending}[n] for n in sorted(parts.keys() | pending.keys())]

    def dict_batches(self) -> Iterator[list[dict]]:
        """The records as dicts (``RequestRecord.to_dict``'s), a batch at a time."""
        for source in self._read():
            if isinstance(source, pa.RecordBatch):
                yield list(to_records(source))
            else:
                yield source

    def arrow_batches(self, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        """The records as record batches of ``columns`` (all: None) of ``columnar.SCHEMA``."""
        for source in self._read(columns):
            if isinstance(source, pa.RecordBatch):
                yield source
            else:
                batch = to_batch(source)
                yield batch if columns is None else batch.select(columns)

    def records(self) -> list[dict]:
        """Every record as a dict (small runs: tests, tools)."""
        return [record for batch in self.dict_batches() for record in batch]

    def _read(self, columns: list[str] | None = None) -> Iterator[pa.RecordBatch | list[dict]]:
        """Each source's records: a part's as record batches, JSON lines' as dicts. A pending
        file gone by the time it is opened was written as its part meanwhile: that is read."""
        self.skipped, self.skipped_in = 0, {}
        for source in self._sources():
            if source.suffix == ".jsonl":
                try:
                    handle = source.open("rb")
                except FileNotFoundError:
                    match = _PART_NUMBER.match(source.name)
                    if match is None:
                        continue  # the old layout's file, not there
                    source = source.with_name(_PART.format(int(match.group(1))))
                else:
                    with handle:
                        yield from self._lines(handle, source)
                    continue
            yield from _parquet_batches(source, columns)

    def _lines(self, handle: BinaryIO, path: Path) -> Iterator[list[dict]]:
        while lines := handle.readlines(_CHUNK_BYTES):
            records, bad = parse_lines(lines)
            if bad:
                self.skipped += bad
                name = str(path.relative_to(self.run_dir))
                self.skipped_in[name] = self.skipped_in.get(name, 0) + bad
            if records:
                yield records


def _parquet_batches(path: Path, columns: list[str] | None) -> Iterator[pa.RecordBatch]:
    """A part's record batches of ``columns`` (None: every column of ``SCHEMA``); a column the
    part lacks (written by a version before that field was a record's) reads as nulls."""
    wanted = SCHEMA.names if columns is None else columns
    try:
        part = pq.ParquetFile(path)
        present = set(part.schema_arrow.names)
        stored = [name for name in wanted if name in present]
        for batch in part.iter_batches(batch_size=PART_ROWS, columns=stored):
            if len(stored) < len(wanted):
                batch = _with_nulls(batch, wanted)
            yield batch
    except (OSError, pa.ArrowException) as exc:
        raise ValueError(f"{path}: not a readable Parquet part ({exc})") from None


def _with_nulls(batch: pa.RecordBatch, names: list[str]) -> pa.RecordBatch:
    """``batch`` with the columns of ``names`` it lacks as nulls of their ``SCHEMA`` type."""
    have = set(batch.schema.names)
    fields = [batch.schema.field(name) if name in have else SCHEMA.field(name) for name in names]
    return pa.RecordBatch.from_arrays(
        [
            batch.column(name) if name in have else pa.nulls(batch.num_rows, field.type)
            for name, field in zip(names, fields, strict=True)
        ],
        schema=pa.schema(fields, metadata=batch.schema.metadata),
    )


def parse_lines(lines: list[bytes]) -> tuple[list[dict], int]:
    """The JSON objects among ``lines`` and how many lines were not one (blank lines aside)."""
    parsed, bad = [], 0
    for line in lines:
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            bad += 1
            continue
        if isinstance(obj, dict):
            parsed.append(obj)
        else:
            bad += 1
    return parsed, bad


def read_records(run_dir: Path) -> list[dict]:
    """Every record of a run directory, either layout, as dicts."""
    return RequestsReader(run_dir).records()
