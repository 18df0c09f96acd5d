"""sparkload.config.reference: the option table as the options page's Markdown."""

from __future__ import annotations

from sparkload import config
from sparkload.config import reference
from sparkload.config.option import Option
from sparkload.config.parsers import Parse


def option(**fields) -> Option:
    base = {"flag": "--x", "default": "", "help": "h", "group": config.GROUP_ORDER[0]}
    parse: Parse = lambda flag, value: value  # noqa: E731
    return Option(**{**base, **fields}, parse=parse)


def test_a_cell_keeps_bars_tags_and_line_breaks_from_breaking_the_table():
    assert reference.cell("a | b\n  <tool_call> *x*") == "a \\| b &lt;tool_call&gt; \\*x\\*"


def test_every_option_has_one_row_in_its_groups_section():
    text = reference.markdown()
    rows = [line for line in text.splitlines() if line.startswith("| `--")]
    assert [row.split("`")[1] for row in rows] == [
        o.flag for group in config.GROUP_ORDER for o in config.OPTIONS if o.group == group
    ]


def test_the_default_prompt_file_is_shown_where_it_lives_not_where_this_checkout_is():
    [row] = [line for line in reference.markdown().splitlines() if "| `--prompts`" in line]
    assert "| `prompts/prompts.txt` |" in row


def test_a_default_that_says_nothing_is_left_empty_and_a_secret_says_so():
    assert reference.shown_default(option(default=False)) == ""
    assert reference.shown_default(option(default=[])) == ""
    assert reference.shown_default(option(default=8)) == "`8`"
    row = reference.group_table(config.GROUP_ORDER[0], (option(secret=True, default="k"),))
    assert "| `--x` |  |" in row and "**Secret:**" in row


def test_choices_and_the_environment_variable_are_in_the_row():
    row = reference.group_table(
        config.GROUP_ORDER[0], (option(choices=("a", "b"), env="MY_VAR", default="a"),)
    )
    assert "| `--x` {a,b} | `a` | h<br>Environment: `MY_VAR` |" in row
