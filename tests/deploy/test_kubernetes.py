"""deploy/kubernetes: every kustomization renders, every object passes kubernetes-validate
--strict, and the rendered objects say what docs/distributed.md promises.

No cluster runs here: the objects are rendered with kubectl's built-in kustomize (or a
standalone ``kustomize``; a machine with neither fails these tests, it does not skip them) and
validated offline against the Kubernetes OpenAPI schemas that kubernetes-validate ships, for the
oldest and the newest Kubernetes version it knows.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from kubernetes_validate.utils import all_versions

from sparkload import config
from tests.conftest import ROOT

KUBERNETES = ROOT / "deploy" / "kubernetes"
KUSTOMIZATIONS = {  # what docs/distributed.md renders and applies
    "the default": KUBERNETES,
    "the TP2 overlay": KUBERNETES / "overlays" / "spark-tp2",
}
RESULTS_READER = KUBERNETES / "tools" / "results-reader.yaml"
VALIDATE = str(Path(sys.executable).with_name("kubernetes-validate"))
VERSIONS = (all_versions()[0], all_versions()[-1])
SECRET = "sparkload-secrets"
# What master and workers take from the Secret: the API key and header values (the master asks
# the target what it serves before the load; the workers send it) and the worker token.
SECRET_KEYS = {"OPENAI_API_KEY", "SPARKLOAD_HEADER", "SPARKLOAD_WORKER_TOKEN"}
MASTER = {"app.kubernetes.io/name": "sparkload", "app.kubernetes.io/component": "master"}
WORKER = {"app.kubernetes.io/name": "sparkload", "app.kubernetes.io/component": "worker"}


def renderer() -> list[str]:
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    pytest.fail("rendering deploy/kubernetes needs kubectl (or a standalone kustomize) on PATH")


def render(directory: Path) -> str:
    result = subprocess.run(
        [*renderer(), str(directory)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return {name: render(directory) for name, directory in KUSTOMIZATIONS.items()}


def objects(text: str) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(text) if doc]


def one(text: str, kind: str, name: str) -> dict:
    (found,) = [o for o in objects(text) if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def container(workload: dict) -> dict:
    (found,) = workload["spec"]["template"]["spec"]["containers"]
    return found


def master(text: str) -> dict:
    return one(text, "Job", "sparkload-master")


def workers(text: str) -> dict:
    return one(text, "Deployment", "sparkload-worker")


def validate(path: Path, version: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [VALIDATE, "--strict", "--quiet", "-k", version, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def compose_service(name: str) -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"][name]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_rendered_object_passes_kubernetes_validate_strict(rendered, tmp_path, version):
    for name, text in rendered.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        result = validate(path, version)
        assert result.returncode == 0, f"{name}: {result.stdout}{result.stderr}"
    assert validate(RESULTS_READER, version).returncode == 0


def test_strict_validation_rejects_a_misspelled_field(rendered, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(rendered["the default"].replace("backoffLimit:", "backofLimit:", 1))
    result = validate(broken, VERSIONS[-1])
    assert result.returncode == 1 and "backofLimit" in result.stdout


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_a_cluster_internal_service_exposes_5557_for_workers_and_8089_for_the_web_ui(
    rendered, name
):
    service = one(rendered[name], "Service", "sparkload-master")
    assert service["spec"]["type"] == "ClusterIP"
    assert {p["port"]: p["targetPort"] for p in service["spec"]["ports"]} == {
        5557: "workers",
        8089: "web",
    }
    assert (
        service["spec"]["selector"]
        == master(rendered[name])["spec"]["template"]["metadata"]["labels"]
    )
    ports = {p["name"]: p["containerPort"] for p in container(master(rendered[name]))["ports"]}
    assert ports == {"workers": 5557, "web": 8089}


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_the_master_job_and_the_worker_deployment_run_the_projects_image_as_compose_does(
    rendered, name
):
    job, deployment = master(rendered[name]), workers(rendered[name])
    assert container(job)["image"] == container(deployment)["image"]
    assert container(job)["image"].rpartition("/")[2].partition(":")[0] == "sparkload"
    assert container(job)["command"] == compose_service("master")["command"]
    assert container(deployment)["command"] == compose_service("worker")["command"]
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"


def test_the_default_rendering_runs_the_image_compose_builds(rendered):
    image = container(master(rendered["the default"]))["image"]
    assert image == compose_service("master")["image"]


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_the_master_waits_for_as_many_workers_as_the_deployment_runs(rendered, name):
    env = {e["name"]: e.get("value") for e in container(master(rendered[name]))["env"]}
    assert env["LOCUST_EXPECT_WORKERS"] == str(workers(rendered[name])["spec"]["replicas"])


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_workers_connect_to_the_masters_service_on_5557(rendered, name):
    env = {e["name"]: e.get("value") for e in container(workers(rendered[name]))["env"]}
    assert (env["LOCUST_MASTER_NODE_HOST"], env["LOCUST_MASTER_NODE_PORT"]) == (
        "sparkload-master",
        "5557",
    )
    assert workers(rendered[name])["spec"]["template"]["metadata"]["labels"] == WORKER


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_only_the_worker_pods_may_reach_the_masters_port(rendered, name):
    policy = one(rendered[name], "NetworkPolicy", "sparkload-master")["spec"]
    assert policy["podSelector"] == {"matchLabels": MASTER}
    assert policy["policyTypes"] == ["Ingress"]
    assert policy["ingress"] == [
        {
            "from": [{"podSelector": {"matchLabels": WORKER}}],
            "ports": [{"protocol": "TCP", "port": 5557}],
        }
    ]
    assert master(rendered[name])["spec"]["template"]["metadata"]["labels"] == MASTER


def secret_refs(pod_spec: dict) -> set[str]:
    """The keys of the Secret a pod's containers take, each checked to come from that Secret."""
    keys = set()
    for each in pod_spec["containers"]:
        assert not any("secretRef" in source for source in each.get("envFrom", []))
        for variable in each.get("env", []):
            ref = variable.get("valueFrom", {}).get("secretKeyRef")
            if ref:
                assert (ref["name"], ref["key"]) == (SECRET, variable["name"])
                keys.add(ref["key"])
    assert not [v for v in pod_spec.get("volumes", []) if "secret" in v]
    return keys


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_the_secret_reaches_the_master_and_the_workers_and_no_other_pod(rendered, name):
    pods = {
        o["kind"]: o["spec"]["template"]["spec"]
        for o in objects(rendered[name])
        if "template" in o.get("spec", {})
    }
    assert {kind: secret_refs(spec) for kind, spec in pods.items()} == {
        "Job": SECRET_KEYS,
        "Deployment": SECRET_KEYS,
    }
    assert secret_refs(yaml.safe_load(RESULTS_READER.read_text())["spec"]) == set()


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_no_secret_is_rendered_and_the_options_hold_none(rendered, name):
    assert not [o for o in objects(rendered[name]) if o["kind"] == "Secret"]
    (options,) = [o for o in objects(rendered[name]) if o["kind"] == "ConfigMap"]
    assert not set(options["data"]) & SECRET_KEYS


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_the_options_configmap_holds_only_sparkload_and_locust_options_for_the_master(
    rendered, name
):
    (options,) = [o for o in objects(rendered[name]) if o["kind"] == "ConfigMap"]
    unknown = {
        key
        for key in options["data"]
        if key not in config.environment_names() and not key.startswith("LOCUST_")
    }
    assert not unknown
    (source,) = container(master(rendered[name]))["envFrom"]
    assert source == {"configMapRef": {"name": options["metadata"]["name"]}}
    assert "envFrom" not in container(workers(rendered[name]))  # they get the master's options


@pytest.mark.parametrize("name", KUSTOMIZATIONS)
def test_the_master_writes_its_run_directories_to_the_results_volume(rendered, name):
    pod = master(rendered[name])["spec"]["template"]["spec"]
    mounts = {m["name"]: m["mountPath"] for m in container(master(rendered[name]))["volumeMounts"]}
    claims = {
        v["name"]: v["persistentVolumeClaim"]["claimName"]
        for v in pod["volumes"]
        if "persistentVolumeClaim" in v
    }
    assert claims == {"results": "sparkload-results"}
    assert mounts["results"] == "/sparkload/results"  # the image's WORKDIR + the default results
    claim = one(rendered[name], "PersistentVolumeClaim", "sparkload-results")
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]  # one writer: the master


def test_the_tp2_overlay_targets_the_spark_head_at_tp2_on_two_nodes(rendered):
    (options,) = [o for o in objects(rendered["the TP2 overlay"]) if o["kind"] == "ConfigMap"]
    data = options["data"]
    assert (data["SPARKLOAD_TP"], data["SPARKLOAD_NODES"]) == ("2", "2")
    assert data["LOCUST_HOST"] == "http://spark-head:8000"
    assert data["LOCUST_HEADLESS"] == "true"  # the base's options stay


def test_every_pod_meets_the_restricted_pod_security_standard_its_namespace_enforces(rendered):
    (namespace,) = [o for o in objects(rendered["the default"]) if o["kind"] == "Namespace"]
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    pods = [
        o["spec"]["template"]["spec"]
        for o in (master(rendered["the default"]), workers(rendered["the default"]))
    ]
    for pod in [*pods, yaml.safe_load(RESULTS_READER.read_text())["spec"]]:
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        for each in pod["containers"]:
            assert each["securityContext"]["allowPrivilegeEscalation"] is False
            assert each["securityContext"]["capabilities"] == {"drop": ["ALL"]}
