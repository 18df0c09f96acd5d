"""The port parser (--prometheus-port): 1..65535, 0 for off, anything else one clear line."""

from __future__ import annotations

import pytest

from sparkload.config.parsers import port
from sparkload.errors import ConfigError


@pytest.mark.parametrize(
    ("raw", "expected"), [("9402", 9402), (9402, 9402), ("0", 0), (65535, 65535)]
)
def test_a_port_or_zero_is_taken(raw, expected):
    assert port("--prometheus-port", raw) == expected


@pytest.mark.parametrize("raw", ["65536", "-1"])
def test_a_number_out_of_range_names_the_flag_and_the_range(raw):
    with pytest.raises(ConfigError, match=r"^--prometheus-port: .* give 1\.\.65535 \(0: off\)$"):
        port("--prometheus-port", raw)


@pytest.mark.parametrize("raw", ["http", "94.5"])
def test_a_value_that_is_no_whole_number_says_so(raw):
    with pytest.raises(ConfigError, match=r"^--prometheus-port: .* is not a whole number$"):
        port("--prometheus-port", raw)
