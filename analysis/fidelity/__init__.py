"""``sparkload fidelity``: a run's kept greedy replies held to a reference's, by prompt
(docs/fidelity.md).

``fidelity`` matches and counts them (pure), ``fidelity_cli`` is the command line
(``python -m analysis.fidelity.fidelity_cli``), ``fidelity_markdown`` and ``fidelity_json`` its
files; the report's section is ``analysis.sections.fidelity``.
"""
