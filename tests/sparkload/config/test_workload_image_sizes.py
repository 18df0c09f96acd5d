"""--image-size: comma-separated WxH sizes, each side 1..8192 pixels; anything else is one
line naming the option."""

from __future__ import annotations

import pytest

from sparkload.config.workload import image_sizes
from sparkload.errors import ConfigError


def test_sizes_are_read_in_order_whatever_the_case_of_the_x():
    assert image_sizes("--image-size", "224x224, 896X448") == ((224, 224), (896, 448))


def test_sizes_already_read_read_the_same():
    assert image_sizes("--image-size", ((512, 512),)) == ((512, 512),)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("512", "'512' is not a size WxH"),
        ("axb", "'axb' is not a size WxH"),
        ("0x512", "0x512 has a side outside 1..8192 pixels"),
        ("9000x10", "9000x10 has a side outside 1..8192 pixels"),
    ],
)
def test_a_bad_size_is_one_error_naming_the_option(value, said):
    with pytest.raises(ConfigError, match=f"^--image-size: {said}"):
        image_sizes("--image-size", value)
