"""The server under test: reachability and the model it serves (``GET /v1/models``)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import requests

from sparkload.errors import ConfigError


def chat_completions_url(host: str) -> str:
    base = host.rstrip("/")
    base = base.removesuffix("/v1")
    return base + "/v1/chat/completions"


def models_url(host: str) -> str:
    return chat_completions_url(host).removesuffix("/chat/completions") + "/models"


@dataclass(frozen=True)
class Endpoint:
    """One OpenAI-compatible server: where to connect and the paths of its two routes."""

    url: str  # as the user gave it, e.g. http://spark-1:8000 or http://gw/openai/v1
    base: str  # scheme://host:port, what a connection opens
    chat_path: str
    models_path: str

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        parts = urlsplit(chat_completions_url(url))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"not an http(s) URL: {url!r}")
        base = f"{parts.scheme}://{parts.netloc}"
        return cls(url, base, parts.path, parts.path.removesuffix("/chat/completions") + "/models")


def served_models(
    host: str, api_key: str, verify_tls: bool = True, timeout: float = 10.0
) -> list[str]:
    """Model ids the server lists; a ConfigError with one clear line when it cannot be asked."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    url = models_url(host)
    try:
        response = requests.get(url, headers=headers, timeout=timeout, verify=verify_tls)
    except requests.exceptions.SSLError:
        raise ConfigError(
            f"cannot reach {host}: TLS certificate not trusted (--insecure skips the check)"
        ) from None
    except requests.exceptions.ConnectionError:
        raise ConfigError(
            f"cannot reach {host}: connection failed (is the server running?)"
        ) from None
    except requests.exceptions.Timeout:
        raise ConfigError(f"cannot reach {host}: no answer within {timeout:g} s") from None
    except requests.exceptions.RequestException as exc:
        raise ConfigError(f"cannot reach {host}: {type(exc).__name__}") from None
    if response.status_code in (401, 403):
        raise ConfigError(
            f"{url} refused the request (HTTP {response.status_code}): check --api-key"
        )
    if response.status_code != 200:
        raise ConfigError(
            f"{url} answered HTTP {response.status_code}; is this an OpenAI-compatible server?"
        )
    try:
        return [str(m["id"]) for m in response.json()["data"]]
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"{url} did not return an OpenAI model list") from None


def resolve_model(host: str, api_key: str, requested: str, verify_tls: bool = True) -> str:
    """The requested model, or the first one served; checks the server answers either way."""
    models = served_models(host, api_key, verify_tls)
    if requested:
        return requested
    if not models:
        raise ConfigError(f"{models_url(host)} lists no models; pass --model")
    return models[0]
