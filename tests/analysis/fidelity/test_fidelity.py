"""Output fidelity (``analysis/fidelity/fidelity.py``): where two replies part, the reference's
reply per prompt, and each level's exact-match share against it, on synthetic run directories."""

from __future__ import annotations

import pytest

from analysis.errors import InputError
from analysis.fidelity import fidelity
from analysis.reading.load import KeptOutput, load_outputs
from sparkload.records import wilson_interval
from tests.analysis_synthetic import write_run

GREEDY = {"outputs_kept": True, "sampling": {"max_tokens": 8, "temperature": 0}}


def record(level: int, key: str, text: str, chunks: list[int] | None = None, **fields) -> dict:
    return {
        "level": level,
        "level_index": {1: 0, 4: 1, 16: 2}[level],
        "phase": "measure",
        "status": "ok",
        "latency": 1.0,
        "prompt_key": key,
        "output_text": text,
        "output_chunks": [len(text)] if chunks is None else chunks,
        **fields,
    }


def out(level: int, key: str, text: str, index: int | None = None) -> KeptOutput:
    return KeptOutput(level, level if index is None else index, key, text, (len(text),))


def test_identical_replies_have_no_difference():
    assert fidelity.first_difference(" a b c", " a b c", (2, 2, 2)) is None


def test_the_first_difference_names_its_character_and_the_chunk_that_holds_it():
    # chunks " a", " b", " x": the texts part at character 5, inside the third chunk
    assert fidelity.first_difference(" a b c", " a b x", (2, 2, 2)) == fidelity.Difference(5, 2)


def test_a_difference_at_a_chunks_first_character_is_that_chunk():
    assert fidelity.first_difference("aabbcc", "aaxbcc", (2, 2, 2)) == fidelity.Difference(2, 1)


def test_a_reply_that_stops_early_differs_where_it_ends():
    assert fidelity.first_difference(" a b c", " a b", (2, 2)) == fidelity.Difference(4, 2)


def test_chunks_that_do_not_add_up_to_the_text_count_characters():
    assert fidelity.first_difference("abcd", "abxd", (1, 1)) == fidelity.Difference(2, 2)


def test_the_reference_takes_each_prompts_most_frequent_reply_and_counts_unsteady_ones():
    outputs = [out(1, "p", "x"), out(1, "p", "y"), out(1, "p", "y"), out(1, "q", "z")]
    reference = fidelity.reference_of(outputs, 1, "ref")
    assert reference.replies["p"][0] == "y" and reference.replies["q"][0] == "z"
    assert reference.unsteady == 1


def test_the_reference_keeps_only_its_own_level():
    reference = fidelity.reference_of([out(1, "p", "x"), out(16, "q", "y")], 1, "ref")
    assert list(reference.replies) == ["p"]


def test_each_level_counts_its_pairs_exact_replies_and_unmatched_requests():
    reference = fidelity.Reference("ref", {"p": ("same", (4,)), "q": ("abcd", (4,))})
    outputs = [
        out(16, "p", "same"),
        out(16, "q", "abXd"),
        out(16, "q", "abcd"),
        out(16, "r", "new"),
    ]
    (level,) = fidelity.compare(reference, outputs, "run").levels
    assert (level.requests, level.pairs, level.unmatched, level.exact) == (4, 3, 1, 2)
    assert (level.low, level.high) == wilson_interval(2, 3)
    assert level.chars == [2] and level.differing_prompts == 1


def test_levels_come_out_in_their_order_each_with_its_own_figures():
    reference = fidelity.Reference("ref", {"p": ("a", (1,))})
    outputs = [out(16, "p", "b", 1), out(1, "p", "a", 0)]
    levels = fidelity.compare(reference, outputs, "run").levels
    assert [(lv.level, lv.exact, lv.pairs) for lv in levels] == [(1, 1, 1), (16, 0, 1)]


def test_the_first_difference_spread_is_its_p50_min_and_max():
    level = fidelity.LevelFidelity(16, 2, 3, 3, 0, 0.0, 1.0, 3, chunks=[2, 9, 4], chars=[5, 1, 3])
    assert level.chunk_stats() == (4.0, 2, 9) and level.char_stats() == (3.0, 1, 5)


def test_a_run_is_held_to_its_own_lowest_level_by_default(tmp_path):
    records = [record(1, "p", " a b"), record(1, "q", " c d")]
    records += [record(16, "p", " a b"), record(16, "q", " c x", [2, 2])] * 5
    run = write_run(tmp_path, "r", records, manifest_fields=GREEDY)
    result = fidelity.fidelity_of(run)
    assert result.reference.label == "r C=1 (this run)"
    assert [(lv.level, lv.exact, lv.pairs) for lv in result.levels] == [(1, 2, 2), (16, 5, 10)]
    assert result.levels[1].chunks == [1] * 5 and result.notes == []


def test_another_run_is_the_reference_at_the_level_asked_for(tmp_path):
    reference = write_run(
        tmp_path / "a",
        "ref",
        [record(1, "p", "one"), record(4, "p", "two")],
        manifest_fields=GREEDY,
    )
    run = write_run(tmp_path / "b", "run", [record(1, "p", "two")], manifest_fields=GREEDY)
    result = fidelity.fidelity_of(run, reference, concurrency=4)
    assert result.reference.label == "ref C=4" and result.levels[0].exact == 1


def test_a_run_that_kept_no_outputs_is_refused(tmp_path):
    run = write_run(tmp_path, "r", [record(1, "p", "a")])
    with pytest.raises(InputError, match="outputs were not kept"):
        load_outputs(run)


def test_runs_without_a_prompt_in_common_are_refused(tmp_path):
    reference = write_run(tmp_path / "a", "ref", [record(1, "p", "a")], manifest_fields=GREEDY)
    run = write_run(tmp_path / "b", "run", [record(1, "q", "a")], manifest_fields=GREEDY)
    with pytest.raises(InputError, match="no prompt in common"):
        fidelity.fidelity_of(run, reference)


def test_failed_and_warm_up_requests_are_not_compared(tmp_path):
    records = [
        record(1, "p", "a"),
        record(1, "q", "b", status="error"),
        record(1, "r", "c", phase="warmup"),
    ]
    _, outputs = load_outputs(write_run(tmp_path, "r", records, manifest_fields=GREEDY))
    assert [o.prompt_key for o in outputs] == ["p"]


def test_a_run_not_at_temperature_zero_is_said_to_be_sampled(tmp_path):
    fields = {"outputs_kept": True, "sampling": {"temperature": 0.7}}
    run = write_run(tmp_path, "r", [record(1, "p", "a")], manifest_fields=fields)
    (note,) = fidelity.fidelity_of(run).notes
    assert "temperature 0.7" in note and "not greedy" in note
