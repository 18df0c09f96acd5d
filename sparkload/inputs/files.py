"""A user's input file read once, the same way for every option that names one.

Prompts, datasets, traces, agent traces, tools, schemas and quality datasets are all read here:
plain or gzip-compressed (a name ending ``.gz``: ``trace.jsonl.gz``, or any name whose bytes
start with gzip's magic number: a download saved without its suffix), decoded as UTF-8 (a byte
order mark, as Windows editors write, is accepted and dropped), then parsed as one JSON
document, JSON lines or CSV; a corpus too large to hold as text is read line by line
(``lines``). Whatever is wrong is one ``ConfigError`` line that starts with the
option and names the file, and the line where there is one::

    --prompts: no such file: chats.jsonl
    --trace: trace.jsonl line 3: not JSON (Expecting value)

The file's sha256 is of its bytes as stored, so a manifest names the very file given.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from sparkload.errors import ConfigError

GZIP_SUFFIX = ".gz"
GZIP_MAGIC = b"\x1f\x8b"  # the first two bytes of every gzip stream (RFC 1952)


@dataclass(frozen=True)
class UserFile:
    flag: str  # the option that named it, the start of every error's line
    path: Path
    raw: bytes  # as stored (compressed, if it is)
    text: str  # decompressed and decoded

    @property
    def suffix(self) -> str:
        """The format's suffix, lower case, under a ``.gz`` (``a.JSONL.gz`` -> ``.jsonl``)."""
        name = self.path.name.lower().removesuffix(GZIP_SUFFIX)
        return Path(name).suffix

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()

    def at(self, line: int) -> str:
        """Where a line of the file is, as every error names it (``--trace: t.jsonl line 3``)."""
        return f"{self.flag}: {self.path} line {line}"

    def json(self) -> Any:
        """The file as one JSON document; a syntax error names its line."""
        try:
            return json.loads(self.text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{self.at(exc.lineno)}: not JSON ({exc.msg})") from None

    def json_lines(self) -> Iterator[tuple[int, Any]]:
        """(line number, value) of every non-blank line, each line one JSON value."""
        for number, line in enumerate(self.text.splitlines(), 1):
            if line.strip():
                yield number, json_line(line, self.at(number))

    def csv_rows(self) -> Iterator[tuple[int, list[str]]]:
        """(line number, cells) of every row; a quoted cell may hold line breaks, so the
        number is the line the row ends on."""
        reader = csv.reader(io.StringIO(self.text, newline=""))
        try:
            for cells in reader:
                yield reader.line_num, cells
        except csv.Error as exc:
            raise ConfigError(f"{self.at(reader.line_num)}: not CSV ({exc})") from None


def json_line(line: str, where: str) -> Any:
    """One line's JSON value; ``where`` (option, file and line) starts the error's line."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{where}: not JSON ({exc.msg})") from None


@dataclass(frozen=True)
class LineFile:
    """A JSON-lines file too large to hold as text (a corpus of hundreds of megabytes): read line
    by line from disk, each time its lines are asked for."""

    flag: str
    path: Path
    packed: bool  # gzip-compressed

    def at(self, line: int) -> str:
        return f"{self.flag}: {self.path} line {line}"

    @property
    def sha256(self) -> str:
        """Of its bytes as stored (read through once more)."""
        digest = hashlib.sha256()
        with _opened(self.flag, self.path) as stored:
            for chunk in iter(lambda: stored.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()

    def head(self) -> str:
        """Its first non-blank line ("" when it has none)."""
        return next((line for _, line in self._lines() if line.strip()), "")

    def json_lines(self) -> Iterator[tuple[int, Any]]:
        """(line number, value) of every non-blank line, each line one JSON value."""
        for number, line in self._lines():
            if line.strip():
                yield number, json_line(line, self.at(number))

    def _lines(self) -> Iterator[tuple[int, str]]:
        with _opened(self.flag, self.path) as stored:
            handle = gzip.GzipFile(fileobj=stored) if self.packed else stored
            try:
                for number, raw in enumerate(handle, 1):
                    try:
                        yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8")
                    except UnicodeDecodeError:
                        raise ConfigError(f"{self.at(number)}: not UTF-8 text") from None
            except (OSError, EOFError, zlib.error) as exc:
                raise ConfigError(
                    f"{self.flag}: {self.path} is not gzip-compressed ({exc})"
                ) from None


def lines(flag: str, path: Path) -> LineFile:
    """The JSON-lines file at ``path``, to be read line by line (gzip as ``read`` knows it): a
    ConfigError of one line if it cannot be read."""
    with _opened(flag, path) as stored:
        first = stored.read(len(GZIP_MAGIC))
    return LineFile(flag, path, path.name.lower().endswith(GZIP_SUFFIX) or first == GZIP_MAGIC)


@contextmanager
def _opened(flag: str, path: Path) -> Iterator[BinaryIO]:
    """The file opened for reading, its failures one line as ``read`` says them."""
    with _reading(flag, path):
        stored = path.open("rb")
    with stored:
        yield stored


@contextmanager
def _reading(flag: str, path: Path) -> Iterator[None]:
    try:
        yield
    except FileNotFoundError:
        raise ConfigError(f"{flag}: no such file: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"{flag}: {path} is a directory, not a file") from None
    except PermissionError:
        raise ConfigError(f"{flag}: permission denied reading {path}") from None
    except OSError as exc:
        raise ConfigError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from None


def read(flag: str, path: Path) -> UserFile:
    """The file at ``path``, read for option ``flag``: a ConfigError of one line if it cannot be
    read, is not valid gzip (under a ``.gz`` name, or starting with gzip's magic number) or is
    not UTF-8 text (a UTF-8 file never starts with gzip's magic: 0x8b is no first byte)."""
    with _reading(flag, path):
        raw = path.read_bytes()
    data = raw
    if path.name.lower().endswith(GZIP_SUFFIX) or raw.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise ConfigError(f"{flag}: {path} is not gzip-compressed ({exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{flag}: {path} is not UTF-8 text") from None
    return UserFile(flag, path, raw, text)
