"""The error a user sees: bad input, as one line.

Every entry point (the locustfile, ``sparkload`` and its subcommands) turns a ``ConfigError``
into one line on stderr and ``records.EXIT_BAD_INPUT``: bad input never ends in a traceback.
The exit codes are the results contract's (``sparkload.records``), shared with the analysis.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """Bad input (an option, a prompt file, a matrix file, an unreachable target): its message
    is the one line the user sees."""
