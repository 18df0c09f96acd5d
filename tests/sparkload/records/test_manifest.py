"""Manifests sparkload ever wrote read back into the typed contract, and unknown fields kept."""

from __future__ import annotations

import json

import pytest

from sparkload.records import MANIFEST_FILE, LevelEntry, Manifest, WorkloadEntry, read_manifest


def test_a_manifest_without_a_label_reads_with_an_empty_one():
    assert Manifest.from_dict({}).label == ""


def test_the_first_manifests_workload_name_becomes_the_workload():
    manifest = Manifest.from_dict({"label": "x", "workload": "edit"})
    assert manifest.workload == WorkloadEntry("edit") and manifest.workload_name == "edit"


def test_a_command_written_as_one_string_reads_as_its_words():
    manifest = Manifest.from_dict({"label": "x", "command": "locust -f chat.py --headless"})
    assert manifest.command == ["locust", "-f", "chat.py", "--headless"]


def test_fields_a_newer_writer_added_are_kept_and_written_back():
    data = {"label": "x", "tp": 2, "future_field": {"a": 1}}
    manifest = Manifest.from_dict(data)
    assert manifest.unknown == {"future_field": {"a": 1}} and manifest.tp == 2
    written = manifest.to_dict()
    assert written["future_field"] == {"a": 1} and "unknown" not in written
    assert Manifest.from_dict(written) == manifest


def test_levels_read_into_level_entries_keeping_their_unknown_fields():
    level = {"index": 0, "concurrency": 4, "expected": 40, "started_at": "t", "new": 1}
    manifest = Manifest.from_dict({"label": "x", "levels": [level]})
    assert manifest.levels == [LevelEntry(0, 4, 40, "t", unknown={"new": 1})]
    assert manifest.to_dict()["levels"][0]["new"] == 1


def test_a_level_that_is_not_one_or_lacks_its_keys_is_left_out():
    level = {"index": 1, "concurrency": 4, "expected": 40, "started_at": "t"}
    manifest = Manifest.from_dict({"levels": ["not a level", {"index": 0}, level]})
    assert [entry.index for entry in manifest.levels] == [1]


def test_a_manifest_file_is_read_from_its_run_directory(tmp_path):
    (tmp_path / MANIFEST_FILE).write_text(json.dumps({"label": "run-ü", "tp": 4}), "utf-8")
    manifest = read_manifest(tmp_path)
    assert (manifest.label, manifest.tp) == ("run-ü", 4)


def test_a_manifest_that_is_not_a_json_object_is_refused_by_name(tmp_path):
    (tmp_path / MANIFEST_FILE).write_text("[1, 2]", "utf-8")
    with pytest.raises(ValueError, match=r"^manifest\.json is not a JSON object$"):
        read_manifest(tmp_path)
