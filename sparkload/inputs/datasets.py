"""Prompt datasets users bring: JSONL of OpenAI ``messages`` and ShareGPT JSON.

Formats (``--prompts FILE``; ``prompts.load_prompts`` picks one by extension, then content):

- **JSONL** (``.jsonl``): one JSON object per line, either ``{"messages": [{"role": "system",
  "content": ...}, {"role": "user", "content": ...}], "max_tokens": 256}`` or ``{"prompt":
  "..."}`` (one user message); ``max_tokens`` is optional per line, and so is ``schema``, a
  JSON Schema the reply must match (structured output, ``inputs/schemas.py``: sent as the
  request's ``response_format``, over ``--response-format``'s), and so is ``category``, a
  name for what the line asks (coding, math, ...: the record's ``category``, the report's
  grouping; sent as the ``X-Sparkload-Category`` header, which the built-in simulator reads
  and a real server ignores). A line may also be one ShareGPT conversation object.
- **ShareGPT** (``.json``): a JSON list of ``{"conversations": [{"from": "system" | "human" |
  "gpt", "value": ...}, ...]}``. The prompt is the conversation up to and including its first
  human turn (a system turn before it is kept); a conversation without a human turn is skipped
  (the manifest counts them), as vLLM's benchmark skips them.

**Conversations** (``--workload conversation``, ``parse_conversations``): the same files read
as whole conversations. A conversation is its leading system (or developer) messages, then its
turns: each user message with the assistant reply the file gives after it (None when the next
message is another user's, or the file ends). A ``{"prompt": ...}`` line is a one-turn
conversation; a conversation with no user message is skipped (counted); a system message after
the first user message is refused (it has no place in a replayed history).

A ShareGPT reply's length is not the request's output length unless ``--reply-lengths`` asks
for it (then ``ceil(characters / 4)`` of the first gpt reply after the prompt, vLLM's benchmark
method with the 4-characters estimate in place of a tokenizer): that reply was written by another
model, and a length pinned by the user (``--max-tokens``, ``--output-tokens``) is what makes
levels comparable. Any problem is a ``ConfigError`` of one line naming the file and the line
(JSONL) or item (a JSON list).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparkload.errors import ConfigError
from sparkload.inputs.files import UserFile
from sparkload.inputs.images import resolved_content
from sparkload.inputs.schemas import checked_schema
from sparkload.sim.textlength import estimate_tokens

JSONL, SHAREGPT, TEXT = "jsonl", "sharegpt", "text"
MAX_CATEGORY = 64  # characters of a line's category
ROLES = ("system", "developer", "user", "assistant")
SHAREGPT_ROLES = {
    "system": "system",
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
}

# Chat messages as sent: a dataset's are role and text; an agent's also carry ``tool_calls``
# (a list), ``tool_call_id``, and content that may be None or a list of parts.
Messages = tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class DatasetPrompt:
    """One prompt of a dataset: the messages sent as they are, and its own output length."""

    messages: Messages
    max_tokens: int | None = None  # the line's own max_tokens (None: the run's)
    schema: dict[str, Any] | None = None  # the line's own JSON Schema for the reply (None: none)
    category: str | None = None  # what the line asks (coding, math, ...; None: not said)

    @property
    def text(self) -> str:
        """The messages' contents joined: the prompt of ``--api completions`` (one message)."""
        return "\n".join(content_text(message["content"]) for message in self.messages)

    @property
    def has_images(self) -> bool:
        return any(isinstance(message["content"], list) for message in self.messages)


def prefixed(mark: str, content: str | list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """``mark`` before a message's content (as a first text part before content parts)."""
    if isinstance(content, str):
        return mark + content
    return [{"type": "text", "text": mark}, *content]


def content_text(content: str | list[dict[str, Any]]) -> str:
    """A message's text: its content, or its text parts joined (its images left out)."""
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content if part.get("type") == "text")


@dataclass(frozen=True)
class PromptDataset:
    """A dataset file read: its prompts in file order (a chat workload sends them as they are)."""

    format: str  # JSONL | SHAREGPT
    prompts: tuple[DatasetPrompt, ...]
    skipped: int = 0  # ShareGPT conversations without a human turn


def sniff(suffix: str, text: str) -> str:
    """The format of a prompt file: its extension first, then its first character."""
    if suffix == ".jsonl":
        return JSONL
    head = text.lstrip()[:1]
    if suffix == ".json":
        return SHAREGPT if head == "[" else JSONL
    if head == "[":
        return SHAREGPT
    return JSONL if head == "{" else TEXT


@dataclass(frozen=True)
class DatasetTurn:
    """One user turn of a dataset conversation, and the reply the file gives after it."""

    user: dict[str, Any]  # the user message, as sent (its content may be content parts)
    reply: str | None = None  # the file's assistant reply (None: the file gives none)
    max_tokens: int | None = None  # its own output length (the line's, or --reply-lengths')


@dataclass(frozen=True)
class DatasetConversation:
    prefix: Messages  # the system (or developer) messages before the first user turn
    turns: tuple[DatasetTurn, ...]  # at least one
    category: str | None = None  # what the line asks (its ``category``; None: not said)


def _items(file: UserFile, fmt: str) -> list[tuple[str, Any]]:
    """Each record of the file with where it is (``name line N`` / ``name item N``): a
    dataset's image paths are relative to the file's directory, which ``where`` names."""
    name = str(file.path)
    if fmt == JSONL:
        return [(f"{name} line {number}", item) for number, item in file.json_lines()]
    data = file.json()
    if not isinstance(data, list):
        raise ConfigError(f"--prompts: {name}: a .json dataset is a JSON list (ShareGPT)")
    return [(f"{name} item {number}", item) for number, item in enumerate(data, 1)]


def parse(file: UserFile, fmt: str, reply_lengths: bool = False) -> PromptDataset:
    """The dataset in ``file`` (``fmt`` from ``sniff``)."""
    base = file.path.parent
    found = [_prompt(item, where, base, reply_lengths) for where, item in _items(file, fmt)]
    prompts = tuple(prompt for prompt in found if prompt is not None)
    if not prompts:
        raise ConfigError(f"--prompts: {file.path} holds no prompts")
    return PromptDataset(fmt, prompts, skipped=len(found) - len(prompts))


def _prompt(item: Any, where: str, base: Path, reply_lengths: bool) -> DatasetPrompt | None:
    """One record: ``messages``, ``prompt`` or ShareGPT ``conversations`` (None: skipped)."""
    if not isinstance(item, dict):
        raise ConfigError(f"--prompts: {where}: expected a JSON object")
    if "conversations" in item:
        return _sharegpt(item["conversations"], where, reply_lengths)
    if "messages" in item:
        messages = _messages(item["messages"], where, base)
    elif isinstance(item.get("prompt"), str) and item["prompt"].strip():
        messages = ({"role": "user", "content": item["prompt"]},)
    else:
        raise ConfigError(f"--prompts: {where}: no 'messages' (or 'prompt', 'conversations')")
    schema = item.get("schema")
    if schema is not None:
        schema = checked_schema(f"--prompts: {where}: schema", schema)
    return DatasetPrompt(
        messages, _max_tokens(item.get("max_tokens"), where), schema, _category(item, where)
    )


def _category(item: dict, where: str) -> str | None:
    """A line's ``category``: a short name of printable ASCII (it travels in a header)."""
    value = item.get("category")
    if value is None:
        return None
    text = value.strip() if isinstance(value, str) else ""
    if not text or not (text.isascii() and text.isprintable()) or len(text) > MAX_CATEGORY:
        raise ConfigError(
            f"--prompts: {where}: category must be a name of 1 to {MAX_CATEGORY} printable "
            "ASCII characters"
        )
    return text


def _messages(value: Any, where: str, base: Path) -> Messages:
    """A line's messages: a role and text content each; a user message's content may be
    OpenAI content parts (text and images: ``inputs.images.resolved_content``)."""
    if not isinstance(value, list) or not value:
        raise ConfigError(f"--prompts: {where}: 'messages' must be a non-empty list")
    out = []
    for number, message in enumerate(value, 1):
        role = message.get("role") if isinstance(message, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if role == "user" and isinstance(content, list) and content:
            content = resolved_content(content, f"--prompts: {where}: message {number}", base)
        elif role not in ROLES or not isinstance(content, str):
            raise ConfigError(
                f"--prompts: {where}: message {number} needs a role ({', '.join(ROLES)}) "
                "and text content (a user message's may be content parts)"
            )
        out.append({"role": role, "content": content})
    return tuple(out)


def _max_tokens(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"--prompts: {where}: max_tokens must be a whole number >= 1")
    return value


def _sharegpt(turns: Any, where: str, reply_lengths: bool) -> DatasetPrompt | None:
    """System turns and the first human turn; the first gpt reply after it sizes the output
    only when asked (``--reply-lengths``)."""
    messages: list[dict[str, str]] = []
    for message in _sharegpt_messages(turns, where):
        role = message["role"]
        if messages and messages[-1]["role"] == "user":  # the prompt is complete
            if role != "assistant" or not reply_lengths:
                break
            return DatasetPrompt(tuple(messages), estimate_tokens(message["content"]))
        if role in ("system", "user"):
            messages.append(message)
    if not messages or messages[-1]["role"] != "user":
        return None
    return DatasetPrompt(tuple(messages))


def _sharegpt_messages(turns: Any, where: str) -> Messages:
    """A ShareGPT conversation's turns as messages (human → user, gpt → assistant)."""
    if not isinstance(turns, list):
        raise ConfigError(f"--prompts: {where}: 'conversations' must be a list")
    out = []
    for number, turn in enumerate(turns, 1):
        speaker = turn.get("from") if isinstance(turn, dict) else None
        value = turn.get("value") if isinstance(turn, dict) else None
        role = SHAREGPT_ROLES.get(str(speaker))
        if role is None or not isinstance(value, str):
            raise ConfigError(
                f"--prompts: {where}: turn {number} needs 'from' (human, gpt, system) and a "
                "text 'value'"
            )
        out.append({"role": role, "content": value})
    return tuple(out)


def parse_conversations(
    file: UserFile, fmt: str, reply_lengths: bool = False
) -> tuple[tuple[DatasetConversation, ...], int]:
    """The conversations in ``file`` and how many were skipped (no user message); a file with
    no conversation that has a user message is a ConfigError of one line."""
    base = file.path.parent
    found = [_conversation(item, where, base, reply_lengths) for where, item in _items(file, fmt)]
    conversations = tuple(c for c in found if c is not None)
    if not conversations:
        raise ConfigError(f"--prompts: {file.path} holds no conversation with a user turn")
    return conversations, len(found) - len(conversations)


def _conversation(
    item: Any, where: str, base: Path, reply_lengths: bool
) -> DatasetConversation | None:
    """One record as a conversation (None: it has no user message)."""
    if not isinstance(item, dict):
        raise ConfigError(f"--prompts: {where}: expected a JSON object")
    if "conversations" in item:
        messages = _sharegpt_messages(item["conversations"], where)
    elif "messages" in item:
        messages = _messages(item["messages"], where, base)
    elif isinstance(item.get("prompt"), str) and item["prompt"].strip():
        messages = ({"role": "user", "content": item["prompt"]},)
    else:
        raise ConfigError(f"--prompts: {where}: no 'messages' (or 'prompt', 'conversations')")
    own = _max_tokens(item.get("max_tokens"), where)
    prefix: list[dict[str, str]] = []
    users: list[dict[str, str]] = []
    replies: list[list[str]] = []
    for number, message in enumerate(messages, 1):
        role = message["role"]
        if role == "user":
            users.append(message)
            replies.append([])
        elif role == "assistant":
            if users:  # an assistant message before any user turn answers nothing: left out
                replies[-1].append(message["content"])
        elif users:
            raise ConfigError(
                f"--prompts: {where}: message {number}: a {role} message after the first user "
                "turn has no place in a replayed conversation"
            )
        else:
            prefix.append(message)
    if not users:
        return None
    turns = []
    for user, said in zip(users, replies, strict=True):
        reply = "\n\n".join(said) if said else None
        length = estimate_tokens(reply) if reply_lengths and reply else own
        turns.append(DatasetTurn(user, reply, length))
    return DatasetConversation(tuple(prefix), tuple(turns), _category(item, where))
