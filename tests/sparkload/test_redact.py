"""Secret option values never show in a printed or recorded command line."""

from sparkload.redact import redacted_command


def test_the_value_after_api_key_is_hidden():
    assert redacted_command(["locust", "--api-key", "sk-1", "-H", "h"]) == [
        "locust",
        "--api-key",
        "***",
        "-H",
        "h",
    ]


def test_the_value_joined_with_an_equals_sign_is_hidden():
    assert redacted_command(["--api-key=sk-1"]) == ["--api-key=***"]


def test_other_options_are_left_alone():
    assert redacted_command(["--label", "api-key", "--model=x"]) == [
        "--label",
        "api-key",
        "--model=x",
    ]
