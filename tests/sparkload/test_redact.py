"""Secrets never show in a printed or recorded command line, nor in what a server said of itself."""

from sparkload.redact import HIDDEN, redacted_command, redacted_data, secret_name


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


def test_a_name_ending_in_a_secret_word_or_holding_one_names_a_secret():
    secret = ["api_key", "VLLM_API_KEY", "hfToken", "access_token", "db_password_file"]
    kept = ["max_tokens", "_reasoning_start_token_ids", "dbo_decode_token_threshold", "tokenizer"]
    assert [name for name in secret + kept if secret_name(name)] == secret


def test_a_secret_named_key_keeps_its_name_and_loses_its_value():
    said = {"VLLM_API_KEY": "abc", "hfToken": "xyz", "max_num_batched_tokens": 2048}
    assert redacted_data(said) == {
        "VLLM_API_KEY": HIDDEN,
        "hfToken": HIDDEN,
        "max_num_batched_tokens": 2048,
    }


def test_secret_pairs_in_text_are_hidden_and_the_rest_kept():
    text = "model='m', api_key='abc123', tokenizer='t', max_num_batched_tokens=2048"
    assert (
        redacted_data(text) == "model='m', api_key=***, tokenizer='t', max_num_batched_tokens=2048"
    )


def test_bearer_tokens_and_key_shaped_values_are_hidden_whatever_they_are_called():
    said = ["Authorization was Bearer abc.def", "sk-0123456789abcdef", "hf_0123456789abcdef"]
    assert redacted_data(said) == ["Authorization was ***", HIDDEN, HIDDEN]


def test_a_known_secret_is_hidden_wherever_it_shows():
    assert redacted_data({"env": "X=run-key-42 Y=1"}, ["run-key-42"]) == {"env": "X=*** Y=1"}
