"""A coding agent's built-in tools, and the synthetic results the agent workload answers calls with.

The set is shaped like what coding agents send (OpenHands, Claude Code, Qwen Code): read a
file, run a shell command, edit a file by replacing text, search the code. Their schemas are a
realistic size (about 500 tokens of JSON, at 4 characters a token), so a request carries what
an agent's does: the tools, which a chat template renders into the prompt before the first
message, are a prefix every session shares.

A tool result is seeded filler text fitted to its tokens by the target's count
(``fitting.synthesize_results``: the same fitting as ``--input-tokens``' prompts). A call whose
arguments are not a JSON object gets an error result, the error line in place of the text's
first characters (the same characters, within a few tokens of the same count), as an agent
reports a malformed call back to the model.
"""

from __future__ import annotations

import json
from typing import Any

from sparkload.inputs.tools import Tools


def _function(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


BUILTIN_TOOLS: Tools = (
    _function(
        "read_file",
        "Read a text file of the repository and return its lines, numbered. Use it before "
        "editing a file; read a range of lines for a large file.",
        {
            "path": {"type": "string", "description": "The file's path, from the repo root."},
            "start_line": {"type": "integer", "description": "First line to read (1-based)."},
            "end_line": {"type": "integer", "description": "Last line to read, inclusive."},
        },
        ["path"],
    ),
    _function(
        "run_command",
        "Run a shell command in the repository's root directory and return its exit code, "
        "standard output and standard error. Use it to run tests, build, or inspect the tree.",
        {
            "command": {"type": "string", "description": "The command line, run by bash."},
            "timeout_s": {"type": "integer", "description": "Seconds before it is killed."},
        },
        ["command"],
    ),
    _function(
        "edit_file",
        "Replace one exact occurrence of a text in a file with a new text. The old text must "
        "match the file exactly, whitespace included, and occur once.",
        {
            "path": {"type": "string", "description": "The file's path, from the repo root."},
            "old_text": {"type": "string", "description": "The exact text to replace."},
            "new_text": {"type": "string", "description": "The text to put in its place."},
        },
        ["path", "old_text", "new_text"],
    ),
    _function(
        "search_code",
        "Search the repository's files for a regular expression and return the matching "
        "lines with their paths and line numbers.",
        {
            "pattern": {"type": "string", "description": "A regular expression."},
            "path": {"type": "string", "description": "A directory or file to search in."},
            "max_results": {"type": "integer", "description": "How many matches at most."},
        },
        ["pattern"],
    ),
)

ARGUMENTS_ERROR = "Error: the call's arguments are not a JSON object; nothing was run.\n"


def parse_arguments(arguments: str) -> dict[str, Any] | None:
    """A call's arguments as a JSON object, None when they are not one."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def tool_result(text: str, arguments_valid: bool = True) -> str:
    """A tool's result: the fitted ``text``, or, when the call's arguments were not a JSON
    object, the error line in place of its first characters."""
    if arguments_valid:
        return text
    return ARGUMENTS_ERROR + text[len(ARGUMENTS_ERROR) :]
