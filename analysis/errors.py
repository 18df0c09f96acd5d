"""The one exception the command line turns into "one line on stderr, exit code 2", and the
command line's exit codes.

The load side runs ``python -m analysis --check ...`` at the end of a run and passes its exit
code on; ``sparkload/errors.py`` mirrors EXIT_CHECK_FAILED (a test holds the two equal).
"""

EXIT_BAD_INPUT = 2  # one line on stderr: a missing directory, an unreadable option value, ...
EXIT_CHECK_FAILED = 4  # --check: a level's statistic breaks a bound


class InputError(Exception):
    """Input the user can fix: a missing directory, a run without records, a bad option value."""
