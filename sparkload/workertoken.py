"""Proofs of a shared worker token, so that the token itself never crosses the network (pure).

Each side proves it holds the token with an HMAC-SHA256, keyed by the token, of both sides'
fresh random nonces and the worker's client id, under its role's name (a proof made as the
master never passes as the worker's, so neither can reflect the other's proof back). Someone
who watches the exchange learns nothing reusable: the next connection has new nonces. An HMAC
cannot protect a guessable token from a guessing attack on a recorded exchange, so the token
must be long and random (``openssl rand -hex 32``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

MASTER = "sparkload master"
WORKER = "sparkload worker"
NONCE_BYTES = 32


def new_nonce() -> str:
    return secrets.token_hex(NONCE_BYTES)


def proof(token: str, role: str, *parts: str) -> str:
    """``role``'s proof of ``token`` over ``parts`` (the nonces and the client id)."""
    message = "\n".join((role, *parts)).encode()
    return hmac.new(token.encode(), message, hashlib.sha256).hexdigest()


def verify(token: str, role: str, claimed: object, *parts: str) -> bool:
    """Whether ``claimed`` is ``role``'s proof of ``token`` (compared in constant time)."""
    return isinstance(claimed, str) and hmac.compare_digest(claimed, proof(token, role, *parts))
