"""What the analysis's command lines share: a parser whose usage errors are one line and exit 2
(``InputError``), and the value check of its counts and durations."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from analysis.errors import InputError


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as InputError instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{message} (see --help)")


def non_negative(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    """An argparse ``type``: the text as ``kind``, refused when not a number or negative."""

    def convert(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must not be negative: {text!r}")
        return value

    return convert
