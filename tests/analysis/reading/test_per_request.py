"""The records' server figures and categories as columns: read where present, NaN / None / ""
where not, a corrupt histogram dropped, the server's times in simulated time like the client's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.reading import per_request
from analysis.reading.load import load
from analysis.reading.record_fields import floats
from tests.analysis_synthetic import make_record, write_run


def test_a_batch_without_server_figures_reads_as_missing():
    columns = per_request.columns([{"ttft": 0.1}, {}], floats)
    assert np.isnan(columns["server_ttft"]).all()
    assert columns["spec_histogram"].tolist() == [None, None]
    assert columns["category"].tolist() == ["", ""]


def test_histograms_and_categories_are_kept_a_corrupt_one_dropped():
    rows = [
        {"spec_histogram": [1, 0, 3], "category": "code", "acceptance_length": 2.5},
        {"spec_histogram": [1, "x"], "category": 7},
        {"spec_histogram": "1,2"},
    ]
    columns = per_request.columns(rows, floats)
    assert columns["spec_histogram"].tolist() == [[1, 0, 3], None, None]
    assert columns["category"].tolist() == ["code", "", ""]
    assert columns["acceptance_length"][0] == 2.5 and math.isnan(columns["acceptance_length"][1])


def test_the_servers_times_are_in_simulated_time_its_counts_are_not(tmp_path):
    record = make_record(
        1,
        0,
        ttft=0.01,
        itl=0.001,
        tps=500,
        latency=0.1,
        start_time=100.0,
        server_queue=0.002,
        server_ttft=0.004,
        server_tps=600.0,
        acceptance_length=3.0,
        spec_steps=5,
    )
    records = load([write_run(tmp_path, "sim", [record], time_scale=10.0)]).records
    row = records.iloc[0]
    assert (row["server_queue"], row["server_ttft"]) == (pytest.approx(0.02), pytest.approx(0.04))
    assert row["server_tps"] == pytest.approx(60.0)
    assert (row["acceptance_length"], row["spec_steps"]) == (3.0, 5.0)
