"""The wire: one request sent and its stream read, stamped and classified; the server under test
and whatever answered in front of it."""
