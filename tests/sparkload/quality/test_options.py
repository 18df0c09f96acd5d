"""``sparkload quality``'s options are rows of the option table: its own in one typed group,
the ones it shares with ``run`` the table's own rows, so the two commands cannot drift apart."""

from __future__ import annotations

import dataclasses

import pytest

from sparkload import config
from sparkload.errors import ConfigError
from sparkload.quality.options import (
    ROWS,
    SHARED_ROWS,
    QualityOptions,
    quality_options,
    shared_options,
)
from sparkload.run.quality_options import build_parser


def test_every_own_option_is_a_row_and_a_typed_field():
    assert [f.name for f in dataclasses.fields(QualityOptions)] == [r.field_name for r in ROWS]


def test_no_own_row_is_in_run_s_table():
    """Run's --help and the options page show run's rows only: these stay this command's."""
    assert [row.flag for row in ROWS if row in config.OPTIONS] == []


def test_a_shared_row_is_the_table_s_row_with_its_parser():
    for row in SHARED_ROWS:
        assert row.parse is config.BY_DEST[row.dest].parse
        assert row.flag == config.BY_DEST[row.dest].flag


def test_the_parser_offers_every_row_and_nothing_else():
    flags = {
        flag
        for action in build_parser()._actions
        for flag in action.option_strings
        if flag.startswith("--") and flag != "--help"
    }
    rows = (*ROWS, *SHARED_ROWS, *config.SIMULATOR_OPTIONS)
    assert flags == {row.flag for row in rows}


def test_the_defaults_are_greedy_sampling_and_run_s_results_directory():
    options = shared_options({})
    assert options.request.temperature == 0.0
    assert options.results.results_dir == config.default("results_dir")


def test_a_bad_own_value_is_a_config_error_naming_its_flag():
    with pytest.raises(ConfigError, match="^--concurrency: give 1 to 64, not 65$"):
        quality_options({"concurrency": 65})


def test_probes_are_named_repeated_or_comma_separated():
    assert quality_options({"probe": ["arithmetic,retrieval"]}).probe == (
        "arithmetic",
        "retrieval",
    )
