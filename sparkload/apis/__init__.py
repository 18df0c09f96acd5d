"""The wire APIs, one module each, and their registry by ``--api`` name.

- ``wire.py``: what an API module declares (``WireApi``: route, body, stream reader, auth
  headers, what it can carry) and the body parts every API shares;
- ``chat.py``: ``/v1/chat/completions``; ``completions.py``: ``/v1/completions``;
  ``responses.py``: ``/v1/responses``; ``messages.py``: Anthropic's ``/v1/messages``;
  ``embeddings.py``: ``/v1/embeddings`` (not streamed).

Adding an API: its name in ``records.vocabulary`` (``API_NAMES``), one module declaring its
``API``, and one line below; the simulator's route if it should serve it
(docs/architecture.md, "Adding a wire API").
"""

from __future__ import annotations

from sparkload.apis import chat, completions, embeddings, messages, responses
from sparkload.apis.wire import WireApi

REGISTRY: dict[str, WireApi] = {
    chat.API.name: chat.API,
    completions.API.name: completions.API,
    responses.API.name: responses.API,
    messages.API.name: messages.API,
    embeddings.API.name: embeddings.API,
}


def wire_api(name: str) -> WireApi:
    """The API of an ``--api`` name (the option table has checked it is one)."""
    return REGISTRY[name]


def able_to(capability: str) -> str:
    """The APIs with ``capability`` (a ``WireApi`` flag), for a refusal: "chat, responses or
    messages"."""
    names = [name for name, api in REGISTRY.items() if getattr(api, capability)]
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 2 else names)
