"""``sparkload compare``: a run held to a baseline run, figure by figure (docs/compare.md).

``compare`` pairs levels and judges each figure's change, ``change_intervals`` draws both runs'
figures for the change's interval, ``tolerances`` says what is compared and how much change each
tolerates, ``run_settings`` where two runs' settings differ; ``compare_cli`` is the command line
(``python -m analysis.compare.compare_cli``), ``compare_markdown`` and ``compare_json`` its files.
"""
