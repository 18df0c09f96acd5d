"""The agent workload's options: what it refuses, and the agent options another workload was
given (each a ConfigError of one line, before the load)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sparkload.apis import able_to, wire_api
from sparkload.config import HISTORY_DATASET, HISTORY_SERVER, changed, default
from sparkload.config.workload import TOOL_CHOICE_NONE
from sparkload.errors import ConfigError
from sparkload.records import WORKLOAD_CHAT
from sparkload.records.vocabulary import WORKLOAD_AGENT
from sparkload.workloads.compaction import Compaction
from sparkload.workloads.contract import check_lengths_agree, refuse_input_tokens

if TYPE_CHECKING:
    from sparkload.config import RunOptions

SYNTHETIC_FLAGS = (  # options of synthetic sessions only: a replay's sessions are the trace's
    ("--tool-turns", "tool_turns"),
    ("--tool-result-tokens", "tool_result_tokens"),
    ("--tool-result-tokens-stddev", "tool_result_tokens_stddev"),
    ("--on-text-reply", "on_text_reply"),
    ("--subagent-rate", "subagent_rate"),
    ("--subagent-depth", "subagent_depth"),
    ("--subagent-turns", "subagent_turns"),
    ("--subagent-fork", "subagent_fork"),
    ("--compact-at", "compact_at"),
    ("--compact-to", "compact_to"),
    ("--turns-stddev", "turns_stddev"),
    ("--prompts", "prompts"),
    ("--reply-lengths", "reply_lengths"),
)
AGENT_FLAGS = (
    *SYNTHETIC_FLAGS[:10],
    ("--tools", "tools"),
    ("--tool-choice", "tool_choice"),
    ("--max-think-time", "max_think_time"),
)
SUBAGENT_FLAGS = SYNTHETIC_FLAGS[5:8]  # --subagent-rate's details


def settle_agent(opts: RunOptions) -> RunOptions:
    """``opts`` checked for the agent workload."""
    check_lengths_agree(opts)
    refuse_input_tokens(WORKLOAD_AGENT, opts)
    w = opts.workload
    if opts.plan.arrival_rate:
        raise ConfigError(
            "--workload agent runs closed loop (each step waits for the reply before it, "
            "which the next step's context holds): drop --arrival-rate, or use the ladder "
            "or --step-duration"
        )
    if not wire_api(opts.request.api).carries_tools:
        raise ConfigError(
            f"--workload agent sends messages and tools: use --api {able_to('carries_tools')}"
        )
    if w.history == HISTORY_SERVER:
        raise ConfigError(
            "--history server chains a conversation's turns by a reply the server kept: it is "
            "--workload conversation's (an agent's steps carry their history)"
        )
    if w.identical_prompts or w.cache_bust:
        raise ConfigError(
            "--workload agent starts every session unique and means its later steps to hit "
            "the prefix cache: drop --identical-prompts / --cache-bust"
        )
    clash = [key for key in ("tools", "tool_choice") if key in opts.request.extra_body]
    if clash:
        raise ConfigError(
            f"--extra-body sets {', '.join(clash)}: --workload agent sends its own "
            "(give --tools FILE, --tool-choice)"
        )
    if w.max_think_time is not None and w.agent_trace is None:
        raise ConfigError(
            "--max-think-time caps a TraceLab trace's recorded pauses: give --agent-trace FILE"
        )
    if w.agent_trace is not None:
        given = [flag for flag, dest in SYNTHETIC_FLAGS if _given(opts, dest)]
        if given:
            raise ConfigError(
                f"--agent-trace replays the trace's sessions: drop {', '.join(given)}"
            )
        return opts
    if w.history == HISTORY_DATASET:
        raise ConfigError(
            "--history dataset replays a trace's recorded replies: give --agent-trace FILE "
            "(synthetic agent sessions always carry the model's own)"
        )
    if w.tool_choice == TOOL_CHOICE_NONE and w.tool_turns:
        raise ConfigError(
            "--tool-choice none asks for no tool call, so a tool step cannot be one: give "
            "--tool-turns 0 (tools in the prompt, text answers)"
        )
    _check_subagents(opts)
    Compaction.from_options(w.compact_at, w.compact_to)
    return opts


LAB_UNUSED = (  # what a TraceLab replay has no use for: its rounds carry no text, tools or gaps
    ("--tools", "tools"),
    ("--tool-choice", "tool_choice"),
    ("--history", "history"),
    ("--think-time", "think_time"),
    ("--max-tokens", "max_tokens"),
    ("--output-tokens", "output_tokens"),
)


def check_recorded_kind(opts: RunOptions, tracelab: bool) -> None:
    """The options a trace of this kind cannot honour (``tracelab``: TraceLab's rounds, read
    only once the file is), each a ConfigError of one line."""
    w = opts.workload
    if not tracelab:
        if w.max_think_time is not None:
            raise ConfigError(f"--max-think-time: {w.agent_trace} holds no TraceLab rounds")
        return
    given = [flag for flag, dest in LAB_UNUSED if _given(opts, dest)]
    if given:
        raise ConfigError(
            f"{', '.join(given)}: {w.agent_trace} holds TraceLab rounds, which are sent as "
            "recorded (one message of the recorded size, no tools, the recorded output "
            "length and pauses)"
        )


def _check_subagents(opts: RunOptions) -> None:
    w = opts.workload
    if w.subagent_rate and not w.tool_turns:
        raise ConfigError(
            "--subagent-rate spawns sub-agents from tool steps: give --tool-turns 1 or more"
        )
    if not w.subagent_rate:
        given = [flag for flag, dest in SUBAGENT_FLAGS if _given(opts, dest)]
        if given:
            raise ConfigError(f"{', '.join(given)}: sub-agents need --subagent-rate above 0")


def _given(opts: RunOptions, dest: str) -> bool:
    """Whether the option ``dest`` differs from its default (the table's)."""
    return getattr(opts.workload, dest) != default(dest)


def refuse_agent_options(opts: RunOptions) -> None:
    """The agent options given to another workload: a ConfigError of one line (they would do
    nothing there)."""
    given = [flag for flag, dest in AGENT_FLAGS if _given(opts, dest)]
    if given:
        raise ConfigError(
            f"{', '.join(given)}: for --workload agent (this run's is {opts.workload.name})"
        )


def choose_agent(opts: RunOptions) -> RunOptions:
    """``--agent-trace`` chooses the agent workload (as ``--trace`` chooses the trace's)."""
    if opts.plan.trace is not None:
        raise ConfigError("--agent-trace and --trace are two replays: give one of them")
    if opts.workload.name not in (WORKLOAD_CHAT, WORKLOAD_AGENT):
        raise ConfigError(
            f"--agent-trace replays agent sessions; --workload {opts.workload.name} has its own"
        )
    return changed(opts, workload=WORKLOAD_AGENT)
