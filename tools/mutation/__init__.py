"""Mutation testing of the measurement core with mutmut: ``python -m tools.mutation.run``."""
