"""docker-compose.yml: valid compose, and its commands are the ones that work on 127.0.0.1.

Without Docker: the file is checked against the compose-spec JSON schema (vendored by
check-jsonschema, offline), and its sim, master and worker commands are run as compose would run
them: the same argv, the same environment after compose's ``${VAR:-default}`` interpolation.
The containers use host networking, so the processes share this machine's loopback as they do;
only the sim's port and the results directory that compose mounts from the host are replaced.
tests/deploy/test_compose_docker.py runs the file in Docker.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from sparkload import config
from sparkload.apis import REGISTRY
from sparkload.run.simulator_process import ServerProcess
from tests.conftest import ROOT, LocustRun, free_port

pytestmark = pytest.mark.e2e  # starts Locust, simulator or server processes

COMPOSE = ROOT / "docker-compose.yml"
CHECK_JSONSCHEMA = str(Path(sys.executable).with_name("check-jsonschema"))
_VARIABLE = re.compile(r"\$\{(\w+):-([^}]*)\}")
EXPECTED = Counter({(1, "measure"): 2, (2, "measure"): 4, (1, "warmup"): 1, (2, "warmup"): 1})
# What a worker takes from its own environment, never from the master (issue 20): the API key,
# secret header values, and the token that master and workers share.
WORKER_SECRETS = {"OPENAI_API_KEY", "SPARKLOAD_HEADER", "SPARKLOAD_WORKER_TOKEN"}


def services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def interpolate(text: str, shell: dict[str, str]) -> str:
    """Compose's ``${VAR:-default}``: the shell's value, or the default when unset or empty."""
    value = _VARIABLE.sub(lambda m: shell.get(m[1]) or m[2], text)
    assert "$" not in value, f"an interpolation form this test does not emulate: {text}"
    return value


def container_env(service: dict, shell: dict[str, str]) -> dict[str, str]:
    """The service's environment: its values interpolated; a key without one passes the shell's."""
    env = {}
    for key, value in (service.get("environment") or {}).items():
        if value is None:
            if key in shell:
                env[key] = shell[key]
        else:
            env[key] = interpolate(str(value), shell)
    return env


def command(service: dict, shell: dict[str, str]) -> list[str]:
    return [interpolate(arg, shell) for arg in service["command"]]


def process_env(env: dict[str, str]) -> dict[str, str]:
    """A clean process environment (no outer SPARKLOAD_/LOCUST_ settings) with the venv first on
    PATH, so ``locust`` and ``sparkload`` resolve as they do in the image."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SPARKLOAD_", "LOCUST_"))}
    base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}"
    return {**base, **env}


def test_the_compose_file_is_valid_against_the_compose_spec_schema():
    result = subprocess.run(
        [CHECK_JSONSCHEMA, "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_rejects_a_broken_compose_file(tmp_path):
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace("    command:", "    comand:", 1))
    result = subprocess.run(
        [CHECK_JSONSCHEMA, "--builtin-schema", "vendor.compose-spec", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "comand" in result.stdout


def passed_through(service: dict) -> set[str]:
    """The variables a service takes from the shell as they are (listed without a value)."""
    return {key for key, value in service["environment"].items() if value is None}


# the wire APIs' own key variables (Messages' ANTHROPIC_API_KEY), read as OPENAI_API_KEY is
API_KEYS = {api.key_env for api in REGISTRY.values() if api.key_env}


def test_the_master_passes_every_sparkload_option_through_from_the_shell():
    assert passed_through(services()["master"]) == set(config.environment_names()) | API_KEYS


def test_each_worker_takes_the_secrets_and_nothing_else_from_the_shell():
    assert passed_through(services()["worker"]) == WORKER_SECRETS | API_KEYS


def test_master_and_scalable_worker_run_the_locustfile_and_the_simulator_is_optional():
    found = services()
    assert (
        found["master"]["command"][:3]
        == found["worker"]["command"][:3]
        == ["locust", "-f", "locustfiles/chat.py"]
    )
    assert "--master" in found["master"]["command"] and "--worker" in found["worker"]["command"]
    assert (
        "ports" not in found["worker"] and "container_name" not in found["worker"]
    )  # --scale worker=N
    assert found["sim"]["profiles"] == ["sim"] and found["sim"]["command"][:2] == [
        "sparkload",
        "sim",
    ]
    assert found["worker"]["depends_on"] == ["master"]


def test_every_service_uses_host_networking_and_publishes_no_port():
    # the master's built-in simulator listens on 127.0.0.1: only a shared loopback reaches it
    for service in services().values():
        assert service["network_mode"] == "host" and "ports" not in service


def test_the_masters_port_listens_on_the_hosts_loopback_unless_told_an_interface():
    master = services()["master"]
    assert container_env(master, {})["LOCUST_MASTER_BIND_HOST"] == "127.0.0.1"
    told = container_env(master, {"SPARKLOAD_MASTER_BIND": "10.0.0.5"})
    assert told["LOCUST_MASTER_BIND_HOST"] == "10.0.0.5"


def test_workers_find_the_master_on_the_hosts_loopback_unless_told_another_host():
    worker = services()["worker"]
    assert container_env(worker, {})["LOCUST_MASTER_NODE_HOST"] == "127.0.0.1"
    told = container_env(worker, {"SPARKLOAD_MASTER_HOST": "10.0.0.5"})
    assert told["LOCUST_MASTER_NODE_HOST"] == "10.0.0.5"


def test_master_and_workers_use_one_port_5557_unless_told_another():
    found = services()
    for shell, port in (({}, "5557"), ({"SPARKLOAD_MASTER_PORT": "6000"}, "6000")):
        assert container_env(found["master"], shell)["LOCUST_MASTER_BIND_PORT"] == port
        assert container_env(found["worker"], shell)["LOCUST_MASTER_NODE_PORT"] == port


def test_the_web_ui_listens_on_the_hosts_loopback_only():
    master = services()["master"]
    assert container_env(master, {})["LOCUST_WEB_HOST"] == "127.0.0.1"
    assert container_env(master, {"SPARKLOAD_HEADLESS": "false"})["LOCUST_HEADLESS"] == "false"


def test_results_are_written_to_a_host_directory_mounted_at_the_images_results_path():
    workdir = re.search(r"^WORKDIR (\S+)$", (ROOT / "Dockerfile").read_text(), re.MULTILINE)[1]
    assert f"./results:{workdir}/results" in services()["master"]["volumes"]


def test_every_service_builds_the_image_from_the_checkout_with_requirements_txt():
    assert all(s["build"] == "." and s["image"] == "sparkload:latest" for s in services().values())
    assert "RUN pip install -r requirements.txt" in (ROOT / "Dockerfile").read_text()


@pytest.fixture(scope="module")
def compose_sim():
    """The sim service's command, on a free port instead of 8000."""
    argv = command(services()["sim"], {"SPARKLOAD_SIM_PROFILE": "fp8"})
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    argv = [{"8000": "0"}.get(arg, arg) for arg in argv]
    sim = ServerProcess([str(Path(sys.executable).with_name(argv[0])), *argv[1:]])
    yield sim.start()
    sim.stop()


@pytest.fixture(scope="module")
def compose_run(compose_sim, tmp_path_factory) -> LocustRun:
    """``docker compose up --scale worker=2`` against the sim service, as its processes."""
    results = tmp_path_factory.mktemp("compose-results")
    shell = {  # what a user exports before `docker compose up --scale worker=2`
        "SPARKLOAD_HOST": compose_sim,
        "SPARKLOAD_WORKERS": "2",
        "SPARKLOAD_MASTER_PORT": str(free_port()),  # 5557 may be taken on a shared machine
        "SPARKLOAD_LADDER": "1,2",
        "SPARKLOAD_REQUESTS_PER_USER": "2",
        "SPARKLOAD_MAX_TOKENS": "4",
        "SPARKLOAD_VARIANT": "fp8",
        "SPARKLOAD_LABEL": "compose",
        # options the first compose file dropped; applied on the workers, where requests are made
        "SPARKLOAD_KEEP_CHUNK_GAPS": "true",
        "SPARKLOAD_IGNORE_EOS": "yes",
        "SPARKLOAD_SEED": "7",
    }
    found = services()
    master_env = process_env(
        {**container_env(found["master"], shell), "SPARKLOAD_RESULTS_DIR": str(results)}
    )
    worker_env = process_env(container_env(found["worker"], shell))
    workers = [
        subprocess.Popen(
            command(found["worker"], shell),
            env=worker_env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    try:
        master = subprocess.run(
            command(found["master"], shell),
            env=master_env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    finally:
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
    (run_dir,) = [p.parent for p in results.glob("*/manifest.json")]
    return LocustRun(master.returncode, master.stdout + master.stderr, run_dir)


def test_the_compose_master_and_two_workers_give_the_same_counts_as_a_local_run(
    compose_run, compose_sim
):
    run = compose_run
    assert run.returncode == 0, run.output
    assert Counter((r["level"], r["phase"]) for r in run.records) == EXPECTED
    assert {r["worker"] for r in run.records if r["level"] == 2} == {"0", "1"}
    assert all("chunk_gaps" in r and r["output_tokens"] == 4 for r in run.records)
    manifest = run.manifest
    assert (manifest["client"]["runner"], manifest["client"]["workers"]) == ("master", 2)
    assert (manifest["label"], manifest["endpoints"], manifest["status"]) == (
        "compose",
        [compose_sim],
        "complete",
    )
    assert manifest["seed"] == 7


def compose_docs_report_line() -> str:
    """The ``sparkload report`` command line docs/distributed.md's Containers section shows."""
    section = (ROOT / "docs" / "distributed.md").read_text().split("## Containers", 1)[1]
    section = section.split("\n## ", 1)[0]
    (line,) = [line for line in section.splitlines() if "sparkload report " in line]
    return line.split("#", 1)[0]


def test_the_report_command_the_compose_docs_give_reports_the_stacks_run(compose_run):
    line = compose_docs_report_line().replace("results/<run directory>", str(compose_run.run_dir))
    program, *args = shlex.split(line)
    assert Path(program).name == "sparkload"
    finished = subprocess.run(
        [str(Path(sys.executable).with_name("sparkload")), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert finished.returncode == 0, finished.stderr
    assert (compose_run.run_dir / "report" / "report.md").is_file()
