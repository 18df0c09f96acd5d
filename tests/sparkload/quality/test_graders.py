"""The grading rules on replies as models write them: GSM8K's final number, a multiple-choice
letter, exact, numeric and regex matches, and the retrieval key."""

from __future__ import annotations

import pytest

from sparkload.quality.graders import choice_letter, final_number, grade
from sparkload.quality.items import (
    MATCH_CHOICE,
    MATCH_CONTAINS,
    MATCH_EXACT,
    MATCH_NUMERIC,
    MATCH_REGEX,
    Item,
)


@pytest.mark.parametrize(
    ("reply", "number"),
    [
        ("#### 42", "42"),
        ("The answer is 42.", "42"),
        ("42 apples", "42"),
        ("Natalia sold 48/2 = 24 clips in May.\n#### 72", "72"),  # the marker wins
        ("#### 72\nCheck: 72 - 24 = 48 clips in April.", "72"),  # the first marker, not the last
        ("She pays $1,234.50 in all.", "1234.50"),
        ("#### $1,000", "1000"),
        ("It drops to -5 degrees.", "-5"),
        ("First 3 + 4 = 7, then 7 * 2 = 14. So the answer is 14.", "14"),
        ("I cannot tell.", None),
        ("", None),
    ],
)
def test_the_final_number_is_the_marked_one_else_the_last(reply, number):
    assert final_number(reply) == number


def numeric(expected: str, tolerance: float = 1e-6) -> Item:
    return Item("1", "q", expected, MATCH_NUMERIC, tolerance=tolerance)


@pytest.mark.parametrize(
    ("reply", "extracted", "correct"),
    [
        ("The answer is 42.", "42", True),
        ("#### 42", "42", True),
        ("42 apples", "42", True),
        ("so 42.0 in all", "42.0", True),  # compared as numbers
        ("The answer is 41.", "41", False),
        ("#### 41\nor maybe 42", "41", False),  # the marked number is the answer
        ("no idea", None, False),
    ],
)
def test_gsm8k_style_replies_are_graded_by_their_final_number(reply, extracted, correct):
    assert tuple(grade(numeric("42"), reply)) == (extracted, correct)


def test_a_numeric_match_has_its_tolerance():
    assert grade(numeric("3.14", tolerance=0.01), "about 3.141").correct
    assert not grade(numeric("3.14", tolerance=0.0001), "about 3.141").correct


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("(B)", "B"),
        ("Answer: B", "B"),
        ("b)", "B"),
        ("B", "B"),
        ("B.", "B"),
        ("B) Paris", "B"),
        ("**C**", "C"),
        ("The capital is Paris.\n\nAnswer: C", "C"),
        ("The answer is (D).", "D"),
        ("Let me think. A is wrong, B too.\nAnswer: **D**", "D"),  # the last Answer: line
        ("answer: c", "C"),
        ("Answer: $A$", "A"),
        ("Paris", "C"),  # exactly one option's text
        ("A dog can swim.", None),  # a capital A that is a word
        ("the answer is a bit unclear", None),
        ("I think it is B or C", None),  # no letter guessed from inside a sentence
        ("Answer: E", None),  # not one of the options
        ("", None),
    ],
)
def test_a_multiple_choice_reply_gives_its_letter(reply, letter):
    assert choice_letter(reply, "ABCD", ("London", "Berlin", "Paris", "Rome")) == letter


def test_a_choice_is_right_only_when_its_letter_is_the_answer():
    item = Item("1", "q", "B", MATCH_CHOICE, letters="ABCD", choices=("w", "x", "y", "z"))
    assert grade(item, "Answer: B") == ("B", True)
    assert grade(item, "Answer: C") == ("C", False)
    assert grade(item, "no letter here") == (None, False)


def test_ten_options_read_letters_up_to_j():
    assert choice_letter("Answer: J", "ABCDEFGHIJ") == "J"
    assert choice_letter("I. Because", "ABCDEFGHIJ") == "I"


def test_an_exact_match_ignores_case_spacing_and_a_final_period():
    item = Item("1", "q", "Paris", MATCH_EXACT)
    assert grade(item, "  paris.\n").correct
    assert not grade(item, "Paris, France").correct
    assert grade(Item("1", "q", "New  York", MATCH_EXACT), "new york").correct


def test_a_regex_match_extracts_its_group():
    item = Item("1", "q", r"code (\d{4})", MATCH_REGEX)
    assert tuple(grade(item, "the code 1234 opens it")) == ("1234", True)
    assert tuple(grade(item, "no code")) == (None, False)
    assert tuple(grade(Item("1", "q", r"(?i)yes", MATCH_REGEX), "YES.")) == ("YES", True)


def test_the_retrieval_key_counts_as_a_whole_word_only():
    item = Item("1", "q", "4827163", MATCH_CONTAINS)
    assert tuple(grade(item, "The code is 4827163.")) == ("4827163", True)
    assert tuple(grade(item, "4827163")) == ("4827163", True)
    assert tuple(grade(item, "It is 94827163.")) == ("94827163", False)
    assert tuple(grade(item, "It is 1234567.")) == ("1234567", False)
    assert tuple(grade(item, "I do not know.")) == (None, False)
