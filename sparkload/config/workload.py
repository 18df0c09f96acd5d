"""The workload's options: what each request asks (prompts, lengths, conversations, prefill).

What a workload makes of them (prefill's own ladder, the output length) is the workload's:
``sparkload.workloads.registry.settle``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sparkload.config.option import WORKLOAD, Option
from sparkload.config.parsers import (
    IGNORE_EOS_CHOICES,
    Component,
    boolean,
    fraction,
    ignore_eos,
    levels,
    non_negative,
    one_of,
    optional_non_negative,
    optional_path,
    optional_whole,
    path,
    seq_dist,
    text,
    whole,
)
from sparkload.errors import ConfigError
from sparkload.paths import DEFAULT_PROMPTS
from sparkload.records import (
    WORKLOAD_CHAT,
    WORKLOAD_CONVERSATION,
    WORKLOAD_EDIT,
    WORKLOAD_FRESH,
    WORKLOAD_NAMES,
    WORKLOAD_PREFILL,
)
from sparkload.records.vocabulary import WORKLOAD_AGENT

# each workload's own output length (a conversation's: per turn), when --max-tokens is not given
OUTPUT_TOKENS = {
    WORKLOAD_CHAT: 128,
    WORKLOAD_FRESH: 400,
    WORKLOAD_EDIT: 3000,
    WORKLOAD_PREFILL: 1,
    WORKLOAD_CONVERSATION: 128,
    WORKLOAD_AGENT: 256,
}
# --history: whose replies a turn carries, or (server) that the server keeps them
HISTORY_MODEL, HISTORY_DATASET, HISTORY_SERVER = "model", "dataset", "server"
HISTORIES = (HISTORY_MODEL, HISTORY_DATASET, HISTORY_SERVER)
# --tool-choice: what an agent's tool step asks (OpenAI's tool_choice strings)
TOOL_CHOICE_AUTO, TOOL_CHOICE_REQUIRED, TOOL_CHOICE_NONE = "auto", "required", "none"
TOOL_CHOICES = (TOOL_CHOICE_AUTO, TOOL_CHOICE_REQUIRED, TOOL_CHOICE_NONE)
# --on-text-reply: an agent's tool step answered with text (no tool call)
ON_TEXT_CONTINUE, ON_TEXT_STOP = "continue", "stop"
ON_TEXT_REPLIES = (ON_TEXT_CONTINUE, ON_TEXT_STOP)
# --image-format: how synthetic images are encoded
IMAGE_PNG, IMAGE_JPEG = "png", "jpeg"
IMAGE_FORMATS = (IMAGE_PNG, IMAGE_JPEG)
MAX_IMAGE_SIDE = 8192  # pixels: a larger synthetic image is a typo, not a test


def zero_or_more(flag: str, value: object) -> int:
    """A whole number >= 0."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{flag}: {value!r} is not a whole number") from None
    if number < 0:
        raise ConfigError(f"{flag}: {value!r} must be 0 or more")
    return number


def image_sizes(flag: str, value: object) -> tuple[tuple[int, int], ...]:
    """Comma-separated ``WxH`` sizes (a YAML list is accepted too, and sizes already parsed),
    each side 1..8192 pixels."""
    parts = value if isinstance(value, list | tuple) else str(value or "").split(",")
    sizes = []
    for part in parts:
        if isinstance(part, list | tuple) and len(part) == 2:  # parsed once already
            part = f"{part[0]}x{part[1]}"
        width, x, height = str(part).strip().lower().partition("x")
        if not (x and width.isdigit() and height.isdigit()):
            raise ConfigError(f"{flag}: {str(part).strip()!r} is not a size WxH, e.g. 512x512")
        if not (0 < int(width) <= MAX_IMAGE_SIDE and 0 < int(height) <= MAX_IMAGE_SIDE):
            raise ConfigError(f"{flag}: {part} has a side outside 1..{MAX_IMAGE_SIDE} pixels")
        sizes.append((int(width), int(height)))
    return tuple(sizes)


ROWS: tuple[Option, ...] = (
    Option(
        "--workload",
        WORKLOAD_CHAT,
        "What each request asks: chat (--prompts), fresh (write a module from a one-line spec, "
        "400 tokens), edit (~2,000-token file + 'add a method to every class', 3,000 tokens), "
        "prefill (~8K/32K/100K-token prompts, max_tokens 1, C=1), conversation (multi-turn "
        "sessions, each turn sending the whole history: --turns, --think-time), agent "
        "(tool-calling sessions: --tools, --tool-turns; --agent-trace replays recorded ones)",
        WORKLOAD,
        one_of(WORKLOAD_NAMES),
        choices=WORKLOAD_NAMES,
        attr="name",
    ),
    Option(
        "--prompts",
        str(DEFAULT_PROMPTS),
        "Prompt file of the chat workload: one prompt per line (.txt), a JSONL dataset of "
        '{"messages": [...], "max_tokens": N} or {"prompt": "..."} lines (.jsonl), or ShareGPT '
        "conversations (.json)",
        WORKLOAD,
        path,
    ),
    Option(
        "--reply-lengths",
        False,
        "ShareGPT dataset: ask each prompt for as many tokens as its first gpt reply "
        "(characters / 4), as vLLM's benchmark does (default: --max-tokens)",
        WORKLOAD,
        boolean,
    ),
    Option(
        "--input-tokens",
        None,
        "Chat workload: synthetic prompts of exactly N prompt tokens, counted by --tokenizer, "
        "else the target's /tokenize (chat template included), else 4 characters a token "
        "(flagged); replaces --prompts",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--input-tokens-stddev",
        0.0,
        "Synthetic prompts: the standard deviation of their input lengths around --input-tokens "
        "(normal, clamped to 1 token, a pool of 64 seeded lengths)",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--seq-dist",
        "",
        'Synthetic prompts of a mix of input and output lengths, aiperf\'s "ISL,OSL:WEIGHT;..." '
        '(e.g. "256,16:0.75;2048,16:0.25"; ISL|SD,OSL|SD for a spread; weights are relative); '
        "replaces --input-tokens and --output-tokens, lengths pinned",
        WORKLOAD,
        seq_dist,
    ),
    Option(
        "--prefix-tokens",
        None,
        "Synthetic prompts: every prompt starts with one of --prefix-count fixed prefixes of N "
        "tokens (a shared system prompt, served from the prefix cache once warm), then its own "
        "--input-tokens",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--prefix-count",
        1,
        "How many distinct --prefix-tokens prefixes; requests take them in turn",
        WORKLOAD,
        whole,
    ),
    Option(
        "--output-tokens",
        None,
        "Exactly N output tokens per request: max_tokens N, pinned with ignore_eos + min_tokens "
        "unless --ignore-eos no (overrides a dataset's own max_tokens)",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--output-tokens-stddev",
        0.0,
        "The standard deviation of the output lengths around --output-tokens (normal, clamped "
        "to 1 token, seeded)",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--tokenizer",
        "",
        "A Hugging Face tokenizer.json that counts --input-tokens (the message text only: no "
        "chat template or special tokens)",
        WORKLOAD,
        optional_path,
    ),
    Option(
        "--max-tokens",
        None,
        "max_tokens of every request (default: the workload's own length: "
        + ", ".join(f"{k} {v}" for k, v in OUTPUT_TOKENS.items())
        + ")",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--identical-prompts",
        False,
        "Every request sends the same prompt (no cache busting): the contrast case that prefix "
        "caching flatters",
        WORKLOAD,
        boolean,
    ),
    Option(
        "--cache-bust",
        False,
        "Chat workload: start every prompt with a unique nonce, so no request is served from "
        "the prefix cache (fresh, edit and prefill always do; default: prompts are reused "
        "across levels, the quantization report's method)",
        WORKLOAD,
        boolean,
    ),
    Option(
        "--ignore-eos",
        "auto",
        "Pin output length with ignore_eos + min_tokens: yes, no, or auto (yes for fresh/edit)."
        " Records keep asked (max_tokens) and received (output_tokens) length",
        WORKLOAD,
        ignore_eos,
        choices=IGNORE_EOS_CHOICES,
        argparse_extra={"nargs": "?", "const": "yes"},
    ),
    Option(
        "--prefill-sizes",
        "8000,32000,100000",
        "Prefill workload: prompt sizes in tokens, one C=1 level each",
        WORKLOAD,
        levels,
    ),
    Option(
        "--prefill-runs",
        2,
        "Prefill workload: measured cold requests per size (after one warm-up)",
        WORKLOAD,
        whole,
    ),
    Option(
        "--turns",
        None,
        "Conversation and agent workloads: user turns per session (default 4, agent 2; a "
        "dataset or --agent-trace: each session's own, at most this many)",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--turns-stddev",
        0.0,
        "Conversation and agent workloads: standard deviation of the user turns per session "
        "(normal, rounded, at least 1; aiperf's --conversation-turn-stddev); 0: every session "
        "has --turns",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--think-time",
        0.0,
        "Conversation and agent workloads: mean seconds between a reply and the next request "
        "of its session (an agent: between steps), in the target's time (seeded exponential, "
        "none before a session's first); 0: none",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--max-think-time",
        None,
        "A TraceLab --agent-trace: the most seconds any recorded pause before a round (a "
        "tool's run, a human's reading) is replayed as, in the target's time (default: as "
        "recorded)",
        WORKLOAD,
        optional_non_negative,
    ),
    Option(
        "--history",
        HISTORY_MODEL,
        "Conversation workload and --agent-trace: the assistant turns each request carries: "
        "model (the replies the model streamed), dataset (a dataset's or trace's own replies) "
        "or server (conversation workload, --api responses: each turn sends only its new "
        "message and the turn before's previous_response_id; the server keeps the history)",
        WORKLOAD,
        one_of(HISTORIES),
        choices=HISTORIES,
    ),
    Option(
        "--tools",
        "",
        "Agent workload: a JSON file of tool definitions in OpenAI's tools format, sent with "
        "every request (default: a built-in coding agent's set: read_file, run_command, "
        "edit_file, search_code)",
        WORKLOAD,
        optional_path,
    ),
    Option(
        "--tool-choice",
        TOOL_CHOICE_AUTO,
        "Agent workload: the tool_choice of each tool step (auto, required: vLLM forces a call "
        "by guided decoding, none); an answer step always asks none",
        WORKLOAD,
        one_of(TOOL_CHOICES),
        choices=TOOL_CHOICES,
    ),
    Option(
        "--tool-turns",
        2,
        "Agent workload: tool steps in every user turn before its answer step (each answered "
        "with a synthetic tool result); 0: one answer step per user turn",
        WORKLOAD,
        zero_or_more,
    ),
    Option(
        "--tool-result-tokens",
        512,
        "Agent workload: tokens of each synthetic tool result's content (seeded filler text, "
        "fitted as --input-tokens prompts are: by --tokenizer, else the target's /tokenize, "
        "else 4 characters a token)",
        WORKLOAD,
        whole,
    ),
    Option(
        "--tool-result-tokens-stddev",
        0.0,
        "Agent workload: the standard deviation of the tool results' tokens around "
        "--tool-result-tokens (normal, clamped to 1 token, seeded)",
        WORKLOAD,
        non_negative,
    ),
    Option(
        "--on-text-reply",
        ON_TEXT_CONTINUE,
        "Agent workload: a tool step answered with text, not a tool call: continue (the text "
        "and a 'continue' user message join the context, the next step follows) or stop (the "
        "session ends there; its records count the steps left unsent)",
        WORKLOAD,
        one_of(ON_TEXT_REPLIES),
        choices=ON_TEXT_REPLIES,
    ),
    Option(
        "--subagent-rate",
        0.0,
        "Agent workload: the chance that a tool step spawns a sub-agent session (a blocking "
        "task tool: the parent's next step waits for the sub-agent's last reply, whose text is "
        "the call's result); drawn per session when it begins, so its count is known; 0: none",
        WORKLOAD,
        fraction,
    ),
    Option(
        "--subagent-depth",
        1,
        "Agent workload, --subagent-rate: how deep sub-agents nest (1: a sub-agent spawns none)",
        WORKLOAD,
        whole,
    ),
    Option(
        "--subagent-turns",
        1,
        "Agent workload, --subagent-rate: user turns of each sub-agent session (each "
        "--tool-turns tool steps and one answer step, as the parent's)",
        WORKLOAD,
        whole,
    ),
    Option(
        "--subagent-fork",
        0.0,
        "Agent workload, --subagent-rate: the share of sub-agents forked (they start from the "
        "parent's history as sent, so a prefix cache serves it); the others start fresh, with "
        "a system prompt and task of their own",
        WORKLOAD,
        fraction,
    ),
    Option(
        "--compact-at",
        None,
        "Agent workload: compact a session's context once a request's prompt passes this many "
        "tokens (the server's count): the next request carries a summary of --compact-to "
        "tokens in place of the history, as coding agents compact theirs",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--compact-to",
        None,
        "Agent workload, --compact-at: the prompt's size after compaction, in tokens (the "
        "system prompt and tools included; default: a quarter of --compact-at)",
        WORKLOAD,
        optional_whole,
    ),
    Option(
        "--agent-trace",
        None,
        "Replay recorded agent sessions (sglang's agentic-trace JSON, a JSONL of OpenAI "
        "message lists with tool_calls and tool messages, or TraceLab's round counts, plain or "
        "gzip: prompts synthesized to the recorded sizes, sub-agents nested), one request per "
        "recorded turn, closed loop; chooses --workload agent",
        WORKLOAD,
        optional_path,
    ),
    Option(
        "--tenants",
        None,
        "Traffic classes sent side by side (a JSON or YAML file: each class's name, share of "
        "the users or arrival rate, workload, options, model and SLO; docs/tenants.md); "
        "every record names its class, the report has a Tenants section",
        WORKLOAD,
        optional_path,
    ),
    Option(
        "--tenant-baselines",
        False,
        "--tenants: before the mix, each class alone for a short baseline (a level of its "
        "share of the first level's users, at least one, smallest first, --requests-per-user "
        "each); the report sets each class's figures in the mix beside them (interference)",
        WORKLOAD,
        boolean,
    ),
    Option(
        "--quality-probe",
        "",
        "Grade accuracy beside the load: in every measured ladder level, --quality-items of "
        "the level's requests are an accuracy probe's items (arithmetic, retrieval, or a "
        "dataset FILE as sparkload quality --dataset reads it), sent by the level's own users "
        'at its concurrency and graded; per level in quality.json (see "Accuracy")',
        WORKLOAD,
        text,
    ),
    Option(
        "--quality-items",
        8,
        "--quality-probe: the probe's items per level (at most the level's requests, C x "
        "--requests-per-user; each level asks items of its own)",
        WORKLOAD,
        whole,
    ),
    Option(
        "--quality-answers",
        None,
        "--quality-probe FILE in BFCL's format: its possible-answer file, the ground truth of "
        "items that hold none, by id (default: BFCL's possible_answer/NAME beside the file)",
        WORKLOAD,
        optional_path,
    ),
    Option(
        "--images",
        0,
        "Synthetic images each request carries in its last user message, as content parts "
        "(seeded noise, made once per run; chat and responses APIs)",
        WORKLOAD,
        zero_or_more,
    ),
    Option(
        "--image-size",
        "512x512",
        "Size of the synthetic images, WxH; several (224x224,896x896) are taken in turn by "
        "prompt index",
        WORKLOAD,
        image_sizes,
    ),
    Option(
        "--image-format",
        IMAGE_PNG,
        "Encoding of the synthetic images: png or jpeg",
        WORKLOAD,
        one_of(IMAGE_FORMATS),
        choices=IMAGE_FORMATS,
    ),
)


@dataclass(frozen=True)
class WorkloadOptions:
    name: str  # --workload (a trace replay's: the trace workload, settled by --trace)
    prompts: Path
    reply_lengths: bool
    input_tokens: int | None  # synthetic prompts of this many tokens (None: --prompts)
    input_tokens_stddev: float
    seq_dist: tuple[Component, ...]  # a mix of (input, output) lengths (empty: not given)
    prefix_tokens: int | None  # shared prefixes of this many tokens (None: none)
    prefix_count: int
    output_tokens: int | None  # pinned output length (None: not asked)
    output_tokens_stddev: float
    tokenizer: Path | None
    max_tokens: int | None  # as given (None: the workload's own length)
    identical_prompts: bool
    cache_bust: bool
    ignore_eos: str  # auto | yes | no
    prefill_sizes: tuple[int, ...]
    prefill_runs: int
    turns: int | None  # a conversation's turns (None: the workload's default, a dataset's own)
    turns_stddev: float
    think_time: float  # mean think time, target seconds (0: none)
    max_think_time: float | None  # a TraceLab replay's cap on its recorded pauses (None: none)
    history: str  # model | dataset
    tools: Path | None  # an agent's tools file (None: the built-in set)
    tool_choice: str  # auto | required | none
    tool_turns: int  # tool steps per user turn, before its answer
    tool_result_tokens: int
    tool_result_tokens_stddev: float
    on_text_reply: str  # continue | stop
    subagent_rate: float  # a tool step's chance to spawn a sub-agent (0: none)
    subagent_depth: int  # how deep sub-agents nest
    subagent_turns: int  # user turns of a sub-agent session
    subagent_fork: float  # the share of sub-agents forked from the parent's history
    compact_at: int | None  # compact a context past this many prompt tokens (None: never)
    compact_to: int | None  # the prompt's tokens after compaction (None: compact_at / 4)
    agent_trace: Path | None  # recorded agent sessions to replay (None: synthetic sessions)
    tenants: Path | None  # the traffic classes' file (None: one class, --workload's)
    tenant_baselines: bool  # each class alone before the mix
    quality_probe: str  # arithmetic | retrieval | a dataset file ("": no probe)
    quality_items: int  # the probe's items per measured level
    quality_answers: Path | None  # a BFCL probe file's answer file (None: found beside it)
    images: int  # synthetic images a request carries (0: none)
    image_size: tuple[tuple[int, int], ...]  # their sizes, taken in turn by prompt index
    image_format: str  # png | jpeg

    @property
    def synthetic(self) -> bool:
        """The chat prompts are fitted synthetic texts (--input-tokens or --seq-dist)."""
        return self.input_tokens is not None or bool(self.seq_dist)
