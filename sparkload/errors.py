"""The errors a user sees, and the exit codes that go with them.

Every entry point (the locustfile, ``sparkload`` and its subcommands) turns a ``ConfigError``
into one line on stderr and ``EXIT_BAD_INPUT``: bad input never ends in a traceback.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REQUESTS_FAILED = 1  # Locust's own rule: some request failed
EXIT_BAD_INPUT = 2  # one line on stderr, nothing sent
EXIT_ABORTED = 3  # the run had to stop early (e.g. a worker was lost); its records are kept
EXIT_CHECK_FAILED = 4  # --check: a level breached a service level (analysis.errors has the same)
EXIT_INTERRUPTED = 130  # Ctrl-C (the shell's convention)


class ConfigError(ValueError):
    """Bad input (an option, a prompt file, a matrix file, an unreachable target): its message
    is the one line the user sees."""
