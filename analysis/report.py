"""Assemble the report: the ordered list of sections, their numbering, and the writers.

``SECTIONS`` is the one list that orders the report. A section with nothing to say for the
input is left out, and the sections present are numbered 1, 2, 3, ... in that order (a
subsection by its position within its section), so the report's numbers never skip and a
cross-reference ("§5") always names a section the report holds. Table keys, and so the CSV file
names, get the same number zero-padded (``05_1_tps.csv``) so that the files sort in report
order, and a key used twice gets a suffix, so every table has a file of its own. ``build`` is
pure (data in, a ``Report`` out); ``write`` hands it to the writers in ``analysis.outputs``.

Every section but those in ``ANY_LOOP`` is about closed-loop levels (by concurrency) and reads
only them; open-loop labels have their own section, so a report of open-loop runs alone leaves
the closed-loop sections out. The time slices, operating points and request timelines are
computed here once, for their sections, their charts and summary.json alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from analysis import allocator
from analysis.document import Report, Section
from analysis.figures import (
    accuracy,
    knee,
    operating_points,
    server_timing,
    slices,
    slo,
    sustain,
    tenants,
)
from analysis.figures import precision as precision_figures
from analysis.figures import scenario as scenario_figures
from analysis.figures.metrics import CLOSED, OPEN, Settings, loop_levels, summarize
from analysis.outputs import (
    chart_workers,
    charts_html,
    csv,
    index_html,
    markdown,
    summary_json,
    timeline_html,
)
from analysis.reading import server_metrics, telemetry
from analysis.reading.load import Dataset
from analysis.sections import (
    Context,
    agreement,
    bottleneck,
    comparisons,
    concurrency,
    conditions,
    contrast,
    embeddings,
    endpoints,
    mtp,
    open_loop,
    optimal_concurrency,
    per_label,
    predictability,
    prefill,
    runs,
    scaling,
    selection,
    server,
    service_levels,
    single_spark,
    tail,
    throughput,
    throughput_latency,
    time_slices,
    timelines,
    tp,
    traffic,
    variants,
)
from analysis.sections import accuracy as accuracy_section
from analysis.sections import agents as agents_section
from analysis.sections import categories as categories_section
from analysis.sections import conversations as conversations_section
from analysis.sections import fidelity as fidelity_section
from analysis.sections import images as images_section
from analysis.sections import knee as knee_section
from analysis.sections import models as models_section
from analysis.sections import precision as precision_section
from analysis.sections import scenario as scenario_section
from analysis.sections import server_timing as server_timing_section
from analysis.sections import structured as structured_section
from analysis.sections import sustain as sustain_section
from analysis.sections import tenants as tenants_section
from analysis.views import (
    agents,
    compaction,
    conversations,
    models,
    server_views,
    speed_accuracy,
    subagents,
    tables,
    timeline,
)
from analysis.views.charts import (
    Chart,
    comparison_charts,
    label_charts,
    open_loop_chart,
    slice_charts,
    throughput_latency_charts,
)
from analysis.views.tables import Table

SECTIONS = (
    conditions,
    variants,
    runs,
    per_label,
    comparisons,
    mtp,
    concurrency,
    scaling,
    tail,
    precision_section,
    tp,
    service_levels,
    sustain_section,
    server,
    server_timing_section,
    throughput,
    agreement,
    prefill,
    embeddings,
    contrast,
    endpoints,
    open_loop,
    single_spark,
    throughput_latency,
    time_slices,
    scenario_section,
    timelines,
    conversations_section,
    categories_section,
    models_section,
    tenants_section,
    traffic,
    accuracy_section,
    agents_section,
    structured_section,
    images_section,
    fidelity_section,
    # the verdicts (analysis.views.verdicts), last as in the quantization report
    bottleneck,
    predictability,
    optimal_concurrency,
    knee_section,
    selection,
)
# the sections with something to say of open-loop runs
ANY_LOOP = (
    conditions,
    variants,
    runs,
    sustain_section,
    open_loop,
    embeddings,
    throughput_latency,
    time_slices,
    timelines,
    traffic,
    accuracy_section,
    knee_section,
)


def section_numbers(modules: Sequence[ModuleType] = SECTIONS) -> dict[str, int]:
    """Section module name → its number in a report of these sections (by default all)."""
    return {module.__name__.rsplit(".", 1)[1]: i for i, module in enumerate(modules, start=1)}


def numbered(section: Section, number: list[int]) -> Section:
    """The section with its number in the title and in its tables' keys, subsections too."""
    prefix = "_".join([f"{number[0]:02d}", *map(str, number[1:])])
    title = f"{number[0]}. {section.title}" if len(number) == 1 else ""
    title = title or ".".join(map(str, number)) + f" {section.title}"
    return Section(
        title,
        [
            replace(b, key=f"{prefix}_{b.key}") if isinstance(b, Table) else b
            for b in section.blocks
        ],
        [numbered(sub, [*number, j]) for j, sub in enumerate(section.subsections, start=1)],
    )


def distinct_keys(sections: list[Section]) -> list[Section]:
    """The sections with every table key made unique (a repeat gets ``_2``, ``_3``, ...), so no
    table's CSV file overwrites another's and every link names its own table."""
    seen: dict[str, int] = {}

    def unique(section: Section) -> Section:
        blocks = []
        for block in section.blocks:
            if isinstance(block, Table):
                seen[block.key] = seen.get(block.key, 0) + 1
                if seen[block.key] > 1:
                    block = replace(block, key=f"{block.key}_{seen[block.key]}")
            blocks.append(block)
        return Section(section.title, blocks, [unique(sub) for sub in section.subsections])

    return [unique(section) for section in sections]


def built_sections(context: Context, closed_loop: bool) -> list[Section]:
    """The sections with something to say, numbered in order. Which sections are present is
    known only once they are built, so a section whose text refers to another by number is
    built again with the numbers of the sections present."""
    candidates = [module for module in SECTIONS if module in ANY_LOOP or closed_loop]
    numbers = section_numbers(candidates)
    first = {}
    for module in candidates:
        allocator.give_back()  # the temporaries before it, scattered through the heap
        own = replace(context, numbers=numbers, asked=set())
        first[module] = (module.build(own), own.asked)
    present = [module for module in candidates if first[module][0] is not None]
    final = replace(context, numbers=section_numbers(present))
    sections = []
    for number, module in enumerate(present, start=1):
        section, asked = first[module]
        section = module.build(final) if asked else section
        assert section is not None  # a section's presence does not depend on the numbers
        sections.append(numbered(section, [number]))
    return distinct_keys(sections)


def method(
    dataset: Dataset, settings: Settings, bounds: list[slo.Bound] | None, think_time_s: float
) -> dict[str, Any]:
    """How the figures were computed, for summary.json (the report's first section says it)."""
    return {
        "percentile_method": settings.percentile_method,
        "itl_null_as_zero": settings.itl_null_as_zero,
        "bootstrap_resamples": settings.bootstrap_resamples,
        "seed": settings.seed,
        "runs": [
            {
                "directory": str(run.path),
                "label": run.label,
                "source": run.source,
                "status": run.status,
                "time_scale": run.time_scale,
            }
            for run in dataset.runs
        ],
        "warmup_excluded": int((~dataset.records["measure"]).sum())
        if "measure" in dataset.records
        else 0,
        "slo": [bound.text for bound in bounds] if bounds else None,
        "think_time_s": think_time_s if bounds else None,
    }


def build(
    dataset: Dataset,
    settings: Settings,
    bounds: list[slo.Bound] | None = None,
    think_time_s: float = 10.0,
    slicing: slices.Slicing | None = None,
    charts_listed: Callable[[list[Chart]], None] | None = None,
) -> Report:
    """The report of ``dataset``. ``charts_listed`` is handed the charts as soon as they are
    known, before the sections are built: the command starts drawing them then."""
    summary = summarize(dataset, settings)
    allocator.give_back()  # each stage's temporaries, scattered through the heap (allocator.py)
    closed, open_levels = loop_levels(summary, CLOSED), loop_levels(summary, OPEN)
    nodes = telemetry.per_node(dataset)
    scales = sorted({r.time_scale for r in dataset.runs if r.time_scale != 1})
    simulated = (
        " · simulated time (time scale " + ", ".join(f"{s:g}" for s in scales) + ")"
        if scales
        else ""
    )
    slicing = slicing or slices.Slicing()
    sliced = slices.slice_runs(dataset, settings, slicing)
    points, capacities = operating_points.of_dataset(dataset, summary, settings, bounds)
    allocator.give_back()
    knees = knee.findings(summary, dataset)
    context = Context(
        dataset,
        settings,
        closed,
        server_metrics.per_level(dataset),
        bounds,
        think_time_s,
        {},  # numbered by built_sections
        open_levels,
        telemetry=nodes,
        slices=sliced,
        points=points,
        capacities=capacities,
        timelines=timeline.timelines(dataset, simulated),
        knees=knees,
    )
    charts = [
        c
        for label in tables.labels_of(closed)
        for c in label_charts(closed, label, settings.percentile_method, simulated)
    ]
    charts += comparison_charts(closed, simulated, knees) if not closed.empty else []
    charts += [
        open_loop_chart(open_levels, label, simulated) for label in tables.labels_of(open_levels)
    ]
    charts += slice_charts(sliced, simulated)
    charts += throughput_latency_charts(points, simulated) if not points.empty else []
    turns = conversations.turn_records(dataset.records)
    charts += [
        conversations.context_chart(
            conversations.by_context(turns, label, settings), label, simulated
        )
        for label in conversations.labels(turns)
    ]
    speed = speed_accuracy.chart(
        speed_accuracy.per_label(
            closed,
            accuracy.results(dataset),
            nodes,
            speed_accuracy.capacities(
                dataset.records, closed, settings, bounds, think_time_s, capacities
            ),
        ),
        simulated,
    )
    charts += [speed] if speed is not None else []
    steps = agents.step_records(dataset.records)
    mixed = models.model_records(dataset.records)
    charts += [
        agents.context_chart(agents.by_context(steps, label, settings), label, simulated)
        for label in conversations.labels(steps)
    ]
    compacted = compaction.compaction_records(steps)
    charts += [
        compaction.chart(compacted, label, simulated) for label in conversations.labels(compacted)
    ]
    charts += server_views.charts(
        server_timing.ttft_splits(dataset.records, settings),
        server_timing.drafting(dataset.records, settings),
        tables.labels_of(closed),
        simulated,
    )
    if charts_listed is not None:
        charts_listed(charts)
    sections = built_sections(context, not closed.empty)
    title = "sparkload report: " + ", ".join(tables.labels_of(summary))
    figures = {
        **operating_points.summary_entries(points, capacities),
        **slices.summary_entries(sliced, slicing),
        **accuracy.summary_entries(dataset),
        **server_timing.summary_entries(dataset.records, settings),
        **knee.summary_entries(knees),
        **scenario_figures.summary_entries(dataset),
        **sustain.summary_entries(dataset, settings),
    }
    return Report(
        title,
        summary,
        sections,
        charts,
        method(dataset, settings, bounds, think_time_s),
        json_tables={
            "energy": telemetry.per_level(nodes),
            **tenants.json_tables(dataset, settings),  # none without --tenants
            **precision_figures.json_tables(dataset),  # none without --target-precision
            "nodes": nodes,
            "conversation_turns": conversations.every_label(turns, settings, conversations.by_turn),
            "conversation_context": conversations.every_label(
                turns, settings, conversations.by_context
            ),
            **{
                f"agent_{name}": conversations.every_label(steps, settings, of)
                for name, of in (
                    ("steps", agents.by_step),
                    ("turns", agents.by_turn),
                    ("context", agents.by_context),
                )
                if not steps.empty  # a run without agent steps: summary.json as it was
            },
            **agent_tables(steps, settings),
            **({models.KEY: models.by_model(mixed, settings)} if not mixed.empty else {}),
        },
        timelines=context.timelines,
        figures=figures,
    )


def agent_tables(steps: pd.DataFrame, settings: Settings) -> dict[str, pd.DataFrame]:
    """summary.json's sub-agent and compaction tables, of the labels that had them (none: not
    there, summary.json as it was)."""
    spawned = subagents.subagent_records(steps)
    compacted = compaction.compaction_records(steps)
    tables = {
        "agent_subagents": conversations.every_label(
            spawned, settings, subagents.time_in_subagents
        ),
        "agent_subagent_requests": conversations.every_label(spawned, settings, subagents.by_agent),
        "agent_compaction": conversations.every_label(
            compacted, settings, lambda rows, label, _: compaction.around(rows, label)
        ),
    }
    return {name: frame for name, frame in tables.items() if not frame.empty}


def write(
    report: Report,
    out_dir: Path,
    charts: bool = True,
    progress=lambda message: None,
    workers: chart_workers.ChartWorkers | None = None,
) -> None:
    """Write every output format into ``out_dir``; the charts by ``workers`` when they were
    handed them already (``build``'s ``charts_listed``), else by workers started here."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv.write(report, out_dir)
    summary_json.write(report, out_dir)
    progress(f"wrote summary.csv, summary.json and {len(report.tables)} table CSVs")
    if charts:
        charts_html.write_library(out_dir)
        with workers or chart_workers.ChartWorkers() as drawing:
            if workers is None:
                drawing.write(report.charts, out_dir)
            for page in report.timelines:  # while the charts are drawn in other processes
                (out_dir / page.folder).mkdir(exist_ok=True)
                timeline_html.render(page, out_dir / page.folder / f"{page.key}.html", out_dir)
            drawing.finish()
        progress(f"wrote {len(report.charts)} charts (PNG + HTML)")
        progress(f"wrote {len(report.timelines)} request timelines (HTML)")
    markdown.write(report, out_dir / markdown.REPORT_FILE, charts)
    index_html.write(report, out_dir, charts)
    progress(f"wrote report.md and index.html to {out_dir}")
