"""``sparkload export --jsonl RUN_DIR [--out FILE]``: a run directory's records as JSON lines,
one record a line with the fields earlier versions' ``requests.jsonl`` had, for tools that read
lines (jq, a spreadsheet import, a script of one's own). Either layout is read, a batch at a
time, so a run of millions of records is exported in bounded memory.

A command, so nothing of a run imports it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

from sparkload.records import EXIT_BAD_INPUT, REQUESTS_FILE, REQUESTS_PARQUET
from sparkload.records.requests_files import RequestsReader, has_records, record_line


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line and exit 2, as every sparkload command says bad input."""
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def parser() -> argparse.ArgumentParser:
    command = _Parser(
        prog="sparkload export",
        description="Write a run directory's records in another format (JSON lines).",
    )
    command.add_argument(
        "--jsonl",
        action="store_true",
        required=True,
        help="as JSON lines, one record a line (the fields of earlier versions' requests.jsonl)",
    )
    command.add_argument("run_dir", metavar="RUN_DIR", type=Path, help="one run directory")
    command.add_argument(
        "--out", metavar="FILE", type=Path, help="write here (default: standard output)"
    )
    return command


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    run_dir: Path = args.run_dir
    if not run_dir.is_dir():
        return _bad(f"{run_dir}: no such directory")
    if not has_records(run_dir):
        return _bad(f"{run_dir}: no {REQUESTS_PARQUET} or {REQUESTS_FILE}: not a run directory")
    reader = RequestsReader(run_dir)
    try:
        out = sys.stdout.buffer if args.out is None else args.out.open("wb")
    except OSError as exc:
        return _bad(f"--out: cannot write {args.out}: {exc.strerror}")
    written = 0
    try:
        for records in reader.dict_batches():
            out.write(b"".join(record_line(record) for record in records))
            written += len(records)
    except ValueError as exc:  # a damaged part
        return _bad(str(exc))
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 0
    finally:
        if args.out is not None:
            out.close()
    for name, bad in reader.skipped_in.items():
        sys.stderr.write(f"sparkload export: {bad} unparsable line(s) in {name} skipped\n")
    if args.out is not None:
        sys.stderr.write(f"sparkload export: {written} records to {args.out}\n")
    return 0


def _bad(message: str) -> int:
    sys.stderr.write(f"sparkload export: error: {message}\n")
    return EXIT_BAD_INPUT
