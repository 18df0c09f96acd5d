"""The agent's built-in tools and its synthetic tool results."""

from __future__ import annotations

from sparkload.inputs.tools import ToolSet
from sparkload.workloads.coding_tools import (
    BUILTIN_TOOLS,
    parse_arguments,
)


def test_the_built_in_set_is_a_coding_agents_four_tools_and_passes_the_files_checks():
    tools = ToolSet.builtin(BUILTIN_TOOLS)
    assert tools.names == ("read_file", "run_command", "edit_file", "search_code")
    assert tools.describe()["source"] == "builtin"


def test_only_a_json_object_counts_as_arguments():
    assert parse_arguments('{"path": "a.py"}') == {"path": "a.py"}
    assert parse_arguments('["a.py"]') is None and parse_arguments('{"path": ') is None
