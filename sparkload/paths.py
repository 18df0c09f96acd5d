"""Where sparkload's own files live: the locustfile and the prompt sets.

They sit beside the packages in a checkout (``locustfiles/``, ``prompts/``); everything that
needs one asks here, so the layout is known in one place.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = PROJECT_ROOT / "locustfiles" / "chat.py"
PROMPTS_DIR = PROJECT_ROOT / "prompts"
DEFAULT_PROMPTS = PROMPTS_DIR / "prompts.txt"
FRESH_SPECS = PROMPTS_DIR / "fresh.txt"
EDIT_SOURCES = PROMPTS_DIR / "edit"
