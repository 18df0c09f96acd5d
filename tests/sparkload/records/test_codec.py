"""The manifest's one reader and writer (records.codec): a dataclass's field types decide how its
JSON object reads, leniently, and writes back as it was."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from sparkload.records.codec import Entry, JSONValue, empty, inline, omitted


@dataclass
class Inner(Entry):
    name: str
    size: int = 0


@dataclass
class Group(Entry):
    figure: float
    word: str = ""


@dataclass
class Outer(Entry):
    count: int = 0
    share: float = 1.0
    at: str | int = ""
    inner: Inner | None = None
    items: list[Inner] = field(default_factory=list)
    by_name: dict[str, Inner] = field(default_factory=dict)
    note: str | None = omitted()
    check: Inner | None = empty()
    group: Group | None = inline(optional=True)
    data: dict[str, JSONValue] = field(default_factory=dict)


@dataclass
class Probe(Entry):
    value: float
    group: Group = inline()


def test_a_missing_field_takes_its_default():
    assert Outer.from_dict({}) == Outer()


def test_a_value_of_the_wrong_type_reads_as_the_default_and_is_written_back_as_read():
    read = Outer.from_dict({"count": "three", "inner": 7})
    assert (read.count, read.inner) == (0, None)
    assert read.to_dict()["count"] == "three" and read.to_dict()["inner"] == 7


def test_an_unknown_key_is_kept_and_written_back_after_the_known_ones():
    read = Outer.from_dict({"future": {"a": 1}, "count": 2})
    assert read.unknown == {"future": {"a": 1}}
    assert list(read.to_dict())[-1] == "future"


def test_an_entry_lacking_a_required_field_is_left_out_of_a_list_and_a_mapping():
    read = Outer.from_dict({"items": [{"size": 1}, {"name": "a"}], "by_name": {"x": {}}})
    assert (read.items, read.by_name) == ([Inner("a")], {})


def test_an_entry_lacking_a_required_field_reads_as_its_fields_default():
    read = Outer.from_dict({"inner": {"size": 3}})
    assert read.inner is None and read.unknown == {"inner": {"size": 3}}


def test_from_dict_refuses_an_entry_it_cannot_read_with_a_value_error():
    with pytest.raises(ValueError, match=r"^Inner: name missing or not of its type$"):
        Inner.from_dict({"size": 3})
    with pytest.raises(ValueError, match=r"^Inner: not a JSON object$"):
        Inner.from_dict(["name"])


def test_an_int_reads_into_a_float_field_and_writes_back_unchanged():
    assert json.dumps(Outer.from_dict({"share": 2}).to_dict()["share"]) == "2"


def test_a_bool_is_not_a_number():
    assert Outer.from_dict({"count": True}).count == 0


def test_a_union_reads_as_the_first_of_its_types_the_value_is():
    assert (Outer.from_dict({"at": 3}).at, Outer.from_dict({"at": "start"}).at) == (3, "start")


def test_an_omitted_field_is_left_out_until_it_is_given():
    assert "note" not in Outer().to_dict()
    assert Outer(note=None).to_dict()["note"] is None
    assert Outer.from_dict({"note": None}).to_dict()["note"] is None


def test_an_omitted_field_set_later_is_written():
    entry = Outer()
    entry.note = "late"
    assert entry.to_dict()["note"] == "late"


def test_an_empty_object_reads_as_none_and_none_writes_as_an_empty_object():
    assert Outer.from_dict({"check": {}}).check is None
    assert Outer().to_dict()["check"] == {}


def test_an_inline_entry_reads_its_fields_from_the_enclosing_object():
    read = Outer.from_dict({"count": 1, "figure": 2.5, "word": "w", "other": 0})
    assert read.group == Group(2.5, "w") and read.unknown == {"other": 0}
    assert read.to_dict() == {**Outer(count=1).to_dict(), "figure": 2.5, "word": "w", "other": 0}


def test_an_optional_inline_entry_without_its_keys_is_none_and_writes_none():
    assert Outer.from_dict({"count": 1}).group is None
    assert "figure" not in Outer().to_dict()


def test_a_required_inline_entry_makes_its_entry_unreadable_without_it():
    assert Probe.from_dict({"value": 1, "figure": 2}) == Probe(1, Group(2))
    with pytest.raises(ValueError, match="group missing"):
        Probe.from_dict({"value": 1})


def test_json_values_are_kept_as_they_are():
    data = {"a": [1, {"b": None}], "c": "d"}
    assert Outer.from_dict({"data": data}).data == data


def test_what_reads_writes_back_as_the_same_json():
    data = {
        "count": 2,
        "share": 0.5,
        "at": 1,
        "inner": {"name": "i", "size": 1, "new": True},
        "items": [{"name": "a", "size": 0}],
        "by_name": {"x": {"name": "x", "size": 2}},
        "note": None,
        "check": {},
        "figure": 1.5,
        "word": "",
        "data": {"k": [1, 2]},
        "later": "kept",
    }
    assert json.dumps(Outer.from_dict(data).to_dict()) == json.dumps(data)


def test_a_writer_may_still_hand_plain_data_for_an_entry():
    entry = Outer(inner={"name": "plain"}, items=[{"name": "p"}])
    assert entry.to_dict()["inner"] == {"name": "plain"}
    assert entry.to_dict()["items"] == [{"name": "p"}]
