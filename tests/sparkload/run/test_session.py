"""What a session sends beside the body: a request's category as the header the built-in
simulator reads (a real server ignores it), only where the request has one."""

from sparkload.run.session import request_headers
from sparkload.workloads.contract import PlannedRequest

BASE = {"Authorization": "Bearer k"}


def test_a_request_with_a_category_names_it_in_a_header():
    planned = PlannedRequest("Write a sort.", 16, category="coding")
    assert request_headers(BASE, planned, None) == {**BASE, "X-Sparkload-Category": "coding"}


def test_a_request_without_one_sends_the_run_s_headers_as_they_are():
    assert request_headers(BASE, PlannedRequest("Q", 16), None) is BASE
