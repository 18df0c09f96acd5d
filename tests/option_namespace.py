"""Locust's parsed options as a test builds them: every option of the table at its default, some
set anew (raw values, as the command line gives them), for ``config.from_namespace``."""

from __future__ import annotations

import argparse

from sparkload import config as options


def namespace(**overrides) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    for option in options.OPTIONS:
        parser.add_argument(option.flag, default=option.default)
    ns = parser.parse_args([])
    for key, value in overrides.items():
        setattr(ns, key, value)
    return ns
