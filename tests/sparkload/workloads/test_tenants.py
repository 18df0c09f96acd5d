"""The tenants workload: users dealt to classes by their number in the run, each class's
requests its own workload's, planned with its own state and named by its class."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sparkload.config import changed
from sparkload.errors import ConfigError
from sparkload.inputs.tenants import TenantClass
from sparkload.stages import Arrival
from sparkload.workloads import registry
from sparkload.workloads.contract import Slot
from sparkload.workloads.tenants import Dealer, TenantsWorkload, baseline_levels, class_options
from tests.options import run_options

SHARES = (0.6, 0.3, 0.1)


def test_twenty_users_at_six_three_one_tenths_are_twelve_six_and_two():
    assert Dealer(SHARES).counts(20) == [12, 6, 2]


@pytest.mark.parametrize("shares", [SHARES, (0.5, 0.5), (1 / 3, 1 / 3, 1 / 3), (0.05, 0.95)])
def test_every_count_of_users_is_within_one_of_each_quota_and_exact_where_it_is_whole(shares):
    dealer = Dealer(shares)
    for users in range(1, 201):
        for share, count in zip(shares, dealer.counts(users), strict=True):
            quota = share * users
            if math.isclose(quota, round(quota), abs_tol=1e-9):
                assert count == round(quota), (users, shares)
            else:
                assert math.floor(quota) <= count <= math.ceil(quota), (users, shares)


def test_a_users_class_does_not_depend_on_how_many_users_follow():
    grown, fresh = Dealer(SHARES), Dealer(SHARES)
    grown.counts(100)
    assert [grown.class_of(i) for i in range(20)] == [fresh.class_of(i) for i in range(20)]


def tenant(name: str = "a", workload: str = "chat", **options) -> TenantClass:
    return TenantClass(name, 1.0, workload, options)


def test_a_class_runs_with_the_runs_options_changed_by_its_own():
    opts = class_options(run_options(), tenant("agents", "agent", **{"tool-turns": 1}))
    assert opts.workload.name == "agent" and opts.workload.tool_turns == 1


@pytest.mark.parametrize(
    "options, said",
    [
        ({"tool-turnz": 1}, "class 'a': unknown option 'tool-turnz'"),
        ({"ladder": "1,2"}, "class 'a': option 'ladder' is the run's (load plan)"),
        ({"tool-turns": "x"}, "class 'a': --tool-turns: 'x' is not a whole number"),
        ({"input-tokens": 100}, "class 'a': --input-tokens fits prompts"),
    ],
)
def test_an_option_a_class_cannot_have_is_one_line_naming_class_and_option(options, said):
    with pytest.raises(ConfigError) as caught:
        class_options(run_options(), tenant("a", **options))
    assert said in str(caught.value) and str(caught.value).startswith("--tenants: ")


def mix(tmp_path: Path) -> TenantsWorkload:
    path = tmp_path / "mix.yaml"
    path.write_text(
        "classes:\n"
        "  - {name: chat, share: 0.6, workload: chat}\n"
        "  - {name: agents, share: 0.3, workload: agent, options: {tool-turns: 1}, model: ad}\n"
        "  - {name: batch, share: 0.1, workload: prefill, options: {prefill-sizes: '500'}}\n"
    )
    opts = registry.settle(changed(run_options(), tenants=path))
    workload = registry.load(opts)
    assert isinstance(workload, TenantsWorkload)
    return workload


def test_each_users_requests_are_its_classes_and_carry_its_name_and_model(tmp_path):
    workload = mix(tmp_path)
    users = [workload.user_at(index, index, lambda: 0) for index in range(20)]
    planned = [workload.next_request(user, Slot(0)) for user in users]
    assert [p.tenant for p in planned].count("chat") == 12
    agents = [p for p in planned if p.tenant == "agents"]
    assert len(agents) == 6 and {p.model for p in agents} == {"ad"}
    assert {p.step for p in agents} == {"tool_call"} and {p.turns for p in agents} == {4}
    batch = [p for p in planned if p.tenant == "batch"]
    assert len(batch) == 2 and {p.extra["target_tokens"] for p in batch} == {500}


def test_the_mix_counts_sessions_by_their_records_when_the_classes_differ(tmp_path):
    workload = mix(tmp_path)
    assert workload.requests_per_session is None  # chat 1, agent 4: summed from first turns
    entry = workload.manifest()
    assert entry["name"] == "tenants"
    assert [c["name"] for c in entry["classes"]] == ["chat", "agents", "batch"]


def test_a_class_whose_workload_refuses_the_options_names_the_class(tmp_path):
    path = tmp_path / "mix.json"
    path.write_text(
        '{"classes": [{"name": "talk", "share": 1, "workload": "chat", '
        '"options": {"tool-turns": 3}}]}'
    )
    with pytest.raises(ConfigError, match=r"^--tenants: class 'talk': --tool-turns"):
        registry.load(registry.settle(changed(run_options(), tenants=path)))


def test_the_documented_example_builds_its_three_classes():
    path = Path(__file__).parents[3] / "examples" / "tenants.yaml"
    workload = registry.load(registry.settle(changed(run_options(), tenants=path)))
    assert isinstance(workload, TenantsWorkload)
    assert [c.workload for c in workload.classes] == ["chat", "agent", "prefill"]


def test_baselines_are_each_class_at_its_share_of_the_first_level_smallest_first():
    assert baseline_levels(SHARES, 20) == [(2, 2), (1, 6), (0, 12)]
    assert baseline_levels((0.95, 0.05), 4) == [(1, 1), (0, 4)]  # a class of no user: one


def test_a_baseline_levels_users_all_send_its_class_and_their_records_are_set_apart(tmp_path):
    path = tmp_path / "mix.yaml"
    path.write_text(
        "classes:\n  - {name: a, share: 0.5, workload: chat}\n"
        "  - {name: b, share: 0.5, workload: chat, options: {max-tokens: 4}}\n"
    )
    opts = registry.settle(changed(run_options(), tenants=path, tenant_baselines=True))
    assert opts.plan.ladder[:2] == (1, 1)  # each class alone, then the run's ladder
    workload = registry.load(opts)
    assert isinstance(workload, TenantsWorkload)
    user = workload.user_at(0, 0, lambda: 0)  # dealt to a
    assert workload.next_request(user, Slot(1)).tenant == "b"  # level 1: b alone
    assert workload.next_request(user, Slot(2)).tenant == "a"  # the mix: its own class


def test_an_open_loops_arrivals_are_dealt_by_their_place_in_the_schedule(tmp_path):
    workload = mix(tmp_path)
    user = workload.user_at(0, 0, lambda: 0)  # one user takes every arrival
    planned = [
        workload.next_request(user, Slot(0, Arrival(0.0, 0.0, line=index))) for index in range(10)
    ]
    assert [p.tenant for p in planned].count("chat") == 6
    assert [p.tenant for p in planned].count("agents") == 3
    assert [p.tenant for p in planned].count("batch") == 1
