"""docker-compose.yml in Docker: the image built from the Dockerfile, the master, two workers and
the simulator the master starts, to a complete run directory.

The stack runs as a user would start it (``docker compose up --scale worker=2``) with one
difference: the compose file is copied beside this test's results directory (its ``./results``
mount lands there) with its build context pointing back at the checkout. The containers use
host networking, as the file says, so every address the run sends to is on 127.0.0.1. Marked
``docker``: skipped when no Docker daemon answers, unless ``SPARKLOAD_REQUIRE_DOCKER`` is set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from sparkload.records.requests_files import read_records
from tests.conftest import ROOT, free_port

pytestmark = [pytest.mark.docker, pytest.mark.e2e]

REQUIRE_ENV = "SPARKLOAD_REQUIRE_DOCKER"
LOCAL_BASE = "local/sparkload-base:bookworm"  # /work/shared/tools/docker-ready.sh builds it
SECRET_KEY = f"sk-compose-{uuid.uuid4().hex}"
# the default ladder 1,2,4,8,16 x 10 requests per user, one warm-up request per level
MEASURED = 10 * (1 + 2 + 4 + 8 + 16)
BUILD_TIMEOUT = 1800  # a first build installs every dependency from the registry
RUN_TIMEOUT = 600  # the ladder takes about a minute at the simulator's 10x time scale


@dataclass
class ComposeRun:
    returncode: int
    output: str
    master_exit_code: int
    run_dir: Path

    @property
    def records(self) -> list[dict]:
        return read_records(self.run_dir)

    @property
    def manifest(self) -> dict:
        return json.loads((self.run_dir / "manifest.json").read_text())


def docker(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def unavailable() -> str | None:
    """Why Docker cannot run the stack here, or None."""
    if shutil.which("docker") is None:
        return "no docker command"
    try:
        info = docker("info", "--format", "{{.ServerVersion}}", timeout=30)
    except subprocess.TimeoutExpired:
        return "no Docker daemon answered `docker info` within 30 s"
    if info.returncode != 0:
        said = info.stderr.strip().splitlines() or ["no message"]
        return f"no Docker daemon answers: {said[-1]}"
    if compose_command() is None:
        return "neither `docker compose` (v2) nor `docker-compose` (v1) is installed"
    return None


def compose_command() -> list[str] | None:
    """Compose v2 (the docker CLI plugin) when present, else v1's docker-compose."""
    try:
        if docker("compose", "version", timeout=30).returncode == 0:
            return ["docker", "compose"]
    except subprocess.TimeoutExpired:
        pass
    found = shutil.which("docker-compose")
    return [found] if found else None


def build_image() -> None:
    """``docker build`` of the checkout, on a local base image when the machine has one (no
    registry reachable). The build's RUN steps use the host's network: pip needs the package
    registry, and a daemon run without iptables gives the default build network no route out."""
    base = (
        ["--build-arg", f"BASE={LOCAL_BASE}"]
        if docker("image", "inspect", LOCAL_BASE).returncode == 0
        else []
    )
    build = docker(
        "build", "--network", "host", "-t", image_name(), *base, str(ROOT), timeout=BUILD_TIMEOUT
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]


def image_name() -> str:
    (name,) = {service["image"] for service in compose_file()["services"].values()}
    return name


def compose_file() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def copy_compose_file(directory: Path) -> Path:
    """The checkout's compose file in ``directory``, its build context still the checkout."""
    spec = compose_file()
    for service in spec["services"].values():
        service["build"] = str(ROOT)
    path = directory / "docker-compose.yml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def master_exit_code(project: str) -> int:
    """The master container's exit code, found by compose's labels (v1 and v2 set the same)."""
    listed = docker(
        "ps",
        "-a",
        "-q",
        "--filter",
        f"label=com.docker.compose.project={project}",
        "--filter",
        "label=com.docker.compose.service=master",
    )
    (container,) = listed.stdout.split()
    return int(docker("inspect", "-f", "{{.State.ExitCode}}", container).stdout)


@pytest.fixture(scope="module")
def compose_run(tmp_path_factory) -> Iterator[ComposeRun]:
    """``docker compose up --scale worker=2``: the default ladder against the built-in simulator."""
    reason = unavailable()
    if reason:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{reason} (and {REQUIRE_ENV} is set)")
        pytest.skip(f"{reason}; set {REQUIRE_ENV}=1 to make this a failure")
    build_image()
    directory = tmp_path_factory.mktemp("compose")
    compose = [*compose_command(), "-f", str(copy_compose_file(directory))]
    project = f"sparkload-test-{uuid.uuid4().hex[:8]}"
    shell = {  # what a user exports before `docker compose up --scale worker=2`
        **{k: v for k, v in os.environ.items() if not k.startswith(("SPARKLOAD_", "LOCUST_"))},
        "SPARKLOAD_WORKERS": "2",
        "SPARKLOAD_MASTER_PORT": str(free_port()),  # 5557 may be taken on a shared machine
        "OPENAI_API_KEY": SECRET_KEY,
    }
    try:
        up = subprocess.run(
            [*compose, "-p", project, "up", "--no-build", "--scale", "worker=2"],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            env=shell,
            cwd=directory,
            stdin=subprocess.DEVNULL,
        )
        output = up.stdout + up.stderr
        run_dirs = [p.parent for p in (directory / "results").glob("*/manifest.json")]
        if len(run_dirs) != 1:
            pytest.fail(f"expected one run directory, found {run_dirs}:\n{output[-5000:]}")
        yield ComposeRun(up.returncode, output, master_exit_code(project), run_dirs[0])
    finally:
        subprocess.run(
            [*compose, "-p", project, "down", "--remove-orphans", "--timeout", "10"],
            capture_output=True,
            timeout=120,
            env=shell,
            cwd=directory,
            stdin=subprocess.DEVNULL,
        )


def test_compose_up_and_the_master_exit_0_with_every_measured_request_ok(compose_run):
    assert (compose_run.returncode, compose_run.master_exit_code) == (0, 0), compose_run.output[
        -5000:
    ]
    measured = [r for r in compose_run.records if r["phase"] == "measure"]
    assert len(measured) == MEASURED
    assert Counter(r["status"] for r in measured) == {"ok": MEASURED}
    assert compose_run.manifest["status"] == "complete"


def test_the_two_worker_containers_share_the_load_and_the_master_writes_the_run(compose_run):
    manifest = compose_run.manifest
    assert (manifest["client"]["runner"], manifest["client"]["workers"]) == ("master", 2)
    assert {r["worker"] for r in compose_run.records} == {"0", "1"}


def test_the_api_key_from_the_shell_reaches_no_result_file_and_no_container_log(compose_run):
    assert SECRET_KEY not in compose_run.output
    for path in compose_run.run_dir.rglob("*"):
        if path.is_file():
            assert SECRET_KEY not in path.read_text(errors="replace"), path
