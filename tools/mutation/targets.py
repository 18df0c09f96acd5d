"""The measurement core's modules and the fast, in-process tests that cover each one.

mutmut runs each mutant only against the listed tests that executed the mutated function (it
records which test calls what in a first, clean run), so a test file here costs time only for
the mutants it reaches. Tests that start processes (Locust, the simulator) are left out: a
child process does not run the mutant, and its start-up would dominate the run. Work done in a
session- or module-scoped fixture (the report of tests/analysis/conftest.py) is credited to the
first test that builds it, so the tests that only read it never run against a mutant of the
code behind it: the modules' own tests call that code themselves.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """One module to mutate and the test files that cover it."""

    name: str  # short, for the command line and the work directory
    source: str  # the module's path from the repository root
    tests: tuple[str, ...]


_SCRIPTED_STREAMS = (  # the client against scripted servers in the test process (tests/servers)
    "tests/sparkload/transport/test_client_monotonic.py",
    "tests/sparkload/transport/test_client_keepalive.py",
    "tests/sparkload/transport/test_sse_accept_encoding.py",
    "tests/sparkload/test_body.py",
    "tests/sparkload/transport/test_identity.py",
)
_REPORT = (  # the analysis over synthetic run directories (no chart rendering)
    "tests/analysis/reading/test_load.py",
    "tests/analysis/figures/test_metrics_open_loop.py",
    "tests/analysis/test_sections.py",
    "tests/analysis/figures/test_slo_check.py",
    "tests/analysis/figures/test_slo.py",
    "tests/analysis/views/test_tables.py",
    "tests/analysis/test_report_path_and_cache.py",
    "tests/analysis/test_report_reproduction.py",
)

TARGETS = (
    Target(
        "sse",
        "sparkload/transport/sse.py",
        (
            "tests/sparkload/transport/test_sse.py",
            "tests/sparkload/transport/test_sse_reads.py",
            *_SCRIPTED_STREAMS,
        ),
    ),
    Target(
        "tally",
        "sparkload/transport/tally.py",
        (
            "tests/sparkload/apis/test_chat_stream.py",
            "tests/sparkload/apis/test_chat_reporting.py",
            "tests/sparkload/apis/test_responses_stream.py",
            *_SCRIPTED_STREAMS,
        ),
    ),
    Target(
        "chat",
        "sparkload/apis/chat.py",
        (
            "tests/sparkload/apis/test_chat_stream.py",
            "tests/sparkload/apis/test_chat_chunk_shapes.py",
            "tests/sparkload/apis/test_chat_tool_calls.py",
            *_SCRIPTED_STREAMS,
        ),
    ),
    Target(
        "records",
        "sparkload/records/requests.py",
        (
            "tests/sparkload/records/test_requests.py",
            "tests/sparkload/records/test_requests_derived_metrics.py",
            "tests/sparkload/records/test_manifest.py",
            "tests/analysis/reading/test_load.py",
            *_SCRIPTED_STREAMS,
        ),
    ),
    Target(
        "percentiles",
        "analysis/figures/percentiles.py",
        (
            "tests/analysis/figures/test_percentiles.py",
            "tests/analysis/figures/test_percentiles_positions.py",
            "tests/analysis/figures/test_percentiles_bootstrap.py",
            "tests/analysis/test_report_reproduction.py",
        ),
    ),
    Target(
        "metrics",
        "analysis/figures/metrics.py",
        (
            "tests/analysis/figures/test_metrics_level_summary.py",
            "tests/analysis/figures/test_metrics_level_rates.py",
            "tests/analysis/reading/test_locust_csv.py",
            "tests/analysis/figures/test_percentiles.py",
            "tests/analysis/test_report_saturation.py",  # saturation_stops: a sweep's stop
            "tests/analysis/figures/test_metrics_length_stats.py",
            "tests/analysis/sections/test_traffic.py",  # arrival CV, expected cache share
            *_REPORT,
        ),
    ),
    # The two modules being reworked on main: measured last, their tests kept in their own files.
    Target(
        "streamshape",
        "sparkload/streamcheck.py",
        ("tests/sparkload/test_streamcheck.py", "tests/sparkload/test_streamcheck_edges.py"),
    ),
    Target(
        "client",
        "sparkload/transport/client.py",
        (
            "tests/sparkload/transport/test_client_requests.py",
            "tests/sparkload/transport/test_client_measure.py",
            "tests/sparkload/transport/test_client_tls.py",
            "tests/sparkload/transport/test_client_time_base.py",
            *_SCRIPTED_STREAMS,
            "tests/sparkload/test_streamcheck.py",
            "tests/sparkload/inputs/test_datasets.py",
        ),
    ),
)
TARGET_BY_NAME = {target.name: target for target in TARGETS}
