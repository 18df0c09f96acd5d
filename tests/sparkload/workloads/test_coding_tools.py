"""The agent's built-in tools and its synthetic tool results."""

from __future__ import annotations

from sparkload.inputs.tools import ToolSet
from sparkload.sim.textlength import CHARS_PER_TOKEN
from sparkload.workloads.coding_tools import (
    ARGUMENTS_ERROR,
    BUILTIN_TOOLS,
    parse_arguments,
    tool_result,
)


def test_the_built_in_set_is_a_coding_agents_four_tools_and_passes_the_files_checks():
    tools = ToolSet.builtin(BUILTIN_TOOLS)
    assert tools.names == ("read_file", "run_command", "edit_file", "search_code")
    assert tools.describe()["source"] == "builtin"


def test_a_result_is_seeded_filler_of_its_tokens_and_an_error_for_bad_arguments():
    assert len(tool_result(100, 3)) == 100 * CHARS_PER_TOKEN
    assert tool_result(100, 3) == tool_result(100, 3) != tool_result(100, 4)
    error = tool_result(100, 3, arguments_valid=False)
    assert error.startswith(ARGUMENTS_ERROR) and len(error) == 100 * CHARS_PER_TOKEN


def test_only_a_json_object_counts_as_arguments():
    assert parse_arguments('{"path": "a.py"}') == {"path": "a.py"}
    assert parse_arguments('["a.py"]') is None and parse_arguments('{"path": ') is None
