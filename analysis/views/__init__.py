"""Views: the figures as the report shows them, tables (``Table``) and chart specs (``Chart``).

``tables`` and ``charts`` hold the types and the report's comparison tables and charts;
``timeline``, ``verdicts``, ``throughput_views``, ``endpoints``, ``conversations``, ``agents``
and ``speed_accuracy`` each build one view of the records or the summary. How a view is drawn or
written is ``outputs``'s; where it stands in the report is ``sections``'s.
"""
