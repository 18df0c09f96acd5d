"""One reader of a user's files: plain or gzip, UTF-8 with or without a byte order mark, JSON,
JSON lines or CSV, and whatever is wrong one line naming the option, the file and the line.
Every option that names a file reads it here, so each takes a .gz alike."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs import files
from sparkload.inputs.agent_traces import load_recorded
from sparkload.inputs.prompts import load_prompts
from sparkload.inputs.schemas import read_schema
from sparkload.inputs.tools import load_tools
from sparkload.inputs.traces import load_trace
from sparkload.quality.datasets import read_dataset

FLAG = "--prompts"


def one_line(error: pytest.ExceptionInfo[ConfigError]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_a_gzip_file_reads_as_its_plain_text_and_keeps_the_stored_bytes_digest(tmp_path):
    packed = gzip.compress(b'{"a": 1}\n')
    (tmp_path / "d.jsonl.gz").write_bytes(packed)
    file = files.read(FLAG, tmp_path / "d.jsonl.gz")
    assert (file.text, file.suffix) == ('{"a": 1}\n', ".jsonl")
    assert file.sha256 == hashlib.sha256(packed).hexdigest()


def test_a_gzip_file_saved_without_its_suffix_is_known_by_its_magic_number(tmp_path):
    (tmp_path / "d.jsonl").write_bytes(gzip.compress(b'{"a": 1}\n'))
    assert files.read(FLAG, tmp_path / "d.jsonl").text == '{"a": 1}\n'


def test_a_byte_order_mark_is_accepted_and_dropped(tmp_path):
    (tmp_path / "d.json").write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert files.read(FLAG, tmp_path / "d.json").json() == {"a": 1}


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("nowhere.txt", None, "--prompts: no such file: {path}"),
        ("folder", "dir", "--prompts: {path} is a directory, not a file"),
        ("latin.txt", b"caf\xe9\n", "--prompts: {path} is not UTF-8 text"),
        ("broken.jsonl.gz", b"not gzip at all", "--prompts: {path} is not gzip-compressed"),
        ("cut.jsonl.gz", gzip.compress(b'{"a": 1}\n')[:-6], "--prompts: {path} is not gzip"),
    ],
    ids=["missing", "directory", "not-utf8", "not-gzip", "truncated-gzip"],
)
def test_a_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, name, content, said):
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(ConfigError) as error:
        files.read(FLAG, path)
    assert one_line(error).startswith(said.format(path=path))


def test_json_lines_skip_blank_lines_and_a_bad_one_is_named_by_its_number(tmp_path):
    (tmp_path / "d.jsonl").write_text('{"a": 1}\n\n[2]\n{oops\n')
    file = files.read(FLAG, tmp_path / "d.jsonl")
    rows = file.json_lines()
    assert [next(rows), next(rows)] == [(1, {"a": 1}), (3, [2])]
    with pytest.raises(ConfigError) as error:
        next(rows)
    assert one_line(error) == f"--prompts: {tmp_path / 'd.jsonl'} line 4: not JSON " + (
        "(Expecting property name enclosed in double quotes)"
    )


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_a_corpus_read_line_by_line_reads_as_the_whole_file_does(tmp_path, packed):
    text = b'\xef\xbb\xbf{"a": 1}\n\n[2]\n'
    stored = gzip.compress(text) if packed else text
    (tmp_path / "d.jsonl").write_bytes(stored)
    whole, lines = files.read(FLAG, tmp_path / "d.jsonl"), files.lines(FLAG, tmp_path / "d.jsonl")
    assert list(lines.json_lines()) == list(whole.json_lines()) == [(1, {"a": 1}), (3, [2])]
    assert lines.sha256 == whole.sha256 == hashlib.sha256(stored).hexdigest()
    assert lines.head() == '{"a": 1}\n'


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        (b'{"a": 1}\n{oops\n', "line 2: not JSON"),
        (b'{"a": 1}\n"\xff"\n', "line 2: not UTF-8 text"),
        (gzip.compress(b'{"a": 1}\n' * 50)[:-30], "is not gzip-compressed"),
    ],
    ids=["json", "utf-8", "gzip cut short"],
)
def test_a_corpus_read_line_by_line_names_what_is_wrong_in_one_line(tmp_path, stored, said):
    (tmp_path / "d.jsonl").write_bytes(stored)
    with pytest.raises(ConfigError) as error:
        list(files.lines(FLAG, tmp_path / "d.jsonl").json_lines())
    assert one_line(error).startswith(f"--prompts: {tmp_path / 'd.jsonl'}")
    assert said in one_line(error)


def test_a_corpus_that_is_not_there_is_one_line_naming_it(tmp_path):
    with pytest.raises(ConfigError) as error:
        files.lines(FLAG, tmp_path / "gone.jsonl")
    assert one_line(error) == f"--prompts: no such file: {tmp_path / 'gone.jsonl'}"


def test_a_broken_json_document_is_named_by_the_line_of_its_error(tmp_path):
    (tmp_path / "d.json").write_text('{\n  "a": 1,\n  "b": \n}\n')
    with pytest.raises(ConfigError) as error:
        files.read(FLAG, tmp_path / "d.json").json()
    assert one_line(error) == f"--prompts: {tmp_path / 'd.json'} line 4: not JSON (Expecting value)"


def test_csv_rows_are_numbered_by_the_line_they_end_on(tmp_path):
    (tmp_path / "d.csv").write_text('a,b\n"two\nlines",x\n\nc,d\n')
    rows = list(files.read(FLAG, tmp_path / "d.csv").csv_rows())
    assert rows == [(1, ["a", "b"]), (3, ["two\nlines", "x"]), (4, []), (5, ["c", "d"])]


# ----- every reader takes a gzip file as its plain text ----------------------------------------
def jsonl(*rows: Any) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


TRACE = jsonl(
    {"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [1, 2]},
    {"timestamp": 500, "input_length": 700, "output_length": 8, "hash_ids": [1, 3]},
)
TOOL = {"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}
READERS: dict[str, tuple[str, str, Callable[[Path], Any]]] = {
    "prompts": ("p.jsonl", jsonl({"prompt": "hello"}), lambda p: load_prompts(p).prompts),
    "trace": ("t.jsonl", TRACE, lambda p: load_trace(p).lines),
    "agent-trace": (
        "a.jsonl",
        jsonl({"messages": [{"role": "user", "content": "hi"}]}),
        lambda p: load_recorded(p).sessions,
    ),
    "tools": ("tools.json", json.dumps([TOOL]), lambda p: load_tools(p).tools),
    "schema": (
        "s.json",
        '{"type": "object"}',
        lambda p: read_schema("--response-format", p),
    ),
    "quality-dataset": (
        "g.jsonl",
        jsonl({"question": "1+1?", "answer": "#### 2"}),
        lambda p: read_dataset(p).items,
    ),
}


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_reads_a_gzip_file_as_its_plain_text(tmp_path, reader):
    name, text, read = READERS[reader]
    plain = tmp_path / name
    plain.write_text(text)
    packed = tmp_path / "gz" / (name + ".gz")
    packed.parent.mkdir()
    packed.write_bytes(gzip.compress(text.encode()))
    assert read(packed) == read(plain)
