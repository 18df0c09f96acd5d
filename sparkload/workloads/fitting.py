"""Token-exact synthetic prompts (``--input-tokens N``): count tokens, fit filler text to N.

How tokens are counted, in this order (the manifest's ``prompts.token_count`` says which):

1. ``--tokenizer PATH``: a Hugging Face ``tokenizer.json`` (the ``tokenizers`` library). It counts
   the message text without special tokens or a chat template, so the server's
   ``usage.prompt_tokens`` is N plus its template's own tokens (a BOS, the role markers).
   Chosen first when given: the user asked for it, and it is the same count offline.
2. The target's tokenizer route, which counts what the request's usage counts, chat template
   included: vLLM's ``POST /tokenize`` (``{"model", "messages"}``, or ``{"model", "prompt"}`` for
   ``--api completions``), else llama.cpp's ``POST /apply-template`` + ``POST /tokenize``
   (``add_special``: the BOS it adds to a prompt).
3. Otherwise ``ceil(characters / 4)``: an estimate, flagged with a warning and in the manifest.

The agent workload's tool results (``--tool-result-tokens``) are fitted the same way, by the
same counter, to the tokens of a message's content alone (``Content``: a server's count less
that of an empty message, its chat template's own): the whole request's count is then the
context's framing plus exactly those tokens, wherever in a context the result goes.

Fitting: each prompt is a prefix of seeded filler text (``workloads.filler``, which is
prefix-stable). A first guess (the tokenizer's offset of token N, else 4 characters a token) is
refined by interpolation and bisection on the prefix length, a few counts per prompt (the server
route costs one HTTP request each), until the count is N. The master fits the pool once, before
the load; the texts reach the workers in the options of the test's start.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import requests

from sparkload.apis import wire_api
from sparkload.config.parsers import Component
from sparkload.errors import ConfigError
from sparkload.inputs.traces import BLOCK_TOKENS
from sparkload.sim.textlength import CHARS_PER_TOKEN, estimate_tokens
from sparkload.transport.target import models_url
from sparkload.workloads import blocktext
from sparkload.workloads.contract import SEPARATOR, Synthetic
from sparkload.workloads.filler import GENERATOR, filler_text
from sparkload.workloads.lengths import SINGLE_POOL, plan, pool_size

if TYPE_CHECKING:
    from sparkload.config import RunOptions

METHOD_ESTIMATE = "estimate:4-chars"
MAX_COUNTS = 48  # counts per prompt at most (server: HTTP requests)
TIMEOUT = 30.0


class Counter(Protocol):
    method: str  # the manifest's name of the method
    counts: str  # what exactly is counted

    def count(self, text: str) -> int: ...

    def guess(self, text: str, tokens: int) -> int:
        """About how many characters of ``text`` hold ``tokens`` tokens."""
        ...


@dataclass
class Estimate:
    method: str = METHOD_ESTIMATE
    counts: str = "characters / 4, rounded up: an estimate, not the server's count"
    why: str = "no --tokenizer was given"  # what was tried before settling for the estimate

    def count(self, text: str) -> int:
        return estimate_tokens(text)

    def guess(self, text: str, tokens: int) -> int:
        return tokens * CHARS_PER_TOKEN


class FileTokenizer:
    """A Hugging Face ``tokenizer.json``, counting the message text alone."""

    counts = "the message text by this tokenizer, without special tokens or chat template"

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer  # here: only a run with --tokenizer loads it

        try:
            self._tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:  # noqa: BLE001 - the library raises bare Exceptions
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ConfigError(f"--tokenizer: cannot load {path}: {first}") from None
        self.method = f"tokenizer:{path}"

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def guess(self, text: str, tokens: int) -> int:
        offsets = self._tokenizer.encode(text, add_special_tokens=False).offsets
        return offsets[min(tokens, len(offsets)) - 1][1] if offsets else 0


@dataclass
class ServerTokenizer:
    """The target's own tokenizer route (vLLM, or llama.cpp), asked once per count."""

    root: str  # scheme://host:port[/prefix], without /v1
    model: str
    chat: bool  # count the text as one user message with the chat template
    headers: dict[str, str]
    verify_tls: bool
    llama_cpp: bool = False
    method: str = "server:/tokenize"
    counts: str = "the server's count of the request's prompt, chat template included"
    _session: requests.Session = field(default_factory=requests.Session, repr=False)

    def count(self, text: str) -> int:
        if not self.llama_cpp:
            key, value = ("messages", _messages(text)) if self.chat else ("prompt", text)
            return int(self._post("/tokenize", {"model": self.model, key: value})["count"])
        if self.chat:
            text = str(self._post("/apply-template", {"messages": _messages(text)})["prompt"])
        return len(self._post("/tokenize", {"content": text, "add_special": True})["tokens"])

    def guess(self, text: str, tokens: int) -> int:
        return tokens * CHARS_PER_TOKEN

    def _post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._session.post(
                self.root + route,
                json=body,
                headers=self.headers,
                timeout=TIMEOUT,
                verify=self.verify_tls,
            )
        except requests.exceptions.RequestException as exc:
            raise ConfigError(f"{self.root}{route}: {type(exc).__name__}") from None
        if response.status_code != 200:
            raise ConfigError(f"{self.root}{route} answered HTTP {response.status_code}")
        return response.json()

    @property
    def request_form(self) -> str:
        """The request this counter sends, as messages name it."""
        if not self.llama_cpp:
            return f"vLLM's POST /tokenize {{model, {'messages' if self.chat else 'prompt'}}}"
        if self.chat:
            return "llama.cpp's POST /apply-template {messages} + /tokenize {content}"
        return "llama.cpp's POST /tokenize {content}"

    @classmethod
    def probe(
        cls, host: str, model: str, api: str, headers: dict[str, str], verify_tls: bool
    ) -> ServerTokenizer | list[str]:
        """The route ``host`` has (vLLM's, then llama.cpp's), or what each attempt got."""
        root = models_url(host).removesuffix("/v1/models")
        tried = []
        for llama_cpp in (False, True):
            chat = wire_api(api).carries_messages
            found = cls(root, model, chat, headers, verify_tls, llama_cpp)
            if llama_cpp:
                route = "/apply-template+/tokenize" if found.chat else "/tokenize"
                found.method = f"server:llama.cpp{route}"
            try:
                if found.count("Hello") > 0:
                    return found
                outcome = "a count of 0"
            except ConfigError as exc:
                outcome = str(exc).removeprefix(root)
            except (ValueError, KeyError, TypeError):
                outcome = "an answer in a form sparkload does not read"
            tried.append(f"{found.request_form}: {outcome}")
        return tried


class Content:
    """``counter``'s count of a message's content alone: less the count of an empty message
    where the counter counts a chat template (the server's route; a tokenizer file and the
    estimate count the text alone already)."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter
        self.method = counter.method
        self.counts = "a message's content alone: " + counter.counts
        self.template = counter.count("") if isinstance(counter, ServerTokenizer) else 0

    def count(self, text: str) -> int:
        return self.counter.count(text) - self.template

    def guess(self, text: str, tokens: int) -> int:
        return self.counter.guess(text, tokens)


def counter_for(opts: RunOptions, host: str, model: str, headers: dict[str, str]) -> Counter:
    """--tokenizer, else the target's route, else the estimate (whose ``why`` says what the
    target answered; the caller flags it)."""
    if opts.workload.tokenizer is not None:
        return FileTokenizer(opts.workload.tokenizer)
    server = ServerTokenizer.probe(host, model, opts.request.api, headers, not opts.target.insecure)
    if isinstance(server, ServerTokenizer):
        return server
    return Estimate(why="no --tokenizer, and " + "; ".join(server))


def _messages(text: str) -> list[dict[str, str]]:
    """What the chat API sends for a synthetic prompt (``sparkload.body``)."""
    return [{"role": "user", "content": text}]


def fit(
    counter: Counter, tokens: int, seed: int, head: str = "", head_tokens: int = 0
) -> tuple[str, int]:
    """A prefix of seeded filler text that, after ``head`` (of ``head_tokens`` tokens), makes
    ``tokens`` tokens by ``counter`` (or as near as none is exact): the filler part, and the
    count of head and filler together."""
    own = max(tokens - head_tokens, 1)
    chars = own * CHARS_PER_TOKEN * 2 + 64
    source = filler_text(chars, seed)
    while counter.count(head + source) < tokens:
        chars *= 2
        source = filler_text(chars, seed)
    lo, hi = 0, len(source)  # count(head + source[:lo]) < tokens <= count(head + source[:hi])
    best = (source, counter.count(head + source))
    length = min(max(counter.guess(source, own), 1), hi)
    for _ in range(MAX_COUNTS):
        found = counter.count(head + source[:length])
        if abs(found - tokens) < abs(best[1] - tokens):
            best = (source[:length], found)
        if found == tokens:
            break
        lo, hi = (length, hi) if found < tokens else (lo, length)
        if hi - lo <= 1:
            break
        step = (
            round(length * (tokens - head_tokens) / (found - head_tokens))
            if found > head_tokens
            else hi
        )
        length = step if lo < step < hi else (lo + hi) // 2
    return best


class Tally:
    """A counter that counts its own counts: what fitting cost (server: HTTP requests)."""

    def __init__(self, counter: Counter) -> None:
        self.counter = counter
        self.method, self.counts = counter.method, counter.counts
        self.made = 0

    def count(self, text: str) -> int:
        self.made += 1
        return self.counter.count(text)

    def guess(self, text: str, tokens: int) -> int:
        return self.counter.guess(text, tokens)


def synthesize(
    counter: Counter,
    lengths: int | tuple[Component, ...],
    seed: int,
    prefix_tokens: int | None = None,
    prefix_count: int = 1,
) -> Synthetic:
    """The pool of distinct prompts (``workloads.lengths``: one length, or a distribution of
    them), each after one of ``prefix_count`` shared prefixes of ``prefix_tokens`` when given,
    and how they were counted.

    A prefix is fitted alone to ``prefix_tokens``; a prompt's own part is fitted after its
    prefix and a blank line, so that the whole prompt counts ``prefix_tokens`` + its input
    length: exact by the counter, chat template included when the counter is the server's
    (which counts the template once, with the prefix)."""
    components = (Component(lengths, None),) if isinstance(lengths, int) else lengths
    tally = Tally(counter)
    prefixes = prefix_count if prefix_tokens else 0
    pool = pool_size(components, prefixes)
    entries = plan(components, pool, seed)
    floor = tally.count(filler_text(1, seed))
    shortest = min(entry.input_tokens for entry in entries)
    asked = f"--input-tokens {shortest}" if pool == SINGLE_POOL else f"a prompt of {shortest}"
    if prefix_tokens and prefix_tokens < shortest:
        shortest, asked = prefix_tokens, f"--prefix-tokens {prefix_tokens}"
    if floor > shortest:
        raise ConfigError(
            f"{asked}: a one-character prompt already counts {floor} tokens ({counter.method}: "
            "the chat template's own); ask for more"
        )
    prefix = prefix_tokens or 0
    heads = [fit(tally, prefix, _prefix_seed(seed, k)) for k in range(prefixes)]
    fitted, targets = [], []
    for i, entry in enumerate(entries):
        head, head_tokens = ("", 0)
        if heads:
            head, head_tokens = heads[i % prefixes][0] + SEPARATOR, heads[i % prefixes][1]
        targets.append(entry.input_tokens + (prefix if heads else 0))
        fitted.append(fit(tally, targets[-1], seed * pool + i, head, head_tokens))
    counted = [count for _, count in fitted]
    source: dict[str, Any] = {
        "generator": GENERATOR,
        "seed": seed,
        "count": pool,
        "input_tokens": components[0].input_tokens if len(components) == 1 else None,
        "token_count": {
            "method": counter.method,
            "counts": counter.counts,
            "exact": counted == targets and all(c == prefix for _, c in heads),
            "largest_miss": max(abs(c - t) for c, t in zip(counted, targets, strict=True)),
            "min": min(counted),
            "max": max(counted),
            "counts_made": tally.made,
        },
    }
    if len(components) > 1 or any(c.input_stddev or c.output_stddev for c in components):
        source["lengths"] = [c.to_dict() for c in components]
    if heads:
        source["prefix"] = {
            "tokens": prefix_tokens,
            "count": prefixes,
            "counted": [count for _, count in heads],
        }
    return Synthetic(
        tuple(text for text, _ in fitted),
        source,
        outputs=tuple(entry.output_tokens for entry in entries),
        prefixes=tuple(text for text, _ in heads),
    )


def synthesize_results(counter: Counter, tokens: int, stddev: float, seed: int) -> Synthetic:
    """The pool of the agent's tool results (``--tool-result-tokens``, ``-stddev``): as
    ``synthesize``'s prompts, each fitted to its length as a message's content (``Content``);
    the source names the results' lengths as ``input_tokens``, the pool's term."""
    return synthesize(Content(counter), (Component(tokens, None, input_stddev=stddev),), seed)


def _prefix_seed(seed: int, k: int) -> int:
    """Filler seeds of the prefixes: apart from the prompts' own (seed x pool + i)."""
    return -(seed * 1_000_003 + k + 1)


def count_blocks(counter: Counter) -> dict[str, Any]:
    """How ``counter`` counts a trace block (``workloads.blocktext``, 512 one-token units): two
    blocks less one, so a chat template's tokens cancel out. The trace's prompts reach their
    lengths and block boundaries exactly when this is 512."""
    one = blocktext.block_text("count:1", BLOCK_TOKENS)
    two = one + blocktext.block_text("count:2", BLOCK_TOKENS)
    counted = counter.count(two) - counter.count(one)
    return {
        "generator": blocktext.GENERATOR,
        "salt": uuid.uuid4().hex,  # this run's blocks are its own: cold in the prefix cache
        "token_count": {
            "method": counter.method,
            "counts": counter.counts,
            "block_tokens": counted,
            "exact": counted == BLOCK_TOKENS,
        },
    }
