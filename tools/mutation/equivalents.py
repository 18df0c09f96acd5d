"""The equivalent mutants of ``equivalents.md``: survivors no test can kill, with the reason.

Each entry names a mutant and the line it produces, so an entry that no longer describes its
mutant (the function changed and mutmut renumbered its mutants) is caught, not trusted:

    - `sparkload.transport.sse.x_read_events__mutmut_47`: `return Ending(None, adjusted)`
      Why nothing observable changes, on this line and any indented lines after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_ENTRY = re.compile(r"^- `(?P<name>[^`\s]+)`: `(?P<mutation>.+)`\s*$")


@dataclass(frozen=True)
class Equivalent:
    name: str  # mutmut's mutant name
    mutation: str  # the mutated line, as ``mutation_of`` gives it
    reason: str


class EquivalentsError(ValueError):
    """equivalents.md breaks its format (the message names the line)."""


def parse(text: str, where: str = "equivalents.md") -> dict[str, Equivalent]:
    """Entries by mutant name; an entry needs a reason, and a mutant is listed once."""
    entries: dict[str, Equivalent] = {}
    current: tuple[int, str, str] | None = None
    reason: list[str] = []

    def close() -> None:
        if current is None:
            return
        line, name, mutation = current
        if not reason:
            raise EquivalentsError(f"{where}:{line}: {name} gives no reason")
        if name in entries:
            raise EquivalentsError(f"{where}:{line}: {name} is listed twice")
        entries[name] = Equivalent(name, mutation, " ".join(reason))

    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("- `"):
            close()
            match = _ENTRY.match(line)
            if match is None:
                raise EquivalentsError(
                    f"{where}:{number}: an entry reads - `mutant name`: `mutated line`"
                )
            current, reason = (number, match["name"], match["mutation"]), []
        elif current is not None and line.startswith("  ") and line.strip():
            reason.append(line.strip())
        else:
            close()
            current, reason = None, []
    close()
    return entries


def load(path: Path) -> dict[str, Equivalent]:
    return parse(path.read_text(encoding="utf-8"), str(path))


def mutation_of(diff: str) -> str:
    """A mutant's change as one line: its new lines, stripped (or the line it removed)."""
    changed = [line for line in diff.splitlines() if not line.startswith(("+++", "---"))]
    added = [line[1:].strip() for line in changed if line.startswith("+")]
    if added:
        return " / ".join(added)
    removed = [line[1:].strip() for line in changed if line.startswith("-")]
    return "removed: " + " / ".join(removed)
