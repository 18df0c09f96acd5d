"""A run's request and workload settings from its manifest, and where two runs' differ."""

from __future__ import annotations

from dataclasses import fields

from analysis.compare.run_settings import (
    NOT_SETTINGS,
    SETTINGS,
    UNSET,
    SettingDifference,
    differences,
    settings,
)
from sparkload.records.manifest import Manifest

PROMPTS = {"count": 100, "path": "/a/prompts.txt", "sha256": "e1db"}


def manifest(**changed) -> Manifest:
    """A simulator run's manifest as ``sparkload run`` writes it, with ``changed`` sections."""
    data = {
        "label": "fixed-tp1",
        "model": "sparkload-sim-fixed",
        "workload": {"name": "chat", "max_tokens": 16, "ignore_eos": False},
        "prompts": PROMPTS,
        "sampling": {"max_tokens": 16},
        "request": {"api": "chat", "extra_body": {}, "headers": [], "accept_encoding": "identity"},
        "simulator": {"profile": "fixed", "tp": 1, "time_scale": 10.0},
        "seed": 0,
        **changed,
    }
    return Manifest.from_dict(data)


def named(found: list[SettingDifference]) -> dict[str, tuple[str, str]]:
    return {d.setting: (d.baseline, d.run) for d in found}


def test_every_field_of_the_manifest_is_a_setting_or_said_not_to_be_one():
    own = {f.name for f in fields(Manifest)} - {"unknown", "_absent"}
    assert set(SETTINGS) | set(NOT_SETTINGS) == own
    assert not set(SETTINGS) & set(NOT_SETTINGS)


def test_two_runs_of_the_same_settings_differ_in_nothing():
    assert differences([manifest()], [manifest(label="other", command=["x"])]) == []


def test_a_different_max_tokens_is_named_in_the_workload_and_the_sampling():
    run = manifest(
        workload={"name": "chat", "max_tokens": 32, "ignore_eos": False},
        sampling={"max_tokens": 32},
    )
    assert named(differences([manifest()], [run])) == {
        "workload.max_tokens": ("16", "32"),
        "sampling.max_tokens": ("16", "32"),
    }


def test_thinking_turned_off_in_the_extra_body_is_a_difference_against_none():
    body = {"chat_template_kwargs": {"enable_thinking": False}}
    request = {"api": "chat", "extra_body": body, "headers": [], "accept_encoding": "identity"}
    found = named(differences([manifest()], [manifest(request=request)]))
    assert found == {"request.extra_body.chat_template_kwargs.enable_thinking": (UNSET, "false")}


def test_the_simulator_s_reasoning_tokens_are_a_difference():
    simulator = {"profile": "fixed", "tp": 1, "time_scale": 10.0, "reasoning_tokens": 32}
    found = named(differences([manifest()], [manifest(simulator=simulator)]))
    assert found == {"simulator.reasoning_tokens": (UNSET, "32")}


def test_sampling_keys_the_typed_entry_does_not_know_are_compared():
    found = differences([manifest()], [manifest(sampling={"max_tokens": 16, "temperature": 0.7})])
    assert named(found) == {"sampling.temperature": (UNSET, "0.7")}


def test_the_model_and_the_api_are_compared():
    request = {"api": "completions", "extra_body": {}, "headers": []}
    found = named(differences([manifest()], [manifest(model="other", request=request)]))
    assert found["model"] == ('"sparkload-sim-fixed"', '"other"')
    assert found["request.api"] == ('"chat"', '"completions"')


def test_the_same_prompts_at_another_path_are_the_same_and_another_digest_is_not():
    moved = manifest(prompts={**PROMPTS, "path": "/b/prompts.txt"})
    assert differences([manifest()], [moved]) == []
    edited = manifest(prompts={**PROMPTS, "sha256": "f00d"})
    assert named(differences([manifest()], [edited])) == {"prompts.sha256": ('"e1db"', '"f00d"')}


def test_the_simulator_s_speed_up_and_the_plan_s_rates_are_not_settings():
    base = manifest(arrival={"rates": [1.0, 2.0], "process": "poisson", "duration": 10})
    run = manifest(
        simulator={"profile": "fixed", "tp": 1, "time_scale": 20.0},
        arrival={"rates": [4.0], "process": "poisson", "duration": 30},
    )
    assert differences([base], [run]) == []


def test_the_arrival_process_is_a_setting():
    base = manifest(arrival={"rates": [1.0], "process": "poisson"})
    run = manifest(arrival={"rates": [1.0], "process": "constant"})
    assert named(differences([base], [run])) == {"arrival.process": ('"poisson"', '"constant"')}


def test_no_value_outside_the_settings_is_read_the_command_s_key_included():
    secret = "sk-this-never-shows"
    found = settings(
        manifest(
            command=["locust", "--api-key", secret],
            servers={"http://x": {"headers": {"authorization": secret}}},
            metadata={"token": secret},
        )
    )
    assert {key.split(".")[0] for key in found} <= set(SETTINGS)
    assert not any(secret in value for value in found.values())


def test_a_side_whose_runs_disagree_shows_each_value():
    found = differences([manifest(), manifest(seed=1)], [manifest()])
    assert named(found) == {"seed": ("0 | 1", "0")}


def test_a_difference_reads_as_one_short_phrase():
    difference = SettingDifference("workload.max_tokens", "16", "32", label="fp8")
    assert str(difference) == "fp8: workload.max_tokens 16 vs 32"
    assert len(str(SettingDifference("request.extra_body", "x" * 500, "y"))) < 100
