"""--check tenants and the classes' slos are read before the load: what cannot be judged is
one line."""

from __future__ import annotations

import json

import pytest

from sparkload.config import changed
from sparkload.errors import ConfigError
from sparkload.run.setup import check_tenant_slos
from tests.options import run_options


def with_classes(tmp_path, *slos: str):
    path = tmp_path / "tenants.json"
    classes = [
        {"name": f"c{i}", "share": 1 / len(slos), "workload": "chat", "slo": slo}
        for i, slo in enumerate(slos)
    ]
    path.write_text(json.dumps({"classes": classes}))
    return changed(run_options(), tenants=path, check="tenants")


def test_check_tenants_without_classes_is_refused():
    with pytest.raises(ConfigError, match="--check tenants holds each --tenants class"):
        check_tenant_slos(changed(run_options(), check="tenants"))


def test_check_tenants_needs_a_class_with_an_slo(tmp_path):
    with pytest.raises(ConfigError, match="--check tenants: no class of .* names an slo"):
        check_tenant_slos(with_classes(tmp_path, "", ""))


def test_an_slo_the_analysis_cannot_read_names_its_class(tmp_path):
    with pytest.raises(ConfigError, match=r"^--tenants: class 'c1': slo: "):
        check_tenant_slos(with_classes(tmp_path, "ttft_p90_ms<=100", "ttft_p90<=x"))


def test_readable_slos_pass(tmp_path):
    check_tenant_slos(with_classes(tmp_path, "ttft_p90_ms<=100", "latency_p90_s<=2"))
