"""Output fidelity: does a variant, a draft length or a concurrency change what the model says?

Greedy replies (temperature 0, a fixed seed) kept per request (``--keep-outputs``) are matched
by their prompt's key with a reference's: another run's level, or a level of the same run (by
default the reference's lowest concurrency, the least batched). Per level of the run compared:

- **pairs**: its answered requests whose prompt the reference answered (a request whose prompt
  the reference never sent is counted apart, ``unmatched``);
- **exact**: pairs whose text is the reference's, character for character; the share with its
  95 % Wilson interval (``records.wilson_interval``). Requests of one prompt are counted each:
  a server whose batch decides the reply can answer the same prompt both ways;
- **first difference** of each differing pair: the character offset where the texts first
  differ, and the index (from 0) of the compared reply's chunk that holds it. A server that
  streams one token a chunk (vLLM without speculative decoding) makes that the token's index;
  with several tokens a chunk (MTP) it is the chunk's. A reply that is a strict prefix of the
  other differs where the shorter ends (index: its chunk count). The p50 (linear), minimum and
  maximum per level.

The reference's own repeats of a prompt should agree; where they do not, the most frequent text
is its reply (the earliest among equals) and ``unsteady`` counts such prompts: a reference that
disagrees with itself makes every share below it partly its own noise.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from analysis.errors import InputError
from analysis.reading.load import KeptOutput, Run, load_outputs
from sparkload.records import CONFIDENCE, linear_percentile, wilson_interval


@dataclass(frozen=True)
class Difference:
    """Where a reply first differs from the reference's."""

    char: int  # character offset
    chunk: int  # index of the compared reply's chunk holding it (its chunk count: it ended)


def first_difference(reference: str, text: str, chunks: tuple[int, ...] = ()) -> Difference | None:
    """Where ``text`` first differs from ``reference`` (None: they are the same); ``chunks``
    are ``text``'s chunk lengths (without them, or when they do not add up to the text, each
    character counts as a chunk)."""
    if text == reference:
        return None
    char = next(
        (i for i, (a, b) in enumerate(zip(reference, text, strict=False)) if a != b),
        min(len(reference), len(text)),
    )
    if sum(chunks) != len(text):
        return Difference(char, char)
    ends = list(itertools.accumulate(chunks))  # the offset just past each chunk
    return Difference(char, bisect.bisect_right(ends, char))


@dataclass(frozen=True)
class Reference:
    """The reference's reply per prompt key, and how it was chosen."""

    label: str  # the reference run's label and level, as the report names it
    replies: dict[str, tuple[str, tuple[int, ...]]]  # prompt key → (text, chunks)
    unsteady: int = 0  # prompts whose reference replies disagreed among themselves


def reference_of(outputs: list[KeptOutput], level_index: int, label: str) -> Reference:
    """The reference's reply per prompt in one level: its most frequent text (earliest among
    equals)."""
    texts: dict[str, Counter[str]] = {}
    first: dict[tuple[str, str], tuple[int, ...]] = {}
    for out in outputs:
        if out.level_index == level_index:
            texts.setdefault(out.prompt_key, Counter())[out.text] += 1
            first.setdefault((out.prompt_key, out.text), out.chunks)
    replies = {}
    for key, counts in texts.items():
        text = counts.most_common(1)[0][0]  # Counter keeps first-seen order among ties
        replies[key] = (text, first[(key, text)])
    return Reference(label, replies, sum(len(counts) > 1 for counts in texts.values()))


def reference_level(run: Run, outputs: list[KeptOutput], concurrency: int | None) -> int:
    """The level index the reference is taken from: the first level of ``concurrency``, or of
    the lowest concurrency with kept outputs; InputError when there is none."""
    levels = sorted({(out.level, out.level_index) for out in outputs})
    if concurrency is not None:
        levels = [level for level in levels if level[0] == concurrency]
    if not levels:
        at = "" if concurrency is None else f" at C={concurrency}"
        raise InputError(f"{run.path}: no answered request with a kept output{at}")
    return levels[0][1]


@dataclass(frozen=True)
class LevelFidelity:
    """One level of the compared run against the reference."""

    level: int  # concurrency
    level_index: int
    requests: int  # answered requests with a kept output
    pairs: int  # of them, those whose prompt the reference answered
    exact: int
    low: float  # the exact share's Wilson interval
    high: float
    differing_prompts: int  # distinct prompts with a differing reply
    chunks: list[int] = field(default_factory=list)  # first differing chunk per differing pair
    chars: list[int] = field(default_factory=list)  # first differing character, likewise

    @property
    def unmatched(self) -> int:
        return self.requests - self.pairs

    @property
    def share(self) -> float | None:
        return self.exact / self.pairs if self.pairs else None

    def chunk_stats(self) -> tuple[float, int, int] | None:
        """p50 (linear), min and max of the first differing chunk (None: nothing differed)."""
        return _stats(self.chunks)

    def char_stats(self) -> tuple[float, int, int] | None:
        return _stats(self.chars)


def _stats(values: list[int]) -> tuple[float, int, int] | None:
    if not values:
        return None
    ordered = sorted(values)
    return linear_percentile([float(v) for v in ordered], 0.5), ordered[0], ordered[-1]


@dataclass(frozen=True)
class Fidelity:
    """A run's levels held to a reference."""

    reference: Reference
    run_label: str
    levels: list[LevelFidelity]
    confidence: float = CONFIDENCE
    notes: list[str] = field(default_factory=list)  # e.g. a run that was not greedy


def compare(
    reference: Reference, outputs: list[KeptOutput], run_label: str, notes: tuple[str, ...] = ()
) -> Fidelity:
    """Every level of ``outputs`` held to ``reference``, in level order."""
    levels = []
    for (index, level), group in itertools.groupby(
        sorted(outputs, key=lambda out: (out.level_index, out.level)),
        key=lambda out: (out.level_index, out.level),
    ):
        members = list(group)
        chunks: list[int] = []
        chars: list[int] = []
        differing: set[str] = set()
        pairs = exact = 0
        for out in members:
            if (reply := reference.replies.get(out.prompt_key)) is None:
                continue
            pairs += 1
            difference = first_difference(reply[0], out.text, out.chunks)
            if difference is None:
                exact += 1
                continue
            chunks.append(difference.chunk)
            chars.append(difference.char)
            differing.add(out.prompt_key)
        low, high = wilson_interval(exact, pairs)
        levels.append(
            LevelFidelity(
                level, index, len(members), pairs, exact, low, high, len(differing), chunks, chars
            )
        )
    return Fidelity(reference, run_label, levels, notes=list(notes))


def sampling_notes(run: Run) -> list[str]:
    """What makes a run's replies not greedy, or not comparable, as its manifest says."""
    temperature = run.manifest.sampling.unknown.get("temperature")
    if temperature == 0:
        return []
    said = (
        "no temperature (the server's default)"
        if temperature is None
        else (f"temperature {temperature}")
    )
    return [
        f"`{run.label}` was sampled with {said}, not greedy (--temperature 0): its replies "
        "may differ by sampling alone"
    ]


def fidelity_of(
    run_dir: str | Path, reference_dir: str | Path | None = None, concurrency: int | None = None
) -> Fidelity:
    """``run_dir``'s levels held to ``reference_dir``'s level of ``concurrency`` (None: its
    lowest), or to one of its own levels without a reference directory; InputError for a run
    that kept no outputs, and for runs without a prompt in common."""
    run, outputs = load_outputs(run_dir)
    ref_run, ref_outputs = (run, outputs) if reference_dir is None else load_outputs(reference_dir)
    index = reference_level(ref_run, ref_outputs, concurrency)
    level = next(out.level for out in ref_outputs if out.level_index == index)
    same = reference_dir is None
    label = f"{ref_run.label} C={level}" + (" (this run)" if same else "")
    reference = reference_of(ref_outputs, index, label)
    notes = sampling_notes(ref_run) + ([] if same else sampling_notes(run))
    result = compare(reference, outputs, run.label, tuple(notes))
    if not any(level.pairs for level in result.levels):
        raise InputError(
            f"{run.path}: no prompt in common with the reference ({label}): the same prompts "
            "must be sent to both (--prompts, --seed; not --cache-bust)"
        )
    return result


def own_levels(runs: list[Run]) -> dict[tuple[str, int], LevelFidelity]:
    """Per label and concurrency, each run that kept its outputs held to its own lowest level
    (the matrix's fidelity column); a run that cannot be compared is left out here, and the
    Output fidelity section says why."""
    found: dict[tuple[str, int], LevelFidelity] = {}
    for run in runs:
        if run.manifest.outputs_kept is not True:
            continue
        try:
            result = fidelity_of(run.path)
        except (InputError, OSError):
            continue
        for level in result.levels:
            found.setdefault((run.label, level.level), level)
    return found


def _spread(stats: tuple[float, int, int] | None) -> str:
    return "—" if stats is None else f"{stats[0]:g} ({stats[1]}–{stats[2]})"


def rows(result: Fidelity) -> list[dict[str, object]]:
    """One row per level, as the Markdown and the report's table show it."""
    return [
        {
            "Level": f"C={level.level}",
            "Requests": level.requests,
            "Pairs": level.pairs,
            "Unmatched": level.unmatched,
            "Exact": level.exact,
            "Exact (%)": "—" if level.share is None else f"{100 * level.share:.1f}",
            f"{100 * result.confidence:g} % interval (%)": "—"
            if not level.pairs
            else f"{100 * level.low:.1f}–{100 * level.high:.1f}",
            "Prompts differing": level.differing_prompts,
            "First diff. chunk p50 (min–max)": _spread(level.chunk_stats()),
            "First diff. char p50 (min–max)": _spread(level.char_stats()),
        }
        for level in result.levels
    ]


METHOD = (
    "Each answered request's reply is matched by its prompt's key with the reference's reply "
    "to the same prompt (the reference's most frequent one); Exact: the same text, character "
    "for character, with its Wilson score interval. A differing pair's first difference is the "
    "character offset where the texts part and the index (from 0) of the reply's chunk holding "
    "it: the token's index where the server streams one token a chunk (vLLM without "
    "speculative decoding). Unmatched: requests whose prompt the reference never answered."
)


def summary_lines(result: Fidelity) -> list[str]:
    """What the table does not say: the reference, its steadiness, the notes."""
    lines = [f"Reference: `{result.reference.label}`, {len(result.reference.replies)} prompts."]
    if result.reference.unsteady:
        lines.append(
            f"**The reference disagrees with itself** on {result.reference.unsteady} prompt(s): "
            "its repeats of one prompt gave different replies."
        )
    return lines + result.notes
