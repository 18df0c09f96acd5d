"""The server under test: reachability and the model it serves (``GET /v1/models``)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import requests

from sparkload.errors import ConfigError
from sparkload.records import ServerEntry
from sparkload.transport.identity import identifying_headers


def chat_completions_url(host: str) -> str:
    base = host.rstrip("/")
    base = base.removesuffix("/v1")
    return base + "/v1/chat/completions"


def models_url(host: str) -> str:
    return chat_completions_url(host).removesuffix("/chat/completions") + "/models"


@dataclass(frozen=True)
class Endpoint:
    """One OpenAI-compatible server: where to connect and the root of its API's routes."""

    url: str  # as the user gave it, e.g. http://spark-1:8000 or http://gw/openai/v1
    base: str  # scheme://host:port, what a connection opens
    api_root: str  # the path every API route is under: /v1, or /openai/v1 behind a gateway
    models_path: str

    def path_for(self, route: str) -> str:
        """The path of an API's route here (``WireApi.route``: ``/chat/completions``)."""
        return self.api_root + route

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        parts = urlsplit(chat_completions_url(url))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"not an http(s) URL: {url!r}")
        base = f"{parts.scheme}://{parts.netloc}"
        root = parts.path.removesuffix("/chat/completions")
        return cls(url, base, root, root + "/models")


def served_models(
    host: str, headers: dict[str, str], verify_tls: bool = True, timeout: float = 10.0
) -> tuple[list[str], dict[str, str]]:
    """Model ids the server lists, and the response headers that name the server and what
    stands in front of it; a ConfigError with one clear line when it cannot be asked."""
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
    if response.status_code != 200:
        raise ConfigError(refusal(url, response))
    try:
        models = [str(m["id"]) for m in response.json()["data"]]
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"{_who(response, url)} did not return an OpenAI model list") from None
    return models, identifying_headers(response.headers.items())


# What a failed look-up most likely means, by status: a gateway's 5xx is the server behind it.
_HINTS = {
    401: "check --api-key",
    403: "check --api-key",
    404: "is this an OpenAI-compatible server?",
    502: "the model server behind it is down?",
    503: "the model server behind it is down or still loading?",
    504: "the model server behind it does not answer?",
}


def refusal(url: str, response: requests.Response) -> str:
    """One line naming who answered (its ``Server`` header), the status and what it means:
    ``nginx/1.22.1 answered 502 Bad Gateway for http://gw/v1/models: the model server behind it
    is down?``."""
    status = f"{response.status_code} {response.reason or ''}".strip()
    server = response.headers.get("server")
    said = f"{server} answered {status} for {url}" if server else f"{url} answered HTTP {status}"
    hint = _HINTS.get(response.status_code, "is this an OpenAI-compatible server?")
    return f"{said}: {hint}"


def _who(response: requests.Response, url: str) -> str:
    server = response.headers.get("server")
    return f"{url} ({server})" if server else url


@dataclass(frozen=True)
class ServerInfo:
    """What an endpoint says about itself: for the manifest and the report's first section."""

    model: str
    headers: dict[str, str]  # Server, Via, gateway versions (response headers only)
    version: str | None = None
    version_source: str | None = None  # the route that answered (vLLM /version, llama.cpp /props)

    def manifest_entry(self) -> ServerEntry:
        entry = ServerEntry(headers=dict(self.headers))  # responses add to its headers
        if self.version:
            entry.version, entry.version_source = self.version, self.version_source
        return entry


def describe_server(
    host: str,
    headers: dict[str, str],
    requested: tuple[str, ...],
    verify_tls: bool = True,
    others: dict[str, tuple[str, ...]] | None = None,
) -> ServerInfo:
    """The model to ask for (the first requested, or the first served), checking the server
    answers either way and serves every requested model (a base model or a LoRA adapter: vLLM
    lists both) its list names (a server listing none is taken at its word), and every model
    of ``others`` (who asks for them, e.g. a --tenants class, -> their names), plus its version
    where it reports one."""
    models, identity = served_models(host, headers, verify_tls)
    if not requested and not models:
        raise ConfigError(f"{models_url(host)} lists no models; pass --model")
    asked = [("--model", name) for name in requested]
    asked += [(who, name) for who, names in (others or {}).items() for name in names]
    for who, name in asked:
        if models and name not in models:
            raise ConfigError(
                f"{who} {name!r} is not served by {host}: {models_url(host)} offers "
                + ", ".join(repr(model) for model in models)
            )
    version, source = server_version(host, headers, verify_tls)
    return ServerInfo(requested[0] if requested else models[0], identity, version, source)


def server_version(
    host: str, headers: dict[str, str], verify_tls: bool = True, timeout: float = 5.0
) -> tuple[str | None, str | None]:
    """The server's version: vLLM's ``GET /version`` or llama.cpp's ``GET /props`` (best
    effort: a server that has neither is no error)."""
    root = models_url(host).removesuffix("/v1/models")
    for route, read in _VERSION_ROUTES:
        try:
            response = requests.get(
                root + route, headers=headers, timeout=timeout, verify=verify_tls
            )
            found = read(response.json()) if response.status_code == 200 else None
        except (requests.exceptions.RequestException, ValueError, TypeError, AttributeError):
            continue
        if found:
            return str(found)[:200], route
    return None, None


_VERSION_ROUTES = (
    ("/version", lambda data: data.get("version")),
    ("/props", lambda data: data.get("build_info") or data.get("version")),
)
