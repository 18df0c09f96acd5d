"""``sparkload export --jsonl``: a run directory's records as the JSON lines earlier versions
wrote, from either layout; bad input is one line and exit 2."""

from __future__ import annotations

import json

import pytest

from sparkload.cli import main
from sparkload.records import EXIT_BAD_INPUT, REQUESTS_FILE
from sparkload.records.requests_files import RequestsWriter, record_line
from tests.sparkload.records.test_columnar import record


def columnar_run(run_dir, records: list[dict]):
    run_dir.mkdir(exist_ok=True)
    writer = RequestsWriter(run_dir, part_rows=2)
    writer.append(records)
    writer.close()
    return run_dir


RECORDS = [record(request_id=f"0-{n}") for n in range(3)] + [
    record(request_id="0-3", status="error", error_kind="timeout", session_id="s", turn=1)
]


def test_a_columnar_run_exports_the_lines_its_records_are_to_standard_output(
    tmp_path, capsysbinary
):
    assert main(["export", "--jsonl", str(columnar_run(tmp_path, RECORDS))]) == 0
    out = capsysbinary.readouterr().out
    assert out == b"".join(record_line(r) for r in RECORDS)
    assert [json.loads(line) for line in out.splitlines()] == RECORDS


def test_out_writes_a_file_and_says_how_many_records(tmp_path, capsys):
    target = tmp_path / "records.jsonl"
    assert main(["export", "--jsonl", str(columnar_run(tmp_path / "run", RECORDS)),
                 "--out", str(target)]) == 0  # fmt: skip
    assert len(target.read_bytes().splitlines()) == 4
    assert capsys.readouterr().err == f"sparkload export: 4 records to {target}\n"


def test_an_earlier_versions_run_exports_its_lines_and_notes_a_torn_one(tmp_path, capsysbinary):
    lines = b"".join(record_line(r) for r in RECORDS)
    (tmp_path / REQUESTS_FILE).write_bytes(lines + b'{"torn')
    assert main(["export", "--jsonl", str(tmp_path)]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == lines
    assert captured.err == b"sparkload export: 1 unparsable line(s) in requests.jsonl skipped\n"


def test_a_directory_without_records_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["export", "--jsonl", str(tmp_path)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == (
        f"sparkload export: error: {tmp_path}: no requests.parquet or requests.jsonl: "
        "not a run directory\n"
    )


def test_a_missing_directory_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["export", "--jsonl", str(tmp_path / "nope")]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.count("\n") == 1


def test_the_format_must_be_named(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["export", str(columnar_run(tmp_path, RECORDS))])
    assert exited.value.code == EXIT_BAD_INPUT
    assert "the following arguments are required: --jsonl" in capsys.readouterr().err
