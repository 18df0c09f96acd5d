"""A duration option takes a number with its unit, never a bare number."""

import pytest

from sparkload.config.parsers import duration
from sparkload.errors import ConfigError


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [("60s", 60.0), ("5m", 300.0), ("1h30m", 5400.0), ("250ms", 0.25), ("1.5m", 90.0), ("0", 0.0)],
)
def test_a_duration_with_units_is_read_in_seconds(raw: str, seconds: float) -> None:
    assert duration("--sustain", raw) == pytest.approx(seconds)


@pytest.mark.parametrize("raw", ["60", "5 minutes", "m5", "-5s", "5s5"])
def test_a_duration_without_its_unit_is_refused_naming_the_option(raw: str) -> None:
    with pytest.raises(ConfigError, match=r"^--sustain: .* is not a duration"):
        duration("--sustain", raw)


@pytest.mark.parametrize("parsed", [0.0, "0.0"])
def test_a_parsed_zero_given_again_is_none(parsed: object) -> None:
    """A parsed default handed back to its parser (a test's or a form's defaults) reads as
    none, not as a number without its unit."""
    assert duration("--sustain", parsed) == 0.0
