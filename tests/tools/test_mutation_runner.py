"""The mutation runner's own rules: how equivalents.md is read, and how a module's verdicts add
up to its totals and score."""

from __future__ import annotations

import pytest

from tools.mutation import equivalents
from tools.mutation.run import EQUIVALENTS, ROOT, ModuleResult, score
from tools.mutation.targets import TARGET_BY_NAME, TARGETS

DIFF = """--- sparkload/transport/sse.py
+++ sparkload/transport/sse.py
@@ -1,3 +1,3 @@
 def f():
-    return a < b
+    return a <= b
"""


def test_an_entry_names_the_mutant_its_line_and_why_over_indented_lines():
    text = "# Equivalent mutants\n\n- `m.x_f__mutmut_1`: `return a <= b`\n  a and b\n  never meet\n"
    entry = equivalents.parse(text)["m.x_f__mutmut_1"]
    assert (entry.mutation, entry.reason) == ("return a <= b", "a and b never meet")


def test_an_entry_without_a_reason_is_refused_by_line():
    with pytest.raises(equivalents.EquivalentsError, match=r"^e\.md:3: m\.x_f__mutmut_1 gives"):
        equivalents.parse("intro\n\n- `m.x_f__mutmut_1`: `x`\n\nmore", "e.md")


def test_a_mutant_listed_twice_is_refused():
    text = "- `m.x_f__mutmut_1`: `x`\n  why\n- `m.x_f__mutmut_1`: `x`\n  why\n"
    with pytest.raises(equivalents.EquivalentsError, match="listed twice"):
        equivalents.parse(text)


def test_an_entry_not_in_the_form_is_refused():
    with pytest.raises(equivalents.EquivalentsError, match=r":1: an entry reads"):
        equivalents.parse("- `m.x_f__mutmut_1` x\n  why\n")


def test_a_mutation_is_its_new_lines():
    assert equivalents.mutation_of(DIFF) == "return a <= b"


def test_a_mutation_that_only_removes_says_what():
    assert equivalents.mutation_of("--- a\n+++ a\n-    x = 1\n") == "removed: x = 1"


def test_the_projects_equivalents_file_reads():
    listed = equivalents.load(EQUIVALENTS)
    sources = tuple(t.source.removesuffix(".py").replace("/", ".") + "." for t in TARGETS)
    assert listed and all(name.startswith(sources) for name in listed)


def result(statuses: dict[str, str], equivalent: list[str]) -> ModuleResult:
    return ModuleResult(TARGET_BY_NAME["sse"], 1.0, statuses, equivalent=equivalent)


def test_totals_count_equivalent_survivors_apart_and_the_score_leaves_them_out():
    statuses = {
        "a": "killed",
        "b": "killed",
        "c": "timeout",
        "d": "survived",
        "e": "survived",
        "f": "no tests",
    }
    totals = result(statuses, ["e"]).totals()
    assert totals == {
        "mutants": 6,
        "killed": 2,
        "timed out": 1,
        "survived": 1,
        "other": 1,
        "equivalent": 1,
    }
    assert score(totals) == pytest.approx(3 / 5)


def test_a_module_of_only_equivalent_mutants_has_no_score():
    totals = result({"a": "survived"}, ["a"]).totals()
    assert score(totals) is None


def test_every_target_names_its_module_and_test_files_that_exist():
    for target in TARGETS:
        assert (ROOT / target.source).is_file(), target.source
        missing = [test for test in target.tests if not (ROOT / test).is_file()]
        assert not missing, f"{target.name}: {missing}"


def test_every_module_of_the_measurement_core_is_a_target():
    core = {
        "sparkload/transport/sse.py",
        "sparkload/transport/tally.py",
        "sparkload/apis/chat.py",
        "sparkload/transport/client.py",
        "sparkload/records/requests.py",
        "sparkload/streamcheck.py",
        "analysis/figures/percentiles.py",
        "analysis/figures/metrics.py",
    }
    assert {target.source for target in TARGETS} == core
