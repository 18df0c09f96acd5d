"""sparkload.plugin.reference: Locust's own options of ``sparkload run``, as Markdown."""

from __future__ import annotations

from sparkload.plugin import reference


def test_locusts_options_are_listed_with_every_spelling():
    text = reference.locust_markdown()
    assert "| `-H`, `--host` |" in text and "| `--expect-workers` |" in text


def test_sparkloads_own_groups_are_left_to_the_option_table():
    text = reference.locust_markdown()
    assert "sparkload:" not in text and "`--ladder`" not in text


def test_the_run_parser_knows_sparkloads_options_and_locusts():
    parsed = reference.run_parser().parse_args(["--ladder", "1,2", "-H", "http://127.0.0.1:1"])
    assert (parsed.ladder, parsed.host) == ("1,2", "http://127.0.0.1:1")
