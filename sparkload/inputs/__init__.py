"""The user's input files: prompt sets, datasets and traces, read and checked."""
