"""Prompt files: read once, validated with one-line errors, served in a seeded order."""

import pytest

from sparkload.errors import ConfigError
from sparkload.inputs.prompts import PromptOrder, load_prompts
from sparkload.paths import DEFAULT_PROMPTS


def test_the_default_prompt_set_has_100_prompts():
    assert len(load_prompts(DEFAULT_PROMPTS).prompts) == 100


def test_blank_lines_are_ignored(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("first\n\n  \nsecond\n")
    assert load_prompts(path).prompts == ("first", "second")


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_prompts(tmp_path / "absent.txt")


def test_empty_file_is_a_config_error(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("\n\n")
    with pytest.raises(ConfigError, match="holds no prompts"):
        load_prompts(path)


def test_binary_file_is_a_config_error(tmp_path):
    path = tmp_path / "bin.txt"
    path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_prompts(path)


def test_a_directory_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="is a directory"):
        load_prompts(tmp_path)


def test_order_is_a_seeded_permutation_that_repeats_every_prompt_once_per_cycle():
    order = PromptOrder(10, seed=7)
    first_cycle = [order.next() for _ in range(10)]
    assert sorted(first_cycle) == list(range(10))
    assert first_cycle != list(range(10))
    again = PromptOrder(10, seed=7)
    assert [again.next() for _ in range(10)] == first_cycle


def test_processes_get_different_orders_from_the_same_seed():
    a, b = PromptOrder(50, seed=1, stream=0), PromptOrder(50, seed=1, stream=1)
    assert [a.next() for _ in range(50)] != [b.next() for _ in range(50)]
