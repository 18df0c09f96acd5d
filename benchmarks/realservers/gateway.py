"""An OpenAI-compatible gateway on 127.0.0.1 in front of llama-server: LiteLLM's proxy.

LiteLLM comes from PyPI into its own venv (its pins clash with the test venv's)::

    python3 -m venv ~/.cache/sparkload/litellm-venv
    ~/.cache/sparkload/litellm-venv/bin/pip install 'litellm[proxy]'

or point ``$SPARKLOAD_LITELLM`` at a ``litellm`` executable. The config names the upstream as an
``openai/`` model with ``api_base`` on loopback; the model cost map is read from the package
(``LITELLM_LOCAL_MODEL_COST_MAP``), telemetry is off, so nothing leaves the machine.

mitmproxy's reverse mode is the other kind (``kind="mitmproxy"``), from its own venv too::

    python3 -m venv ~/.cache/sparkload/mitmproxy-venv
    ~/.cache/sparkload/mitmproxy-venv/bin/pip install 'mitmproxy>=11,<12'

with its defaults, or ``stream_large_bodies`` set (``"10k"``: it holds each response until 10 KB
have come, then streams the rest: a proxy that buffers part of every stream).

CLI: ``python -m benchmarks.realservers.gateway UPSTREAM_URL [--kind litellm|mitmproxy]``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.realservers import procs
from benchmarks.realservers.llama_server import cache_root

START_TIMEOUT = 120.0  # LiteLLM's proxy imports a lot: ~10-20 s on this machine
MODEL_NAME = "tiny-llama"
KINDS = {
    "litellm": ("SPARKLOAD_LITELLM", "litellm-venv", "litellm", "litellm[proxy]"),
    "mitmproxy": ("SPARKLOAD_MITMDUMP", "mitmproxy-venv", "mitmdump", "mitmproxy"),
}

LITELLM_CONFIG = """\
model_list:
  - model_name: {model}
    litellm_params:
      model: openai/{model}
      api_base: {upstream}/v1
      api_key: sk-none
litellm_settings:
  telemetry: false
  drop_params: false
"""


def executable(kind: str) -> str | None:
    """``$SPARKLOAD_…``, else the cache venv's, else PATH's executable for ``kind``."""
    env, venv, name, _ = KINDS[kind]
    if os.environ.get(env):
        return os.environ[env]
    cached = cache_root() / venv / "bin" / name
    return str(cached) if cached.exists() else shutil.which(name)


def install_hint(kind: str) -> str:
    _, venv, _, package = KINDS[kind]
    path = cache_root() / venv
    return f"python3 -m venv {path} && {path}/bin/pip install '{package}'"


class Gateway(procs.ChildServer):
    """The gateway as a child process; a context manager like ``LlamaServer``."""

    def __init__(
        self, upstream_url: str, kind: str = "litellm", stream_large_bodies: str | None = None
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown gateway {kind!r}; one of {', '.join(KINDS)}")
        self.upstream = upstream_url.rstrip("/")
        self.kind = kind
        self.stream_large_bodies = stream_large_bodies  # mitmproxy's option (None: its default)
        self.process: subprocess.Popen | None = None
        self.url = ""
        # LiteLLM refuses to start without a master key; clients send it as the Bearer token
        self.api_key = "sk-" + secrets.token_hex(16) if kind == "litellm" else ""
        self._tmp = tempfile.TemporaryDirectory(prefix=f"sparkload-{kind}-")
        self.dir = Path(self._tmp.name)
        self.log = self.dir / f"{kind}.log"

    def _command(self, binary: str, port: int) -> tuple[list[str], str, dict[str, str]]:
        """argv, the readiness path, and extra environment."""
        if self.kind == "litellm":
            config = self.dir / "config.yaml"
            config.write_text(LITELLM_CONFIG.format(model=MODEL_NAME, upstream=self.upstream))
            args = [binary, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
            env = {
                "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                "LITELLM_TELEMETRY": "False",
                "DISABLE_SCHEMA_UPDATE": "True",
                "LITELLM_MASTER_KEY": self.api_key,
                "HOME": str(self.dir),  # keeps its caches in the temp dir
            }
            return [*args, "--num_workers", "1"], "/health/liveliness", env
        args = [binary, "--mode", f"reverse:{self.upstream}", "--listen-host", "127.0.0.1"]
        args += ["--listen-port", str(port), "-q", "--set", f"confdir={self.dir}"]
        if self.stream_large_bodies is not None:
            args += ["--set", f"stream_large_bodies={self.stream_large_bodies}"]
        return args, "/health", {}

    def start(self) -> str:
        binary = executable(self.kind)
        if binary is None:
            raise RuntimeError(f"{self.kind} is not installed; install: {install_hint(self.kind)}")
        port = procs.free_port()
        args, ready, env = self._command(binary, port)
        self.url = f"http://127.0.0.1:{port}"
        return self._launch(args, self.url, ready, START_TIMEOUT, env)

    def stop(self) -> None:
        procs.stop(self.process, grace=10.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="OpenAI-compatible gateway on 127.0.0.1")
    parser.add_argument("upstream", help="llama-server URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--kind", choices=sorted(KINDS), default="litellm")
    parser.add_argument("--stream-large-bodies", help="mitmproxy: e.g. 10k (default: its own)")
    args = parser.parse_args(argv)
    with Gateway(args.upstream, args.kind, args.stream_large_bodies) as gateway:
        print(gateway.url, flush=True)
        if gateway.api_key:
            print(f"api key: {gateway.api_key}", file=sys.stderr)
        procs.serve_until_stopped(gateway.process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
