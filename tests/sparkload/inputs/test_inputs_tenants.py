"""The --tenants file as a user writes it (JSON or YAML): its classes typed, and every mistake
one line naming the file and the class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs.tenants import load_tenants

YAML = """\
classes:
  - name: chat
    share: 0.6
    workload: chat
    slo: ttft_p90_ms<=2000
  - name: agents
    share: 0.3
    workload: agent
    options:
      tool-turns: 1
    model: tenant-a
  - name: batch
    share: 0.1
    workload: prefill
"""


def written(tmp_path: Path, data: object, name: str = "tenants.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def classes(*entries: dict) -> dict:
    return {"classes": list(entries)}


def one(name: str = "a", share: float = 1.0, workload: str = "chat", **more) -> dict:
    return {"name": name, "share": share, "workload": workload, **more}


def test_a_yaml_file_reads_as_typed_classes_in_the_files_order(tmp_path):
    tenants = load_tenants(written(tmp_path, YAML, "mix.yaml"))
    assert [c.name for c in tenants.classes] == ["chat", "agents", "batch"]
    assert tenants.shares == (0.6, 0.3, 0.1)
    chat, agents, batch = tenants.classes
    assert chat.slo == "ttft_p90_ms<=2000" and chat.model is None
    assert agents.options == {"tool-turns": 1} and agents.model == "tenant-a"
    assert batch.workload == "prefill" and batch.options == {} and batch.slo == ""


def test_a_json_file_reads_the_same(tmp_path):
    path = written(tmp_path, classes(one("x", 0.5), one("y", 0.5, "agent")))
    assert [(c.name, c.share, c.workload) for c in load_tenants(path).classes] == [
        ("x", 0.5, "chat"),
        ("y", 0.5, "agent"),
    ]


@pytest.mark.parametrize(
    "data, said",
    [
        (classes(one("a", 0.6), one("b", 0.3)), "the classes' shares sum to 0.9, not 1"),
        (classes(one("a", 0.5), one("a", 0.5)), "class 'a': the name is used twice"),
        (classes(one("a", 1.0, "chatty")), "class 'a': unknown workload 'chatty'"),
        (classes(one("a", 0)), "class 'a': share 0 is not a number above 0 and at most 1"),
        (classes(one("a", slo=3)), "class 'a': slo must be a string"),
        (classes(one("a", colour="red")), "class 'a': unknown key 'colour'"),
        (
            classes(one("a", model="x:0.7,y:0.2")),
            "class 'a': model: the weights of 'x:0.7,y:0.2' sum to 0.9, not 1",
        ),
        (classes({"share": 1.0, "workload": "chat"}), "class 1: no name"),
        ({"tenants": []}, 'expected {"classes": [...]}'),
    ],
)
def test_what_cannot_be_used_is_one_line_naming_the_file_and_class(tmp_path, data, said):
    path = written(tmp_path, data)
    with pytest.raises(ConfigError) as caught:
        load_tenants(path)
    message = str(caught.value)
    assert message.startswith(f"--tenants: {path}") and said in message
    assert "\n" not in message


def test_shares_that_miss_one_by_float_rounding_only_are_accepted(tmp_path):
    path = written(tmp_path, classes(one("a", 0.1), one("b", 0.2), one("c", 0.7)))
    assert len(load_tenants(path).classes) == 3


def test_a_yaml_syntax_error_names_its_line(tmp_path):
    path = written(tmp_path, "classes:\n  - name: [a\n", "bad.yml")
    with pytest.raises(ConfigError, match=r"bad.yml line \d+: not YAML"):
        load_tenants(path)
