"""Reading: run directories in, one table of records and what each run's files say out.

``load`` is the one reader of a run's records and manifest (Locust's ``--csv`` files through
``locust_csv`` when a run left no records); ``manifest_levels`` is what the manifests say of each
level; ``server_metrics`` and ``telemetry`` read the /metrics snapshots (server_metrics.jsonl).
Nothing here imports another room of the analysis but ``errors``.
"""
