"""pytest plugin for mutation runs: a mutant's tests run fastest first.

mutmut stops testing a mutant at its first failing test (``-x``), so a mutant that a fast unit
test kills should not wait for a scripted-server test first. mutmut's fork-server mode hands
the tests over in no particular order; this sorts them by the durations mutmut measured in its
clean run (``mutmut-stats.json`` in the directory the tests run in). Before that file exists
(the clean run itself) the order is left alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

STATS = Path("mutmut-stats.json")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    try:
        durations = json.loads(STATS.read_text(encoding="utf-8"))["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))
