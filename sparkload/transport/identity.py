"""Who answered: the response headers that name the server and what stands in front of it.

A run's ``servers`` entry in the manifest holds these per endpoint. They are read from the
look-up before the load (``GET /v1/models``) and from every streamed response, because a gateway
may add its own header only where it proxies a completion (LiteLLM's ``x-litellm-version``), and a
header that shows on some responses only (one replica of several behind a balancer) still names a
part of the path. Response headers only: the values of request headers are secrets.
"""

from __future__ import annotations

from collections.abc import Iterable

IDENTIFYING_HEADERS = frozenset(
    (
        "server",
        "via",
        "x-powered-by",
        "x-litellm-version",  # LiteLLM proxy
        "x-kong-proxy-latency",  # Kong
        "x-kong-upstream-latency",
        "x-envoy-upstream-service-time",  # Envoy, Istio, Envoy AI Gateway
        "x-portkey-provider",  # Portkey AI gateway
        "helicone-id",  # Helicone
        "apim-request-id",  # Azure API Management
        "x-amzn-apigateway-api-id",  # AWS API Gateway
        "cf-ray",  # Cloudflare (AI Gateway)
        "x-served-by",  # Fastly, Varnish
        "x-cache",  # a caching proxy
    )
)
# Of those, the ones only an intermediary sends (the rest, Server and X-Powered-By, the model
# server sends too), and the Server values of proxies that put their own name there.
INTERMEDIARY_HEADERS = IDENTIFYING_HEADERS - {"server", "x-powered-by"}
PROXY_SERVERS = (
    "nginx",
    "openresty",
    "envoy",
    "cloudflare",
    "caddy",
    "traefik",
    "haproxy",
    "apache",
    "awselb",
    "kong",
    "varnish",
    "squid",
)
MAX_VALUES = 3  # distinct values kept per header: per-request ids must not grow without end
VALUE_CHARS = 200
SEPARATOR = " | "  # not ", ": a Via value lists its hops with commas itself
MORE = "…"


def identifying_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The response headers that name the server and the intermediaries (``IDENTIFYING_HEADERS``),
    names in lower case, values cut to ``VALUE_CHARS`` characters."""
    return {
        name.lower(): str(value)[:VALUE_CHARS]
        for name, value in headers
        if name.lower() in IDENTIFYING_HEADERS
    }


def merge_identity(known: dict[str, str], found: dict[str, str]) -> bool:
    """Add ``found`` to ``known`` (name -> its distinct values, joined by ``SEPARATOR``, at most
    ``MAX_VALUES`` and then ``MORE``); True when ``known`` changed."""
    changed = False
    for name, value in found.items():
        current = known.get(name)
        if current is None:
            known[name] = value
            changed = True
            continue
        values = current.split(SEPARATOR)
        if value in values or values[-1] == MORE:
            continue
        values.append(value if len(values) < MAX_VALUES else MORE)
        known[name] = SEPARATOR.join(values)
        changed = True
    return changed


def intermediaries(headers: dict[str, str]) -> list[str]:
    """What in an endpoint's identifying headers names an intermediary, as ``name: value``: a
    header only a proxy or gateway sends, or a Server header naming a proxy (an nginx in front
    of vLLM answers with its own)."""
    return [
        f"{name}: {value}"
        for name, value in sorted(headers.items())
        if name in INTERMEDIARY_HEADERS
        or (name == "server" and any(proxy in value.lower() for proxy in PROXY_SERVERS))
    ]
