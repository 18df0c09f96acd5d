"""The option table (sparkload/config/) is the one place an option is defined: every consumer
derives from it."""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from locust.argument_parser import LocustArgumentParser

from sparkload import config
from sparkload.matrix import runner, spec
from sparkload.plugin.options import register
from tests.conftest import ROOT
from tests.options import parsed_options


@pytest.fixture
def ladder_default_3_5(monkeypatch):
    """The ladder's default changed in the table only."""
    changed = dataclasses.replace(config.BY_DEST["ladder"], default="3,5")
    monkeypatch.setattr(
        config, "OPTIONS", tuple(changed if o.dest == "ladder" else o for o in config.OPTIONS)
    )
    monkeypatch.setitem(config.BY_DEST, "ladder", changed)


def test_a_changed_default_reaches_the_locust_option(ladder_default_3_5):
    assert parsed_options().plan.ladder == (3, 5)


def test_a_changed_default_reaches_the_matrix_default(ladder_default_3_5, tmp_path):
    matrix = spec.parse({"targets": [{"simulator": {"profile": "fp8"}}]}, "m.yaml")
    assert matrix.option("ladder") == (3, 5)
    command = runner.locust_command(matrix, matrix.targets[0], tmp_path)
    assert "--ladder" not in command  # the run itself takes Locust's default, i.e. config's


def test_the_compose_file_leaves_every_default_to_config():
    """compose sets no sparkload option of its own, so a changed default reaches its runs."""
    master = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["master"]
    given = {k for k, v in master["environment"].items() if v is not None}
    assert not given & set(config.environment_names())
    assert not any(
        arg.startswith("--") and arg[2:].replace("-", "_") in config.BY_DEST
        for arg in master["command"]
    )


def test_every_option_has_help_a_group_and_an_environment_name():
    for option in config.OPTIONS:
        assert option.help and option.group in config.GROUP_ORDER
        assert option.env_var.startswith("SPARKLOAD_") or option.env_var == "OPENAI_API_KEY"


def test_abbreviated_options_are_refused_not_guessed(capsys):
    parser = LocustArgumentParser()
    register(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--api-k", "completions"])
    assert "unrecognized arguments: --api-k" in capsys.readouterr().err


def test_api_and_api_key_are_told_apart():
    opts = parsed_options("--api", "completions")
    assert (opts.request.api, opts.target.api_key) == ("completions", "")


def test_a_matrix_key_is_validated_by_the_options_own_parser():
    with pytest.raises(spec.MatrixError, match="m.yaml: requests_per_user: 'ten' is not a whole"):
        spec.parse(
            {"requests_per_user": "ten", "targets": [{"simulator": {"profile": "fp8"}}]}, "m.yaml"
        )


def test_every_run_option_is_a_matrix_key():
    assert set(spec.RUN_OPTIONS) <= set(spec.TOP_KEYS)
    assert {"ladder", "workload", "seed", "request_timeout"} <= set(spec.RUN_OPTIONS)
    assert "api_key" not in spec.TOP_KEYS  # secrets stay out of files kept beside results


def test_the_hand_written_pages_document_every_option():
    """Beside the options page, which is generated from this table (so it proves nothing),
    every option is explained on some page a person wrote."""
    pages = [page for page in sorted((ROOT / "docs").glob("*.md")) if page.name != "options.md"]
    text = "".join(page.read_text() for page in pages)
    assert [option.flag for option in config.OPTIONS if f"`{option.flag}`" not in text] == []


@pytest.mark.parametrize("group", sorted(config.GROUPS))
def test_each_groups_typed_options_have_exactly_its_rows_fields(group):
    cls, rows = config.GROUPS[group]
    assert [f.name for f in dataclasses.fields(cls)] == [row.field_name for row in rows]


def test_every_option_belongs_to_one_group_in_the_tables_order():
    rows = [row for _, group_rows in config.GROUPS.values() for row in group_rows]
    assert rows == list(config.OPTIONS) and len({r.dest for r in rows}) == len(rows)


def test_an_option_changed_by_its_name_lands_in_its_group_and_nothing_else_moves():
    opts = parsed_options("--ladder", "1,2", "--workload", "fresh")
    again = config.changed(opts, ladder=(4,), workload="edit", sim_profile="fp8")
    assert (again.plan.ladder, again.workload.name, again.simulator.profile) == (
        (4,),
        "edit",
        "fp8",
    )
    assert again.plan.requests_per_user == opts.plan.requests_per_user
    assert (opts.plan.ladder, opts.workload.name) == ((1, 2), "fresh")
