"""The one exception the command line turns into "one line on stderr, exit code 2"."""


class InputError(Exception):
    """Input the user can fix: a missing directory, a run without records, a bad option value."""
