"""What a run is, without Locust: its context, the target and prompt set-up, the manifest, the
results directory, the master's collector, a user's session and the child processes (the
simulator, the analysis)."""
