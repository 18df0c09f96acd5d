"""Debian's nginx as a reverse proxy on 127.0.0.1 in front of one upstream, config by name.

Install: ``apt-get update && apt-get install -y nginx`` (the package's own service is never
used: we run ``nginx -p <temp prefix> -e <log> -c <conf>`` with ``daemon off`` and stop it).

Configs (``CONFIGS``):
  plain       proxy_buffering on (nginx's default), HTTP/1.1 to the upstream, new upstream
              connection per request. NB llama-server sends ``X-Accel-Buffering: no`` on its
              streams, which turns buffering off for them anyway.
  buffered    as plain, but ``proxy_ignore_headers X-Accel-Buffering``: nginx really buffers.
  unbuffered  proxy_buffering off.
  keepalive   unbuffered, plus an upstream keepalive pool (``keepalive 16``).
  gzip        unbuffered, plus gzip on for text/event-stream (applies only to clients that
              send Accept-Encoding: gzip; sparkload sends identity).

CLI: ``python -m benchmarks.realservers.nginx UPSTREAM_URL [--config NAME]`` prints the URL.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.realservers import procs

INSTALL_HINT = "apt-get update && apt-get install -y nginx"
START_TIMEOUT = 15.0

_BASE = """\
{user}worker_processes 1;
pid {prefix}/nginx.pid;
daemon off;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/client_body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    upstream backend {{
        server {upstream};
{upstream_extra}    }}
    server {{
        listen 127.0.0.1:{port};
{server_extra}        location / {{
            proxy_pass http://backend;
            proxy_http_version 1.1;
            proxy_read_timeout 600s;
{location_extra}        }}
    }}
}}
"""

CONFIGS: dict[str, dict[str, str]] = {
    "plain": {"location_extra": "            proxy_buffering on;\n"},
    "buffered": {
        "location_extra": (
            "            proxy_buffering on;\n            proxy_ignore_headers X-Accel-Buffering;\n"
        )
    },
    "unbuffered": {"location_extra": "            proxy_buffering off;\n"},
    "keepalive": {
        "upstream_extra": "        keepalive 16;\n",
        "location_extra": (
            '            proxy_buffering off;\n            proxy_set_header Connection "";\n'
        ),
    },
    "gzip": {
        "server_extra": (
            "        gzip on;\n"
            "        gzip_proxied any;\n"
            "        gzip_min_length 0;\n"
            "        gzip_types text/event-stream application/json;\n"
        ),
        "location_extra": "            proxy_buffering off;\n",
    },
}


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None
    )


def render(config: str, upstream: str, port: int, prefix: Path) -> str:
    """The nginx.conf for ``config`` proxying 127.0.0.1:``port`` to ``upstream`` (host:port)."""
    parts = {"upstream_extra": "", "server_extra": "", "location_extra": "", **CONFIGS[config]}
    user = "user root root;\n" if os.geteuid() == 0 else ""  # workers may write the temp dirs
    return _BASE.format(user=user, prefix=prefix, upstream=upstream, port=port, **parts)


class Nginx(procs.ChildServer):
    """nginx in the foreground in a temp prefix; a context manager like ``LlamaServer``."""

    def __init__(self, upstream_url: str, config: str = "plain") -> None:
        if config not in CONFIGS:
            raise ValueError(f"unknown nginx config {config!r}; one of {', '.join(CONFIGS)}")
        self.upstream = urlsplit(upstream_url).netloc
        self.config = config
        self.process: subprocess.Popen | None = None
        self.url = ""
        self._tmp = tempfile.TemporaryDirectory(prefix=f"sparkload-nginx-{config}-")
        self.prefix = Path(self._tmp.name)
        self.log = self.prefix / "stderr.log"

    def start(self) -> str:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError(f"nginx is not installed; install it with: {INSTALL_HINT}")
        port = procs.free_port()
        conf = self.prefix / "nginx.conf"
        conf.write_text(render(self.config, self.upstream, port, self.prefix))
        args = [binary, "-p", str(self.prefix), "-e", str(self.prefix / "error.log")]
        self.url = f"http://127.0.0.1:{port}"
        return self._launch([*args, "-c", str(conf)], self.url, "/health", START_TIMEOUT)

    def stop(self) -> None:
        procs.stop(self.process)  # SIGTERM to nginx's group: master and worker exit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="nginx reverse proxy on 127.0.0.1")
    parser.add_argument("upstream", help="e.g. http://127.0.0.1:8080 (must serve /health)")
    parser.add_argument("--config", choices=sorted(CONFIGS), default="plain")
    args = parser.parse_args(argv)
    with Nginx(args.upstream, args.config) as proxy:
        print(proxy.url, flush=True)
        procs.serve_until_stopped(proxy.process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
