"""The user's datasets: GSM8K, multiple choice in MMLU's layout, and a generic prompt/expected file.

``read_dataset(path)`` reads one file into an ``ItemSet``; anything wrong in it is one
``ConfigError`` naming the file and the line (``--dataset: data.jsonl line 7: ...``), raised
before any request is sent. Each file may be gzip-compressed (``data.jsonl.gz``; the form is
then told by the name under ``.gz``). The forms read:

- **GSM8K** (``openai/gsm8k`` as JSON lines): ``question``, and ``answer`` whose last line is
  ``#### N`` (the worked solution above it is never shown to the model). Graded by the final
  number of the reply (``graders``).
- **Multiple choice, MMLU's layout**: ``question``; the options as a list, ``choices``
  (``cais/mmlu``) or ``options`` (MMLU-Pro), or as keys ``A``, ``B``, ``C``, ``D``...
  (simple-evals' ``mmlu.csv``); ``answer`` as a letter (``"B"``) or a 0-based index (``1``,
  ``cais/mmlu``), or ``answer_index``. As JSON lines, a JSON array of such objects, or CSV: with
  a header naming ``question``, the letters and ``answer`` (simple-evals), or without one,
  Hendrycks' original ``question,A,B,C,D,answer`` rows. Up to 10 options (A-J).
- **Generic**: ``prompt`` and ``expected``, and ``match`` (``exact``, ``numeric`` or ``regex``,
  per line, else the file's ``--match``) with ``tolerance`` for ``numeric`` (absolute, per
  line, else ``--tolerance``).
- **BFCL** (tool calls): ``question``, ``function`` and ``ground_truth``, inline or in BFCL's
  possible-answer file beside it (``bfcl``); graded by the reply's tool calls (``toolcalls``).

A ``.json`` file is a JSON array when it parses as one, else JSON lines (the form Hugging Face's
``to_json`` writes); ``.csv`` is CSV; anything else JSON lines. The form is the first item's
(``gsm8k``: ``question`` with a string ``answer`` and no options; ``multiple-choice``: options;
``generic``: ``prompt``; ``bfcl``: ``question`` and ``function``), unless ``form`` names it;
every item must then fit it. An item's id is its ``id`` field when it has one, else its line
number (a JSON array's: its position, from 1).
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sparkload.errors import ConfigError
from sparkload.inputs import files
from sparkload.inputs.files import UserFile
from sparkload.quality import bfcl
from sparkload.quality.items import (
    FINAL_ANSWER_INSTRUCTION,
    GENERIC_MATCHES,
    KIND_BFCL,
    KIND_CHOICE,
    KIND_GENERIC,
    KIND_GSM8K,
    MATCH_CHOICE,
    MATCH_NUMERIC,
    MATCH_REGEX,
    NUMERIC_TOLERANCE,
    Item,
    ItemSet,
)

LETTERS = string.ascii_uppercase[:10]  # A-J: MMLU-Pro has ten options
FORMS = (KIND_GSM8K, KIND_CHOICE, KIND_GENERIC, KIND_BFCL)
GRADING = {
    KIND_BFCL: bfcl.GRADING,
    KIND_GSM8K: "final number of the reply (#### N first, else the last number; commas and $ "
    "stripped), as lighteval and aiperf grade GSM8K",
    KIND_CHOICE: "the letter the reply gives ('Answer: X', else a first line that is a letter "
    "alone or opening an option), as simple-evals and lighteval read MMLU",
}
_GSM8K_GOLD = re.compile(r"####\s*\$?\s*(-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*$")


def choice_prompt(question: str, choices: tuple[str, ...]) -> str:
    """How a multiple-choice item is asked (zero-shot, the answer on a line of its own)."""
    letters = LETTERS[: len(choices)]
    options = "\n".join(f"{letter}) {text}" for letter, text in zip(letters, choices, strict=True))
    return (
        f"Answer this multiple-choice question. Think it through, then end with a line "
        f"'Answer: X' where X is one of {', '.join(letters)}.\n\n{question}\n\n{options}"
    )


def gsm8k_prompt(question: str) -> str:
    """How a GSM8K question is asked (zero-shot, the final answer marked as GSM8K marks it)."""
    return f"{question}\n\n{FINAL_ANSWER_INSTRUCTION}"


def read_dataset(
    path: Path,
    form: str | None = None,
    match: str | None = None,
    tolerance: float | None = None,
    flag: str = "--dataset",
    answers: tuple[Path, ...] = (),
    answers_flag: str = "--answers",
) -> ItemSet:
    """The items of one dataset file (``form``: one of ``FORMS``, else detected); ``match`` and
    ``tolerance``: a generic file's defaults; ``answers``: a BFCL file's answer files, given
    by ``answers_flag``. A ``ConfigError`` names the flag, the file and the line."""
    file = files.read(flag, path)
    where = f"{flag}: {path}"
    rows = list(_rows(file, where))
    if not rows:
        raise ConfigError(f"{where}: no items in it")
    kind = form or _form_of(rows[0][2], rows[0][0])
    found = bfcl.answers_for(path, answers, flag, answers_flag) if kind == KIND_BFCL else None
    items: list[Item] = []
    seen: dict[str, int] = {}
    for at, line, row in rows:
        if kind == KIND_BFCL:
            item = bfcl.item(row, line, at, path, found)
        else:
            item = _item(kind, row, line, at, match, tolerance)
        if item.id in seen:
            raise ConfigError(f"{at}: id {item.id!r} given twice (first on line {seen[item.id]})")
        seen[item.id] = line
        items.append(item)
    grading = GRADING.get(kind) or _generic_grading(items)
    return ItemSet(path.name, kind, grading, str(path), tuple(items), {"form": kind}, file.sha256)


def _rows(file: UserFile, where: str) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(where, line or position, object) of every item in the file."""
    if file.suffix == ".csv":
        yield from _csv_rows(file)
        return
    if file.suffix == ".json":
        try:
            whole = file.json()
        except ConfigError:
            whole = None  # JSON lines under a .json name
        if isinstance(whole, list):
            for position, row in enumerate(whole, 1):
                at = f"{where} item {position}"
                if not isinstance(row, dict):
                    raise ConfigError(f"{at}: not a JSON object")
                yield at, position, row
            return
        if whole is not None and not isinstance(whole, dict):
            raise ConfigError(f"{where}: neither a JSON array of items nor JSON lines")
    for number, row in file.json_lines():
        if not isinstance(row, dict):
            raise ConfigError(f"{file.at(number)}: not a JSON object")
        yield file.at(number), number, row


def _csv_rows(file: UserFile) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """CSV rows as objects: by the header's names, or Hendrycks' question,A,...,answer."""
    header: list[str] | None = None
    for line, cells in file.csv_rows():
        at = file.at(line)
        if not any(cell.strip() for cell in cells):
            continue
        names = [cell.strip() for cell in cells]
        lowered = [name.lower() for name in names]
        if header is None and "question" in lowered and "answer" in lowered:
            header = [name if name.upper() in LETTERS else name.lower() for name in names]
            continue
        if header is not None:
            if len(cells) != len(header):
                raise ConfigError(f"{at}: {len(cells)} cells where the header has {len(header)}")
            yield at, line, {name: cell for name, cell in zip(header, cells, strict=True) if name}
            continue
        if len(cells) < 4:
            raise ConfigError(
                f"{at}: give question, two or more options and the answer's letter "
                "(or a header row naming question, A, B, ... and answer)"
            )
        yield (
            at,
            line,
            {
                "question": cells[0],
                "choices": cells[1:-1],
                "answer": cells[-1].strip(),
            },
        )


def _form_of(row: dict[str, Any], at: str) -> str:
    if "prompt" in row:
        return KIND_GENERIC
    if "question" in row and "function" in row:
        return KIND_BFCL
    if "question" in row and _options(row) is not None:
        return KIND_CHOICE
    if "question" in row and "answer" in row:
        return KIND_GSM8K
    raise ConfigError(
        f"{at}: not an item sparkload grades: give question and answer (GSM8K), question, "
        "choices and answer (multiple choice), prompt and expected (generic) or question and "
        "function (BFCL)"
    )


def _item(
    kind: str,
    row: dict[str, Any],
    line: int,
    at: str,
    match: str | None,
    tolerance: float | None,
) -> Item:
    raw_id = row.get("id")
    if raw_id is not None and not isinstance(raw_id, (str, int)):
        raise ConfigError(f"{at}: id must be a string or a whole number")
    item_id = str(raw_id) if raw_id is not None and str(raw_id) != "" else str(line)
    if kind == KIND_GSM8K:
        return _gsm8k_item(item_id, row, at)
    if kind == KIND_CHOICE:
        return _choice_item(item_id, row, at)
    return _generic_item(item_id, row, at, match, tolerance)


def _text_field(row: dict[str, Any], name: str, at: str, what: str) -> str:
    value = row.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{at}: no {name} ({what}: give it as a non-empty string)")
    return value


def _gsm8k_item(item_id: str, row: dict[str, Any], at: str) -> Item:
    question = _text_field(row, "question", at, "GSM8K")
    answer = _text_field(row, "answer", at, "GSM8K: the solution ending in '#### N'")
    found = _GSM8K_GOLD.search(answer.strip())
    if found is None:
        last = answer.strip().splitlines()[-1][:40]
        said = "has no '#### N' final answer" if "####" not in answer else f"ends {last!r}"
        raise ConfigError(f"{at}: answer {said} (GSM8K's answers end in '#### N', N a number)")
    gold = found.group(1).replace(",", "")  # the pattern admits only numbers
    return Item(item_id, gsm8k_prompt(question), gold, MATCH_NUMERIC)


def _options(row: dict[str, Any]) -> list[Any] | None:
    """A multiple-choice row's options: its list, or its letter keys in order (None: none)."""
    for name in ("choices", "options"):
        if isinstance(row.get(name), list):
            return list(row[name])
    keyed = []
    for letter in LETTERS:
        if letter not in row:
            break
        keyed.append(row[letter])
    return keyed if len(keyed) >= 2 else None


def _choice_item(item_id: str, row: dict[str, Any], at: str) -> Item:
    question = _text_field(row, "question", at, "multiple choice")
    options = _options(row)
    if options is None:
        raise ConfigError(f"{at}: no options (give choices as a list, or keys A, B, C, D)")
    if not 2 <= len(options) <= len(LETTERS):
        count = f"only {len(options)} option" if len(options) < 2 else f"{len(options)} options"
        raise ConfigError(f"{at}: {count} (give 2 to {len(LETTERS)})")
    if not all(isinstance(option, (str, int, float)) for option in options):
        raise ConfigError(f"{at}: every option must be a text")
    choices = tuple(str(option) for option in options)
    letters = LETTERS[: len(choices)]
    raw = row.get("answer", row.get("answer_index"))
    letter = _answer_letter(raw, letters)
    if letter is None:
        shown = "none" if raw is None else repr(raw)
        raise ConfigError(
            f"{at}: answer {shown} is not one of the options (give a letter "
            f"{letters[0]}-{letters[-1]} or an index 0-{len(letters) - 1})"
        )
    return Item(
        item_id,
        choice_prompt(question, choices),
        letter,
        MATCH_CHOICE,
        letters=letters,
        choices=choices,
    )


def _answer_letter(raw: object, letters: str) -> str | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return letters[raw] if 0 <= raw < len(letters) else None
    if isinstance(raw, str):
        text = raw.strip().strip("()").strip()
        if text.isdigit():
            return _answer_letter(int(text), letters)
        if len(text) == 1 and text.upper() in letters:
            return text.upper()
    return None


def _generic_item(
    item_id: str, row: dict[str, Any], at: str, match: str | None, tolerance: float | None
) -> Item:
    prompt = _text_field(row, "prompt", at, "generic")
    expected = row.get("expected")
    if isinstance(expected, bool) or not isinstance(expected, (str, int, float)):
        raise ConfigError(f"{at}: no expected (give the expected answer as a string or number)")
    how = row.get("match", match or GENERIC_MATCHES[0])
    if how not in GENERIC_MATCHES:
        raise ConfigError(f"{at}: match {how!r} is not one of {', '.join(GENERIC_MATCHES)}")
    raw_tolerance = row.get("tolerance", tolerance if tolerance is not None else NUMERIC_TOLERANCE)
    if (
        isinstance(raw_tolerance, bool)
        or not isinstance(raw_tolerance, (int, float))
        or raw_tolerance < 0
    ):
        raise ConfigError(f"{at}: tolerance must be a number >= 0")
    text = str(expected)
    if how == MATCH_NUMERIC:
        try:
            float(text.replace(",", "").replace("$", ""))
        except ValueError:
            raise ConfigError(f"{at}: expected {text!r} is not a number (match numeric)") from None
        text = text.replace(",", "").replace("$", "")
    elif how == MATCH_REGEX:
        try:
            re.compile(text)
        except re.error as exc:
            raise ConfigError(f"{at}: expected is not a regular expression: {exc}") from None
    return Item(item_id, prompt, text, how, tolerance=float(raw_tolerance))


def _generic_grading(items: list[Item]) -> str:
    matches = sorted({item.match for item in items})
    return "generic: " + ", ".join(
        {
            "exact": "exact (trimmed, case and spacing aside)",
            "numeric": "numeric (final number, within a tolerance)",
            "regex": "regex (re.search of the expected pattern)",
        }[m]
        for m in matches
    )
