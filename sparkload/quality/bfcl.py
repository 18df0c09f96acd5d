"""BFCL's format (the Berkeley Function Calling Leaderboard): tool-call items and their answers.

A line (JSON lines, as BFCL's ``BFCL_v3_*.json`` files hold them) is one item: ``id``;
``question``, the conversation (a list of turns, each a list of ``{role, content}`` messages,
as BFCL v3 nests them; a flat list of messages, or one string, is read as one turn: only
single-turn items are graded); ``function``, the functions offered (a list of docs, or one),
each a ``name``, a ``description`` and ``parameters`` in BFCL's type names; and
``ground_truth``, inline or in BFCL's separate possible-answer file (the same ``id`` on each
of its lines), given (``--answers``) or found where BFCL keeps it: ``possible_answer/NAME``
beside the file. The
ground truth is a list of calls, each ``{function: {argument: [allowed values]}}``, an allowed
``""`` meaning the argument may be left out; an empty list, or none at all for an
``irrelevance`` item, means the reply must call nothing; a ``relevance`` item without one
(BFCL's ``live_relevance``) wants a call, whichever it is.

The tools sent are the functions with BFCL's type names made JSON Schema's, so a grammar
backend (vLLM's structured outputs, llama.cpp's) takes them: ``dict`` -> ``object``, ``float``
-> ``number``, ``tuple`` -> ``array``, ``any`` -> no type; any other name (BFCL's Java and
JavaScript types) ``string``, as BFCL's own function-calling handlers send them. A function
name holding characters OpenAI's tool names refuse (``math.factorial``) is sent with ``_`` in
their place, as BFCL's handlers do, and a reply may use either name. The grader is
``toolcalls``.

An item's category, which its accuracy is also told by, is BFCL's id prefix (``simple`` of
``simple_12``, ``live_parallel`` of ``live_parallel_3-1-0``), else the file's name
(``BFCL_v3_multiple.json``: ``multiple``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparkload.errors import ConfigError
from sparkload.inputs import files
from sparkload.quality.items import MATCH_TOOL_CALLS, Item, ToolAnswer

ANSWER_FOLDER = "possible_answer"  # BFCL's: data/possible_answer/BFCL_v3_simple.json
GRADING = (
    "the reply's tool calls, as BFCL's AST checker grades them: the right function, every "
    "required argument, no unknown one, each value among the allowed ones (strings without "
    "case, spaces and ,./-_*^; numbers by value, an int for a float; lists and dicts element by "
    "element); parallel calls in any order; an irrelevance item right when nothing is called"
)
NO_CALL = "no call"  # an item's expected answer, as quality.json shows it, when none is wanted
IRRELEVANCE = "irrelevance"  # BFCL's categories whose items want no call
RELEVANCE = "relevance"  # and those whose items want a call, whichever (``live_relevance``)
ANY_CALL = "any call"  # a relevance item's expected answer, as quality.json shows it
_JSON_TYPES = {"object", "number", "integer", "string", "boolean", "array", "null"}
_BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array", "list": "array"}
_ANY = "any"
_TOOL_NAME = re.compile(r"[^A-Za-z0-9_-]")
_CATEGORY_OF_ID = re.compile(r"^(.*?)_\d[\d_-]*$")
_CATEGORY_OF_FILE = re.compile(r"^BFCL_v\d+_", re.IGNORECASE)


@dataclass(frozen=True)
class Answers:
    """BFCL's possible-answer files: each id's ground truth and the line it is on."""

    paths: tuple[Path, ...]
    by_id: dict[str, tuple[str, Any]]  # id -> (where: flag, file and line; ground truth)

    def named(self) -> str:
        """The files, as an error names them."""
        files_said = "file" if len(self.paths) == 1 else "files"
        return f"the answer {files_said} {', '.join(str(path) for path in self.paths)}"


def answers_for(path: Path, given: tuple[Path, ...], flag: str, given_flag: str) -> Answers | None:
    """The answer files of dataset ``path``: those ``given`` (under ``given_flag``), then
    BFCL's own beside it, ``possible_answer/NAME``, under ``flag`` (None: neither). An id in
    two keeps its first."""
    beside = path.parent / ANSWER_FOLDER / path.name
    named = [(given_flag, answer_path) for answer_path in given]
    if beside.is_file() and beside not in given:
        named.append((flag, beside))
    if not named:
        return None
    by_id: dict[str, tuple[str, Any]] = {}
    for answer_flag, answer_path in named:
        file = files.read(answer_flag, answer_path)
        for number, row in file.json_lines():
            at = file.at(number)
            if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                raise ConfigError(f"{at}: not an answer (give id and ground_truth)")
            if "ground_truth" not in row:
                raise ConfigError(f"{at}: no ground_truth for {row['id']!r}")
            by_id.setdefault(row["id"], (at, row["ground_truth"]))
    return Answers(tuple(answer_path for _, answer_path in named), by_id)


def item(row: dict[str, Any], line: int, at: str, path: Path, answers: Answers | None) -> Item:
    """One BFCL line as an item; a ConfigError naming the file and line of what is wrong."""
    raw_id = row.get("id")
    item_id = str(raw_id) if isinstance(raw_id, (str, int)) and str(raw_id) else str(line)
    messages = _messages(row.get("question"), at)
    functions = _functions(row.get("function"), at)
    category = category_of(item_id, path)
    if "ground_truth" in row:
        truth_at, truth = at, row["ground_truth"]
    elif answers is not None and item_id in answers.by_id:
        truth_at, truth = answers.by_id[item_id]
    elif RELEVANCE in category:  # irrelevance: no call; relevance: any call
        truth_at, truth = at, []
    elif answers is not None:
        raise ConfigError(f"{at}: id {item_id!r} is not in {answers.named()}")
    else:
        raise ConfigError(
            f"{at}: no ground_truth for {item_id!r} (give it inline, or in BFCL's answer file "
            f"{path.parent / ANSWER_FOLDER / path.name})"
        )
    calls = _calls(truth, truth_at, functions)
    any_call = not calls and RELEVANCE in category and IRRELEVANCE not in category
    tools, names = _tools(functions)
    prompt = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    expected = ANY_CALL if any_call else NO_CALL
    return Item(
        item_id,
        prompt,
        json.dumps(truth, ensure_ascii=False) if calls else expected,
        MATCH_TOOL_CALLS,
        messages=messages,
        tools=tools or None,  # none offered (some irrelevance items): no tools sent
        answer=ToolAnswer({f["name"]: f["parameters"] for f in functions}, calls, names, any_call),
        category=category,
    )


def category_of(item_id: str, path: Path) -> str:
    """BFCL's category: the id's prefix (``simple_12`` -> ``simple``), else the file's name."""
    found = _CATEGORY_OF_ID.match(item_id)
    if found is not None and found.group(1):
        return found.group(1)
    name = path.name.removesuffix(".gz")
    return _CATEGORY_OF_FILE.sub("", Path(name).stem) or name


def _messages(question: Any, at: str) -> tuple[dict[str, Any], ...]:
    """The one turn's messages, checked."""
    if isinstance(question, str):
        question = [[{"role": "user", "content": question}]]
    if not isinstance(question, list) or not question:
        raise ConfigError(f"{at}: no question (give a list of turns, each a list of messages)")
    turns = question if all(isinstance(turn, list) for turn in question) else [question]
    if len(turns) != 1:
        raise ConfigError(
            f"{at}: {len(turns)} turns: only single-turn items are graded (not BFCL's "
            "multi_turn categories)"
        )
    messages = turns[0]
    for message in messages:
        if (
            not isinstance(message, dict)
            or not isinstance(message.get("role"), str)
            or not isinstance(message.get("content"), str)
        ):
            raise ConfigError(f"{at}: a message is not {{role, content}} with text content")
    if not messages:
        raise ConfigError(f"{at}: the question's turn holds no message")
    return tuple({"role": m["role"], "content": m["content"]} for m in messages)


def _functions(raw: Any, at: str) -> list[dict[str, Any]]:
    """The functions offered, each with a name and its parameters (an object's)."""
    docs = [raw] if isinstance(raw, dict) else raw
    if not isinstance(docs, list):  # an empty list: none offered (some irrelevance items)
        raise ConfigError(f"{at}: no function (give the functions offered as a list of docs)")
    functions = []
    for doc in docs:
        if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"]:
            raise ConfigError(f"{at}: a function has no name")
        parameters = doc.get("parameters", {"type": "dict", "properties": {}})
        if not isinstance(parameters, dict):
            raise ConfigError(f"{at}: function {doc['name']!r}: parameters is not an object")
        functions.append({**doc, "parameters": parameters})
    return functions


def _calls(
    truth: Any, at: str, functions: list[dict[str, Any]]
) -> tuple[tuple[str, dict[str, list[Any]]], ...]:
    """The ground truth's calls, each naming one of the item's functions."""
    listed = [truth] if isinstance(truth, dict) else truth
    if not isinstance(listed, list):
        raise ConfigError(f"{at}: ground_truth is not a list of calls")
    offered = [f["name"] for f in functions]
    calls = []
    for call in listed:
        if not isinstance(call, dict) or len(call) != 1:
            raise ConfigError(f"{at}: a ground-truth call is not {{function: {{argument: [...]}}}}")
        ((name, arguments),) = call.items()
        if name not in offered:
            raise ConfigError(
                f"{at}: the answer calls {name!r}, which is not among the item's functions "
                f"({', '.join(offered)})"
            )
        if not isinstance(arguments, dict):
            raise ConfigError(f"{at}: {name!r}'s arguments are not an object")
        for argument, allowed in arguments.items():
            if not isinstance(allowed, list):
                raise ConfigError(
                    f"{at}: {name!r} argument {argument!r}: give its allowed values as a list"
                )
        calls.append((name, dict(arguments)))
    return tuple(calls)


def _tools(functions: list[dict[str, Any]]) -> tuple[tuple[dict[str, Any], ...], dict[str, str]]:
    """The tools sent (OpenAI's form, JSON Schema's types) and the names changed to send."""
    sent = {f["name"]: _TOOL_NAME.sub("_", f["name"]) for f in functions}
    if len(set(sent.values())) != len(sent):  # two names would meet: send them as they are
        sent = {name: name for name in sent}
    tools = []
    for f in functions:
        described = {"name": sent[f["name"]], "parameters": schema(f["parameters"])}
        if isinstance(f.get("description"), str):
            described["description"] = f["description"]
        tools.append({"type": "function", "function": described})
    return tuple(tools), {new: old for old, new in sent.items() if new != old}


def schema(node: Any) -> Any:
    """A parameters schema with BFCL's type names made JSON Schema's (see the module)."""
    if isinstance(node, list):
        return [schema(each) for each in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    out: dict[str, Any] = {}
    if isinstance(kind, str) and kind != _ANY:
        out["type"] = kind if kind in _JSON_TYPES else _BFCL_TYPES.get(kind, "string")
    out.update((key, value) for key, value in node.items() if key != "type")
    if isinstance(node.get("properties"), dict):
        out["properties"] = {name: schema(each) for name, each in node["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), (dict, list)):
            out[key] = schema(node[key])
    return out
