"""Each process's own secrets (sparkload.hostsecrets): taken once from its own options or
secrets file, and blanked in the options Locust sends to workers."""

from __future__ import annotations

import argparse

import pytest
from locust.argument_parser import LocustArgumentParser

from sparkload import config
from sparkload.errors import ConfigError
from sparkload.hostsecrets import HostSecrets, blank
from sparkload.plugin.options import register


def parse(*args: str) -> argparse.Namespace:
    parser = LocustArgumentParser()
    register(parser)
    return parser.parse_args(list(args))


@pytest.fixture(autouse=True)
def no_secrets_in_the_environment(monkeypatch):
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "SPARKLOAD_HEADER",
        "SPARKLOAD_WORKER_TOKEN",
    ):
        monkeypatch.delenv(name, raising=False)


def test_secrets_come_from_the_processs_own_options():
    parsed = parse("--api-key", "k1", "--header", "X-Tenant: a", "--worker-token", "t1")
    assert HostSecrets.capture(parsed) == HostSecrets("k1", {"X-Tenant": "a"}, "t1")


def test_secrets_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "k-env")
    monkeypatch.setenv("SPARKLOAD_WORKER_TOKEN", "t-env")
    assert HostSecrets.capture(parse()) == HostSecrets("k-env", {}, "t-env")


def test_a_secrets_file_fills_what_the_options_leave_empty(tmp_path):
    path = tmp_path / "secrets.env"
    path.write_text(
        "# this host's\nOPENAI_API_KEY=k-file\n\nSPARKLOAD_HEADER=X-A: 1\n"
        "SPARKLOAD_HEADER=X-B: 2\nSPARKLOAD_WORKER_TOKEN = t-file\n"
    )
    captured = HostSecrets.capture(parse("--secrets-file", str(path), "--api-key", "k-cli"))
    assert captured == HostSecrets("k-cli", {"X-A": "1", "X-B": "2"}, "t-file")


def test_a_bad_line_names_the_file_and_line_but_not_the_value(tmp_path):
    path = tmp_path / "secrets.env"
    path.write_text("OPENAI_API_KEY=fine\nAPI_KEY=sk-do-not-show\n")
    with pytest.raises(ConfigError, match=r"secrets.env:2: give NAME=value") as caught:
        HostSecrets.capture(parse("--secrets-file", str(path)))
    assert "sk-do-not-show" not in str(caught.value)


def test_a_secret_given_twice_in_the_file_is_refused(tmp_path):
    path = tmp_path / "secrets.env"
    path.write_text("SPARKLOAD_WORKER_TOKEN=a\nSPARKLOAD_WORKER_TOKEN=b\n")
    with pytest.raises(ConfigError, match="secrets.env:2: SPARKLOAD_WORKER_TOKEN given twice"):
        HostSecrets.capture(parse("--secrets-file", str(path)))


def test_a_missing_secrets_file_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match=r"--secrets-file: cannot read .*nothing: No such file"):
        HostSecrets.capture(parse("--secrets-file", str(tmp_path / "nothing")))


def test_blanked_options_hold_no_secret_nor_the_secrets_files_path(tmp_path):
    parsed = parse(
        *("--api-key", "k1", "--header", "X-Tenant: a", "--worker-token", "t1"),
        *("--secrets-file", str(tmp_path / "secrets.env")),
    )
    blank(parsed)
    opts = config.from_namespace(parsed)
    assert (
        opts.target.api_key,
        opts.request.header,
        opts.distributed.worker_token,
        opts.target.secrets_file,
    ) == ("", {}, "", None)


def test_the_options_a_process_runs_with_carry_its_own_secrets():
    opts = config.from_namespace(parse("--api-key", "the-masters"))
    own = HostSecrets("mine", {"X-Tenant": "b"}, "t")
    assert (own.into(opts).target.api_key, own.into(opts).request.header) == (
        "mine",
        {"X-Tenant": "b"},
    )


def test_what_may_be_said_of_them_is_whether_a_key_is_there_and_the_header_names():
    assert HostSecrets("k", {"X-B": "2", "X-A": "1"}, "t").names() == {
        "api_key": True,
        "headers": ["X-A", "X-B"],
    }


def test_messages_takes_its_key_from_anthropic_api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-ant")
    assert HostSecrets.capture(parse("--api", "messages")).api_key == "k-ant"


def test_anthropic_api_key_wins_over_openai_api_key_on_messages_only(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-ant")
    monkeypatch.setenv("OPENAI_API_KEY", "k-openai")
    assert HostSecrets.capture(parse("--api", "messages")).api_key == "k-ant"
    assert HostSecrets.capture(parse("--api", "chat")).api_key == "k-openai"


def test_an_api_key_option_wins_over_anthropic_api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-ant")
    assert HostSecrets.capture(parse("--api", "messages", "--api-key", "k1")).api_key == "k1"


def test_a_secrets_file_may_give_anthropic_api_key(tmp_path):
    path = tmp_path / "secrets"
    path.write_text("ANTHROPIC_API_KEY=k-file\n")
    parsed = parse("--api", "messages", "--secrets-file", str(path))
    assert HostSecrets.capture(parsed).api_key == "k-file"
