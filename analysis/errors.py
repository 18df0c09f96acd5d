"""The one exception the command line turns into "one line on stderr, exit code 2".

The exit codes are the results contract's (``sparkload.records``): the load side runs
``python -m analysis --check ...`` at the end of a run and passes its exit code on.
"""


class InputError(Exception):
    """Input the user can fix: a missing directory, a run without records, a bad option value."""
