"""The report's HTML pages opened from file:// in headless Chromium, as a reader opens them: no
console error, nothing fetched from outside the report folder (there is no internet in CI, nor
on many a lab machine), every chart the page declares drawn with its traces, and every link of
the index page leading to a file of the report.

The report is of three real runs on a simulator on 127.0.0.1, a few seconds each and side by
side: an agent ladder (closed loop, sliced: the per-label, slice, context and comparison charts),
a conversation (its turns' context chart) and an open-loop rate sweep (its achieved-vs-offered
chart), with injected HTTP 500s so that the timelines draw failed requests too. Every HTML page
the report writes is opened, and the tables-only report's index; one browser tab visits them all
in turn, as a fresh tab per file would spend seconds compiling plotly.js each time. A request
for anything but a file is aborted.
"""

from __future__ import annotations

import contextlib
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from analysis.cli import main
from tests.browser import NEEDS_BROWSER, chromium
from tests.conftest import run_locust
from tests.servers import running_sim

pytestmark = [pytest.mark.e2e, NEEDS_BROWSER]

SIM = ("--profile", "fixed", "--fixed-ttft-ms", "20", "--fixed-itl-ms", "2")
FAULTS = ("--faults", "http_500=0.2", "--fault-seed", "3")
RUNS = {
    "agent": [
        "--workload", "agent", "--tool-turns", "2", "--ladder", "1,2", "--requests-per-user",
        "3", "--max-tokens", "16", "--slice-duration", "0.2",
    ],
    "conversation": [
        "--workload", "conversation", "--turns", "2", "--ladder", "1", "--requests-per-user",
        "2", "--max-tokens", "16",
    ],
    "open": [
        "--arrival-rate", "10,20", "--arrival-users", "4", "--arrival-duration", "1",
        "--max-tokens", "16",
    ],
}  # fmt: skip
PER_LABEL = ["ttft", "itl", "tps", "latency", "throughput"]
COMPARISON = ["ttft_all", "tps_all", "total_tps", "saturation"]
KINDS = {  # a page of each kind the report writes, by its path under the reports' folder
    "report/index.html",
    "tables/index.html",  # the tables-only report (--no-charts)
    *(f"report/agent/{chart}.html" for chart in PER_LABEL),
    "report/agent/slices_tps.html",  # time slices (--slice-duration)
    "report/agent/slices_ttft.html",
    "report/conversation/ttft_vs_context.html",  # conversation turns (an agent run has none)
    "report/agent/ttfo_vs_context.html",  # agent steps
    *(f"report/comparison/{chart}.html" for chart in COMPARISON),
    "report/comparison/throughput_vs_tps.html",  # operating points
    "report/comparison/throughput_vs_ttft.html",
    "report/open/achieved_vs_offered.html",  # open loop
    "report/timelines/agent_01_c1.html",  # request timelines: closed loop and open loop
    "report/timelines/open_01_r10.html",
}
LOCAL_SCHEMES = ("data", "blob", "about")  # what a page may load besides the report's files
# every chart of a page drawn: plotly has laid it out into its SVG (gd._fullLayout)
DRAWN = """() => [...document.querySelectorAll('.plotly-graph-div')]
    .every(gd => gd._fullLayout && gd.querySelector('.main-svg'))"""
CHARTS = """() => [...document.querySelectorAll('.plotly-graph-div')].map(gd => ({
    drawn: Boolean(gd._fullLayout && gd.querySelector('.main-svg')),
    traces: (gd.data || []).length,
    marks: [...gd.querySelectorAll('.cartesianlayer .trace')]
        .map(t => t.querySelectorAll('path.point, .point > path, path.js-line').length),
}))"""
LINKS = "() => [...document.querySelectorAll('a[href], img[src]')].map(e => e.href || e.src)"
UNLOADED_IMAGES = (
    "() => [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
)


@dataclass
class Visit:
    """What one page did in the browser."""

    file: Path
    declared: int  # the charts its source draws: Plotly.newPlot calls
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    charts: list[dict] = field(default_factory=list)  # per chart div: drawn, traces, marks
    links: list[str] = field(default_factory=list)
    unloaded_images: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    with running_sim(*SIM, *FAULTS) as host, ThreadPoolExecutor(len(RUNS)) as pool:
        done = list(
            pool.map(
                lambda label: run_locust(
                    ["--headless", "-H", host, "--label", label, "--no-server-metrics"]
                    + RUNS[label],
                    tmp_path_factory.mktemp(label),
                ),
                RUNS,
            )
        )
    for run in done:  # locust exits 1 on the injected failures: a run directory is what counts
        assert run.run_dir is not None and run.records, run.output
    return [run.run_dir for run in done]


@pytest.fixture(scope="module")
def reports(runs, tmp_path_factory) -> dict[str, Path]:
    """The full report and the tables-only one (--no-charts), by name."""
    root = tmp_path_factory.mktemp("reports")
    found = {"report": root / "report", "tables": root / "tables"}
    assert main([*map(str, runs), "--out", str(found["report"]), "--quiet"]) == 0
    no_charts = [*map(str, runs), "--out", str(found["tables"]), "--no-charts", "--quiet"]
    assert main(no_charts) == 0
    return found


def local_file(url: str) -> Path | None:
    parsed = urlparse(url)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def inside(url: str, folder: Path) -> bool:
    path = local_file(url)
    return path is not None and path.resolve().is_relative_to(folder.resolve())


@pytest.fixture(scope="module")
def visits(reports) -> dict[str, Visit]:
    """Every HTML page of both reports by its path under the reports' folder, visited."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    root = reports["report"].parent
    found: dict[str, Visit] = {}
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        current: list[Visit] = []

        def console(message) -> None:
            if message.type == "error":
                current[-1].console_errors.append(message.text)

        page.on("console", console)
        page.on("pageerror", lambda error: current[-1].page_errors.append(str(error)))
        page.on("request", lambda request: current[-1].requests.append(request.url))
        page.on(
            "requestfailed",
            lambda request: current[-1].failed_requests.append(f"{request.url}: {request.failure}"),
        )
        # nothing leaves the machine, whatever a page asks for (each such request is a failure)
        page.route(re.compile(r"^(https?|wss?|ftp):"), lambda route: route.abort())
        for file in sorted(root.rglob("*.html")):
            text = file.read_text(encoding="utf-8")
            current.append(Visit(file, text.count("Plotly.newPlot(")))
            page.goto(file.as_uri())
            # a chart not drawn times out: the visit records what was, the tests say what is not
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_function(DRAWN, timeout=10_000)
            visit = current[-1]
            visit.charts = page.evaluate(CHARTS)
            visit.links = page.evaluate(LINKS)
            visit.unloaded_images = page.evaluate(UNLOADED_IMAGES)
            found[str(file.relative_to(root))] = visit
    return found


def chart_pages(visits: dict[str, Visit]) -> dict[str, Visit]:
    return {name: v for name, v in visits.items() if not name.endswith("index.html")}


def test_every_kind_of_html_page_of_the_report_is_opened(visits):
    assert KINDS - set(visits) == set()


def test_no_page_logs_a_console_error(visits):
    assert {name: v.console_errors for name, v in visits.items() if v.console_errors} == {}


def test_no_page_throws_an_uncaught_error(visits):
    assert {name: v.page_errors for name, v in visits.items() if v.page_errors} == {}


def test_no_page_asks_for_anything_outside_the_report_folder(visits, reports):
    outside = {
        name: [
            url
            for url in v.requests
            if urlparse(url).scheme not in LOCAL_SCHEMES
            and not inside(url, reports[name.split("/")[0]])
        ]
        for name, v in visits.items()
    }
    assert {name: urls for name, urls in outside.items() if urls} == {}


def test_every_request_of_a_page_succeeds(visits):
    assert {name: v.failed_requests for name, v in visits.items() if v.failed_requests} == {}


def test_each_chart_page_draws_every_chart_it_declares(visits):
    pages = chart_pages(visits)
    declared = {name: v.declared for name, v in pages.items()}
    drawn = {name: sum(chart["drawn"] for chart in v.charts) for name, v in pages.items()}
    assert min(declared.values()) >= 1
    assert drawn == declared


def test_each_chart_draws_every_trace_it_declares(visits):
    traces = {
        name: [(chart["traces"], len(chart["marks"])) for chart in v.charts]
        for name, v in chart_pages(visits).items()
    }
    assert {name: t for name, t in traces.items() if any(d != n for d, n in t)} == {}


def test_every_drawn_trace_shows_marks(visits):
    empty = {
        name: [chart["marks"] for chart in v.charts if 0 in chart["marks"]]
        for name, v in chart_pages(visits).items()
    }
    assert {name: charts for name, charts in empty.items() if charts} == {}


def test_a_timeline_draws_failed_requests_beside_the_others(visits):
    traces = [len(v.charts[0]["marks"]) for name, v in visits.items() if "/timelines/" in name]
    assert 3 in traces  # waiting, decoding and failed bars: the injected HTTP 500s are drawn


def test_every_local_link_of_an_index_page_resolves_to_a_file(visits):
    for name in ("report/index.html", "tables/index.html"):
        links = visits[name].links
        assert links
        files = [local_file(url) for url in links]
        assert [url for url, path in zip(links, files, strict=True) if path is None] == []
        assert [str(path) for path in files if path is not None and not path.is_file()] == []


def test_every_thumbnail_of_the_index_page_loads(visits):
    assert visits["report/index.html"].unloaded_images == []


def test_the_index_page_links_every_html_page_of_the_report(visits, reports):
    linked = {local_file(url) for url in visits["report/index.html"].links}
    written = {v.file for name, v in visits.items() if name.startswith("report/")}
    assert written - {reports["report"] / "index.html"} - linked == set()
