"""Figures: the numbers per level (and per label) that every table, check and comparison reads.

``metrics`` defines every per-level metric (``percentiles`` its quantiles and intervals,
``replies`` and ``structured`` what a reply's end and format say); ``slo`` and ``probe`` judge
levels against bounds; ``slices``, ``operating_points``, ``drafting`` and ``accuracy`` derive
more from the same records. Pure numbers: no table or chart is built here (that is ``views``).
"""
