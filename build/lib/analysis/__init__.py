"""sparkload's post-processor: results directories in; report tables, CSV, charts and report.md out.

Entry points: ``python -m analysis`` and ``analysis.cli.main`` (which ``sparkload report`` calls).
From sparkload it imports only ``sparkload.records``, the results-directory contract.
"""
