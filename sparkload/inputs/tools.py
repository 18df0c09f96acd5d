"""Tool definitions users bring (``--tools FILE``, and the tools an agent trace records), checked.

The format is OpenAI's ``tools`` list, as a request body carries it: a JSON list of
``{"type": "function", "function": {"name": ..., "description": ..., "parameters": {...}}}``.
A name is 1-64 letters, digits, ``_``, ``-`` or ``.``, unique in the list; ``description`` is
text when given; ``parameters`` a JSON Schema object when given (``"type": "object"`` when it
names a type). Anything else is a ``ConfigError`` of one line naming the file and the tool, so a
run with a malformed tools file exits 2 before any load, not with a server's 400 on every
request.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparkload.errors import ConfigError
from sparkload.inputs import files

Tools = tuple[dict[str, Any], ...]
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class ToolSet:
    """A run's tools: the definitions as sent, and where they came from (the manifest's)."""

    tools: Tools
    source: str  # a file's path, or "builtin"
    sha256: str = ""  # the file's (a built-in set: its canonical JSON's)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(tool["function"]["name"] for tool in self.tools)

    def describe(self) -> dict[str, Any]:
        return {"source": self.source, "sha256": self.sha256, "names": list(self.names)}

    @classmethod
    def builtin(cls, tools: Tools) -> ToolSet:
        canonical = json.dumps(list(tools), sort_keys=True).encode()
        return cls(check_tools(list(tools), "built-in tools"), "builtin", _digest(canonical))


def load_tools(path: Path) -> ToolSet:
    """The tools of ``--tools FILE``; a ConfigError of one line when it cannot be used."""
    file = files.read("--tools", path)
    return ToolSet(check_tools(file.json(), f"--tools: {path}"), str(path), file.sha256)


def check_tools(data: Any, where: str) -> Tools:
    """``data`` as a tools list, each tool checked; ``where`` starts every error's line."""
    if not isinstance(data, list) or not data:
        raise ConfigError(f"{where}: tools must be a non-empty JSON list (OpenAI's tools format)")
    seen: set[str] = set()
    out = []
    for number, tool in enumerate(data, 1):
        name = _tool_name(tool, f"{where}: tool {number}")
        if name in seen:
            raise ConfigError(f"{where}: tool {number}: the name {name!r} is used twice")
        seen.add(name)
        out.append(tool)
    return tuple(out)


def _tool_name(tool: Any, where: str) -> str:
    if not isinstance(tool, dict):
        raise ConfigError(f"{where}: expected a JSON object")
    if tool.get("type") != "function":
        raise ConfigError(f"{where}: 'type' must be \"function\"")
    function = tool.get("function")
    if not isinstance(function, dict):
        raise ConfigError(f"{where}: 'function' must be an object with a name")
    name = function.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise ConfigError(f"{where}: 'function.name' must be 1-64 letters, digits, '_', '-' or '.'")
    if "description" in function and not isinstance(function["description"], str):
        raise ConfigError(f"{where} ({name}): 'function.description' must be text")
    parameters = function.get("parameters")
    if parameters is not None and (
        not isinstance(parameters, dict) or parameters.get("type", "object") != "object"
    ):
        raise ConfigError(
            f"{where} ({name}): 'function.parameters' must be a JSON Schema of type object"
        )
    return name


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()
