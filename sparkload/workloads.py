"""Workloads: what each request asks for (prompt text, output length, sampling extras).

``--workload`` picks one; every process builds the same ``Workload`` from the same options.

=========  ==================================================  ==========  ==================
workload   prompt                                              max_tokens  length pinned
=========  ==================================================  ==========  ==================
chat       a line of ``--prompts`` (the ladder's default)      --max-tokens  no (``--ignore-eos``)
           or a dataset's messages (``sparkload.datasets``)    or the line's
           or --input-tokens synthetic prompts (below)         --output-tokens yes
fresh      "write a module" + a one-line spec (prompts/fresh)  400         yes
edit       a ~2,000-token source file (prompts/edit/*.py) +    3,000       yes
           "add a method to every class, output the file"
prefill    seeded filler text of ~8K / 32K / 100K tokens       1           -
=========  ==================================================  ==========  ==================

A dataset prompt is sent as its messages (system prompt and all) and asks for its own
``max_tokens`` where its line gives one (else the run's); ``--output-tokens`` overrides both.
``--api completions`` sends text, so it takes only datasets of one user message per prompt.

Synthetic prompts (``--input-tokens N``): a pool of ``SYNTHETIC_POOL`` distinct filler texts,
each fitted once, on the master, to exactly N prompt tokens (``sparkload.tokens``); the texts
reach the workers with the options of the test's start (``Synthetic``). They are fixed texts (a
nonce would change the count), distinct from their first sentence on: the first request of each
is cold, and repeats can be served from the prefix cache, as chat prompts without
``--cache-bust``.

"Pinned" sends ``ignore_eos: true`` and ``min_tokens = max_tokens`` (vLLM's sampling extras), so
the server writes exactly the asked length; ``--ignore-eos no`` drops them for servers that reject
unknown fields, ``--ignore-eos yes`` adds them to chat. Records keep the asked length
(``max_tokens``) beside the received one (``output_tokens``).

Cache busting (fresh, edit, prefill; chat with ``--cache-bust``): a unique nonce is the very
first text of every prompt,
so no prefix block can be shared with any earlier request (vLLM and the simulator chain block
hashes from the start of the prompt; the chat template's own prefix is shorter than one block
together with the nonce). ``--identical-prompts`` is the contrast case: every request of a level
sends the same text, no nonce, so the prefix cache serves all but the first.

Edit, distinct mode: stream (user) u's n-th request edits source file (u + n) mod F, so
concurrent streams edit different files as long as C <= F (F = 16 files), and the nonce keeps
any later repeat of a file cold.

Prefill: level i of the run is prompt size i (the ladder is one C=1 level per size, with
``--prefill-runs`` measured requests each, after the level's warm-up request). The text is
generated once per size from a seeded word generator; each request prepends its nonce and starts
the text at a different sentence, so no two requests share content or a prefix.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sparkload.datasets import DatasetPrompt, Messages
from sparkload.errors import ConfigError
from sparkload.paths import EDIT_SOURCES, FRESH_SPECS
from sparkload.prompts import load_prompts
from sparkload.records import ERROR_EMPTY_OUTPUT, STATUS_OK, RequestRecord
from sparkload.sim.textlength import CHARS_PER_TOKEN
from sparkload.stream import API_COMPLETIONS

if TYPE_CHECKING:
    from sparkload.config import RunOptions

CHAT, FRESH, EDIT, PREFILL = "chat", "fresh", "edit", "prefill"
NAMES = (CHAT, FRESH, EDIT, PREFILL)
OUTPUT_TOKENS = {CHAT: 128, FRESH: 400, EDIT: 3000, PREFILL: 1}  # each workload's own length
PINNED_BY_DEFAULT = (FRESH, EDIT)
NOTES_METHOD = {"temperature": 0, "chat_template_kwargs": {"enable_thinking": False}}
COLD_BY_DESIGN = (FRESH, EDIT, PREFILL)  # chat reuses its prompts unless --cache-bust
SYNTHETIC_POOL = 16  # distinct --input-tokens prompts

FRESH_INSTRUCTION = (
    "Write a complete, working Python module for the specification below. Use type hints and "
    "docstrings, keep it self-contained (standard library only), and output only the code.\n\n"
    "Specification: "
)
EDIT_INSTRUCTION = (
    "Below is a complete Python source file. Add one new, useful method to every class in it "
    "(with a docstring and type hints, consistent with the class's existing style), change "
    "nothing else, and output the complete updated file - every line, not only the changes - "
    "in a single python code block.\n\n```python\n"
)
PREFILL_INSTRUCTION = (
    "The notes below are field observations from a survey team. Read them and answer with a "
    "single word: were any instruments mentioned?\n\n"
)


@dataclass(frozen=True)
class Request:
    """One request's prompt and the fields its record keeps (``RequestRecord.extra``)."""

    text: str
    index: int  # which prompt (prefill: which size)
    extra: dict
    messages: Messages | None = None  # a dataset's messages (chat API), else one user message
    max_tokens: int | None = None  # the prompt's own output length (None: the run's)


@dataclass(frozen=True)
class Synthetic:
    """The ``--input-tokens`` prompts the master fitted, as they travel to the workers (in the
    options of the test's start: plain data)."""

    texts: tuple[str, ...]
    source: dict  # the manifest's ``prompts`` entry: generator, seed, how tokens were counted

    def to_message(self) -> dict:
        return {"texts": list(self.texts), "source": self.source}

    @classmethod
    def from_message(cls, data: dict) -> Synthetic:
        return cls(tuple(data["texts"]), dict(data["source"]))


@dataclass
class Workload:
    """Everything a process needs to build requests; ``prompts`` lets ``PromptOrder`` shuffle."""

    name: str
    prompts: tuple[str, ...]  # the distinct prompt texts (before nonce); PromptSet-compatible
    source: dict  # what the prompts came from: path(s), sha256, count (manifest)
    max_tokens: int
    pinned: bool  # ignore_eos + min_tokens sent
    identical: bool
    cache_bust: bool
    prefill_sizes: tuple[int, ...] = ()
    prefill_texts: tuple[str, ...] = ()
    dataset: tuple[DatasetPrompt, ...] = ()  # per prompt: the messages sent (datasets only)
    _sent_by_user: dict[int, int] = field(default_factory=dict)

    # ----- what goes in the body and the manifest ------------------------------------------
    @property
    def sampling(self) -> dict:
        """Extra body fields beside max_tokens (vLLM sampling extras when the length is pinned)."""
        return self.sampling_for(self.max_tokens)

    def sampling_for(self, max_tokens: int) -> dict:
        """The sampling extras of a request asking for ``max_tokens`` (a dataset line's own).

        fresh and edit follow the single-Spark notes' method: greedy decoding with thinking off
        (``temperature: 0``, ``chat_template_kwargs.enable_thinking: false``); --temperature,
        --extra-body (a key set to null removes it) and the like override them.
        """
        extras: dict = dict(NOTES_METHOD) if self.name in (FRESH, EDIT) else {}
        if self.pinned:
            extras.update(ignore_eos=True, min_tokens=max_tokens)
        return extras

    def describe(self) -> dict:
        """The manifest's ``prompts`` entry (as ``PromptSet.describe``)."""
        return dict(self.source)

    def manifest(self) -> dict:
        """The manifest's ``workload`` entry: the name and every parameter that shapes requests."""
        out = {
            "name": self.name,
            "max_tokens": self.max_tokens,
            "ignore_eos": self.pinned,
            "identical_prompts": self.identical,
            "cache_bust": self.cache_bust,
        }
        if self.name == PREFILL:
            out["prefill_sizes"] = list(self.prefill_sizes)
        return out

    # ----- one request -----------------------------------------------------------------------
    def request(self, prompt_index: int, user: int, level_index: int) -> Request:
        """The prompt of one request. ``prompt_index`` comes from the seeded ``PromptOrder``."""
        extra: dict = {"workload": self.name, "identical": self.identical}
        if self.name == PREFILL:
            size = self.prefill_sizes[max(level_index, 0) % len(self.prefill_sizes)]  # --repeat
            body = self.prefill_texts[self.prefill_sizes.index(size)]
            if not self.identical:
                body = _rotate(body, random.Random(uuid.uuid4().int))
            text = PREFILL_INSTRUCTION + body
            extra["target_tokens"] = size
            prompt_index = self.prefill_sizes.index(size)
        else:
            if self.identical:
                prompt_index = 0
            elif self.name == EDIT:
                sent = self._sent_by_user.get(user, 0)
                self._sent_by_user[user] = sent + 1
                prompt_index = (user + sent) % len(self.prompts)
            text = self.prompts[prompt_index]
        entry = self.dataset[prompt_index] if self.dataset else DatasetPrompt(())
        messages = entry.messages or None
        if self.cache_bust and not self.identical:
            mark = nonce()
            text = mark + text
            if messages:
                messages = (
                    {**messages[0], "content": mark + messages[0]["content"]},
                    *messages[1:],
                )
        extra["prompt_chars"] = len(text)
        return Request(text, prompt_index, extra, messages, entry.max_tokens)

    def after(self, record: RequestRecord) -> None:
        """Workload-specific fields once the request is measured (prefill: its prefill time).

        A max_tokens=1 probe of a reasoning model may stream no visible token (the only token is
        the think tag the reasoning parser swallows): when usage still counts it, the request
        did what a probe needs and is ok. Prefill time = TTFT, or the end of the stream when no
        token was visible (with one output token, finish, usage and [DONE] follow at once).
        """
        if self.name != PREFILL:
            return
        if record.error_kind == ERROR_EMPTY_OUTPUT and (record.output_tokens or 0) >= 1:
            record.status, record.error_kind, record.error = STATUS_OK, None, None
            record.extra["visible_output"] = False
            record.derive()
        if record.status == STATUS_OK:
            record.extra["prefill_s"] = record.ttft if record.ttft is not None else record.latency


def nonce() -> str:
    """A unique marker, the first characters of a cache-busting prompt (unique across runs)."""
    return f"[request {uuid.uuid4().hex}]\n"


def _rotate(text: str, rng: random.Random) -> str:
    """The same sentences starting at a random one (same length, different content order)."""
    cut = text.find(". ", rng.randrange(len(text)))
    if cut < 0:
        return text
    return text[cut + 2 :] + " " + text[: cut + 1]


# ----- building a workload from the options ----------------------------------------------------
def load(opts: RunOptions, synthetic: Synthetic | None = None) -> Workload:
    """The run's workload; any unreadable prompt file is a ConfigError with one line.

    With ``--input-tokens`` the prompts are ``synthetic`` (fitted by the master); until then
    (options checked before the target is known) the workload has none.
    """
    name = opts.workload
    pinned = opts.ignore_eos == "yes" or (
        opts.ignore_eos == "auto" and (name in PINNED_BY_DEFAULT or opts.output_tokens is not None)
    )
    texts: tuple[str, ...] = ()
    dataset: tuple[DatasetPrompt, ...] = ()
    if name == CHAT and opts.input_tokens is not None:
        prompts = synthetic.texts if synthetic else ()
        source = synthetic.source if synthetic else {"input_tokens": opts.input_tokens}
    elif name == CHAT:
        prompt_set = load_prompts(opts.prompts, opts.reply_lengths)
        prompts, source, dataset = prompt_set.prompts, prompt_set.describe(), prompt_set.dataset
        dataset = _for_api(dataset, opts)
    elif name == FRESH:
        specs = load_prompts(FRESH_SPECS)
        prompts, source = (
            tuple(FRESH_INSTRUCTION + spec for spec in specs.prompts),
            specs.describe(),
        )
    elif name == EDIT:
        prompts, source = _edit_prompts(EDIT_SOURCES)
    elif name == PREFILL:
        texts = tuple(
            filler_text(size * CHARS_PER_TOKEN - len(PREFILL_INSTRUCTION), opts.seed + i)
            for i, size in enumerate(opts.prefill_sizes)
        )
        prompts = ("",)
        source = {
            "generator": "sparkload.workloads.filler_text",
            "seed": opts.seed,
            "sizes_tokens": list(opts.prefill_sizes),
            "chars_per_token": CHARS_PER_TOKEN,
        }
    else:
        raise ConfigError(f"--workload: {name!r} is not one of {', '.join(NAMES)}")
    return Workload(
        name=name,
        prompts=prompts,
        source=source,
        max_tokens=opts.max_tokens,
        pinned=pinned and name != PREFILL,
        identical=opts.identical_prompts,
        cache_bust=name in COLD_BY_DESIGN or opts.cache_bust,
        prefill_sizes=opts.prefill_sizes if name == PREFILL else (),
        prefill_texts=texts,
        dataset=dataset,
    )


def _for_api(dataset: tuple[DatasetPrompt, ...], opts: RunOptions) -> tuple[DatasetPrompt, ...]:
    """A dataset as this run sends it: one text for ``--api completions`` (refused when a prompt
    has several messages: joining them would drop the roles the chat template marks), and the
    lines' own max_tokens unless ``--output-tokens`` pins every request."""
    if opts.api == API_COMPLETIONS:
        several = next((i for i, p in enumerate(dataset, 1) if len(p.messages) > 1), None)
        if several is not None:
            raise ConfigError(
                f"--api completions sends one text, but prompt {several} of {opts.prompts} has "
                "several messages (a system prompt or turns): use --api chat"
            )
    if opts.output_tokens is not None:
        return tuple(DatasetPrompt(p.messages) for p in dataset)
    return dataset


def _edit_prompts(folder: Path) -> tuple[tuple[str, ...], dict]:
    files = sorted(folder.glob("*.py")) if folder.is_dir() else []
    files = [f for f in files if not f.name.startswith("make_")]
    if not files:
        raise ConfigError(
            f"--workload edit: no source files (*.py) in {folder}; run "
            f"python {folder / 'make_sources.py'}"
        )
    digest = hashlib.sha256()
    prompts = []
    for file in files:
        raw = file.read_bytes()
        digest.update(raw)
        prompts.append(EDIT_INSTRUCTION + raw.decode("utf-8").rstrip("\n") + "\n```")
    return tuple(prompts), {
        "path": str(folder),
        "sha256": digest.hexdigest(),
        "count": len(files),
        "files": [f.name for f in files],
    }


# A small vocabulary of survey-note prose: plausible text for a tokenizer, all generated here.
_SUBJECTS = (
    "the north transect",
    "our second team",
    "the river gauge",
    "a shallow pond",
    "the ridge camp",
    "the weather mast",
    "an old stone wall",
    "the eastern meadow",
    "the sample crate",
    "a fallen larch",
    "the pump house",
    "the lower terrace",
)
_VERBS = (
    "showed",
    "recorded",
    "reached",
    "lost",
    "needed",
    "gained",
    "held",
    "crossed",
    "measured",
    "replaced",
    "flooded",
    "cleared",
)
_OBJECTS = (
    "fresh silt along the bank",
    "a steady reading all morning",
    "two extra sample bags",
    "the marker post by noon",
    "light frost on the panels",
    "a drop in water level",
    "loose gravel near the path",
    "new growth on the slope",
    "the spare battery pack",
    "a narrow gap in the fence",
    "three nesting pairs",
    "the calibration card",
)
_TAILS = (
    "before the rain started",
    "after lunch",
    "despite the wind",
    "as expected",
    "for the third day running",
    "while the light was good",
    "near the old survey pin",
    "according to the log",
    "without further trouble",
    "at the usual time",
)


def filler_text(chars: int, seed: int) -> str:
    """About ``chars`` characters of sentence-shaped prose from a seeded generator."""
    rng = random.Random(f"prefill:{seed}")
    parts: list[str] = []
    total = 0
    day = 1
    while total < chars:
        sentence = (
            f"Day {day}: {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} "
            f"{rng.choice(_OBJECTS)} {rng.choice(_TAILS)}, reading {rng.randint(2, 998)} "
            f"at station {rng.randint(1, 64)}."
        )
        day += rng.random() < 0.2
        parts.append(sentence)
        total += len(sentence) + 1
    return " ".join(parts)[: max(chars, 1)]
