"""Where sparkload's own files live: the locustfile and the prompt sets.

In a checkout they sit beside the packages (``locustfiles/``, ``prompts/``); an installed wheel
puts them in ``<prefix>/share/sparkload`` (pyproject.toml's data-files). Everything that needs
one asks here, so the layout is known in one place.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent
_LOCUSTFILE = Path("locustfiles") / "chat.py"


def _data_root() -> Path:
    """The checkout, else the first installation scheme whose share/sparkload holds the files."""
    if (_CHECKOUT / _LOCUSTFILE).is_file():
        return _CHECKOUT
    schemes = [sysconfig.get_default_scheme(), f"{os.name}_user"]
    for scheme in schemes:
        try:
            candidate = Path(sysconfig.get_path("data", scheme)) / "share" / "sparkload"
        except KeyError:
            continue
        if (candidate / _LOCUSTFILE).is_file():
            return candidate
    return _CHECKOUT  # missing files are then named by whatever needs them


DATA_ROOT = _data_root()
LOCUSTFILE = DATA_ROOT / _LOCUSTFILE
PROMPTS_DIR = DATA_ROOT / "prompts"
DEFAULT_PROMPTS = PROMPTS_DIR / "prompts.txt"
FRESH_SPECS = PROMPTS_DIR / "fresh.txt"
SPECULATIVE_PROMPTS = PROMPTS_DIR / "speculative.jsonl"  # by category: drafting's easy and hard
EDIT_SOURCES = PROMPTS_DIR / "edit"
