"""llama.cpp's ``llama-server`` on 127.0.0.1 as a real test target nobody in this project wrote.

The machine reaches only package registries, so the server is built from the llama.cpp sources
vendored in the ``llama-cpp-python`` sdist on PyPI, and the model is a tiny random-weight llama
GGUF written here with the ``gguf`` package (see ``tiny_model.py``). Both are cached under
``~/.cache/sparkload/`` (or ``$SPARKLOAD_CACHE``): the first build takes minutes on 2 cores, a
second call returns at once.

CLI::

    python -m benchmarks.realservers.llama_server build   # prints the llama-server path
    python -m benchmarks.realservers.llama_server model   # prints the GGUF path
    python -m benchmarks.realservers.llama_server start   # prints the URL; Ctrl-C stops it

Python::

    with LlamaServer() as server:
        requests.get(server.url + "/health")
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.realservers import procs, tiny_model

# The llama-cpp-python release whose vendored llama.cpp we build: pinned, so every machine
# builds (and caches) the same server. Override with $SPARKLOAD_LLAMA_CPP_PYTHON.
LLAMA_CPP_PYTHON_VERSION = os.environ.get("SPARKLOAD_LLAMA_CPP_PYTHON", "0.3.36")
BUILD_JOBS = os.environ.get("SPARKLOAD_BUILD_JOBS", "2")
START_TIMEOUT = 60.0  # seconds from exec to a 200 on /health (model load is well under 1 s)

# Off: everything but the server, anything that downloads (the prebuilt web UI comes from a
# hub bucket), OpenSSL (nothing here speaks HTTPS), shared libs (one self-contained binary).
CMAKE_OPTIONS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DGGML_NATIVE=ON",
    "-DGGML_OPENMP=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_LLGUIDANCE=OFF",
]


def cache_root() -> Path:
    return Path(os.environ.get("SPARKLOAD_CACHE", Path.home() / ".cache" / "sparkload"))


def build_dir(version: str = LLAMA_CPP_PYTHON_VERSION) -> Path:
    return cache_root() / "llama.cpp" / version


def server_binary(version: str = LLAMA_CPP_PYTHON_VERSION) -> Path:
    return build_dir(version) / "bin" / "llama-server"


def missing_prerequisites() -> list[str]:
    """What the build needs and this machine lacks (empty when a cached binary exists)."""
    if server_binary().exists():
        return []
    tools = {"cmake": "cmake", "c++": "g++", "cc": "gcc", "make or ninja": None}
    missing = [apt for tool, apt in tools.items() if apt and shutil.which(tool) is None]
    if shutil.which("ninja") is None and shutil.which("make") is None:
        missing.append("make")
    return missing


def _download_sdist(version: str, into: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps"]
        + ["--dest", str(into), f"llama-cpp-python=={version}"],
        check=True,
    )
    return next(into.glob("llama_cpp_python-*.tar.gz"))


def _unpack_vendored(sdist: Path, dest: Path) -> Path:
    """Extract only ``vendor/llama.cpp`` from the sdist into ``dest``."""
    with tarfile.open(sdist) as tar:
        prefix = tar.getnames()[0].split("/")[0] + "/vendor/llama.cpp/"
        members = [m for m in tar.getmembers() if m.name.startswith(prefix)]
        for member in members:
            member.name = member.name[len(prefix) :]
        tar.extractall(dest, members=[m for m in members if m.name], filter="data")
    return dest


def _compile(src: Path, build: Path) -> Path:
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(
        ["cmake", "-S", str(src), "-B", str(build), *generator, *CMAKE_OPTIONS], check=True
    )
    subprocess.run(
        ["cmake", "--build", str(build), "--target", "llama-server", "-j", BUILD_JOBS], check=True
    )
    return build / "bin" / "llama-server"


def build(version: str = LLAMA_CPP_PYTHON_VERSION) -> Path:
    """Build ``llama-server`` once per version; later calls return the cached binary at once."""
    binary = server_binary(version)
    if binary.exists():
        return binary
    if missing := missing_prerequisites():
        raise RuntimeError(
            f"missing build tools; install with: apt-get install -y {' '.join(missing)}"
        )
    root = build_dir(version)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent build waits, then finds the binary
        if binary.exists():
            return binary
        src = root / "src"
        if not (src / "CMakeLists.txt").exists():
            with tempfile.TemporaryDirectory() as tmp:
                _unpack_vendored(_download_sdist(version, Path(tmp)), src)
        built = _compile(src, root / "build")
        binary.parent.mkdir(exist_ok=True)
        shutil.copy2(built, binary.with_suffix(".tmp"))
        binary.with_suffix(".tmp").rename(binary)
    return binary


def model_path(size: str = "tiny", seed: int = 0) -> Path:
    return cache_root() / "models" / f"{size}-llama-v1-seed{seed}.gguf"


def model(size: str = "tiny", seed: int = 0) -> Path:
    """Write the GGUF once (needs the ``gguf`` package); later calls return it at once."""
    path = model_path(size, seed)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tiny_model.write(path, seed, size)
    return path


class LlamaServer(procs.ChildServer):
    """``llama-server`` on 127.0.0.1 at a free port with ``--metrics`` and ``parallel`` slots.

    A context manager: ``with LlamaServer() as s: s.url``. The log (``-v`` adds one line per
    request) is kept in ``self.log`` for the caller to read.
    """

    def __init__(
        self,
        parallel: int = 8,
        ctx_per_slot: int = 1024,
        threads: int = 1,
        verbose: bool = False,
        model_size: str = "tiny",
        extra_args: list[str] | None = None,
    ) -> None:
        self.parallel = parallel
        self.ctx_per_slot = ctx_per_slot
        self.threads = threads
        self.verbose = verbose
        self.model_size = model_size
        self.extra_args = extra_args or []
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.url = ""
        self._tmp = tempfile.TemporaryDirectory(prefix="sparkload-llama-")
        self.log = Path(self._tmp.name) / "llama-server.log"

    def command(self) -> list[str]:
        args = [
            str(build()),
            "-m",
            str(model(self.model_size)),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        args += ["-np", str(self.parallel), "-c", str(self.parallel * self.ctx_per_slot)]
        args += ["-t", str(self.threads), "--metrics", "--no-webui", "-a", "tiny-llama"]
        return args + (["-v"] if self.verbose else []) + self.extra_args

    def start(self) -> str:
        self.port = procs.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        return self._launch(self.command(), self.url, "/health", START_TIMEOUT)

    def stop(self) -> None:
        procs.stop(self.process)


def timings_from_log(log: Path) -> dict[str, dict]:
    """Each streamed response's ``timings`` by completion id, from a ``-v`` log.

    With ``-v`` llama-server logs every write to a stream ("http: streamed chunk: data: {…}",
    further events of the same write on lines of their own); the usage chunk, last, carries
    the response's ``timings`` (``prompt_ms``, ``predicted_ms``, …).
    """
    found: dict[str, dict] = {}
    for line in log.read_text(errors="replace").splitlines():
        start = line.find("data: {")  # one logged write may hold several events, one a line
        if start < 0:
            continue
        try:
            chunk = json.loads(line[start + len("data: ") :])
        except ValueError:
            continue
        if "timings" in chunk and "id" in chunk:
            found[chunk["id"]] = chunk["timings"]
    return found


def metrics(url: str) -> dict[str, float]:
    """llama-server's ``/metrics`` (needs ``--metrics``) as {name: value}."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("build", "model", "start"))
    parser.add_argument("-np", "--parallel", type=int, default=8)
    parser.add_argument("-t", "--threads", type=int, default=1)
    parser.add_argument("-v", "--verbose", action="store_true", help="llama-server -v")
    parser.add_argument("--size", choices=sorted(tiny_model.SIZES), default="tiny")
    args = parser.parse_args(argv)
    if args.action == "build":
        print(build())
    elif args.action == "model":
        print(model(args.size))
    else:
        with LlamaServer(
            args.parallel, threads=args.threads, verbose=args.verbose, model_size=args.size
        ) as server:
            print(server.url, flush=True)
            print(f"log: {server.log}; Ctrl-C stops it", file=sys.stderr)
            procs.serve_until_stopped(server.process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
