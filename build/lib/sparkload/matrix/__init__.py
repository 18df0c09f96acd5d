"""The variant and cluster matrix: one ladder run per deployment, then one combined report.

A matrix file lists targets (a simulator profile, or the endpoint URLs of a real deployment, with
optional deploy and health commands) and the ladder and workload they all share. Each target
runs as the same ``locust -f locustfiles/chat.py --headless ...`` command a user would type, one
after another (the Sparks are shared), each into its own run directory; ``analysis`` then builds
the cross-variant and TP1/TP2/TP4 tables over all of them.

    spec.py      the matrix file -> validated dataclasses (one-line errors)
    process.py   a child process with streamed output, a timeout and a clean stop
    health.py    deploy command, then wait until the target answers
    runner.py    the targets in turn, the summary, the combined report
    __main__.py  ``sparkload matrix MATRIX.yaml``

``sparkload demo`` (``sparkload/demo.py``) is a generated matrix run by the same runner.
"""
