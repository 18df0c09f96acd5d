"""Assemble the report: runs, per-level summary, the report's sections, SLO and server figures.

``build`` decides what the report says (pure: data in, a ``Report`` out); ``write`` hands it to
the writers in ``analysis.outputs``. Section numbers follow the quantization report so its
readers find each table where they expect it.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from analysis import percentiles, server_metrics, slo, tables, workloads
from analysis.charts import COMPARISON_FOLDER, comparison_charts, label_charts
from analysis.document import Block, Image, Report, Section
from analysis.endpoints import breakdown as endpoint_breakdown
from analysis.load import SOURCE_LOCUST, Dataset
from analysis.metrics import Settings, summarize
from analysis.outputs import charts_html, charts_png, csv, index_html, markdown
from analysis.tables import Table, slug

METHOD_TEXT = {
    percentiles.LINEAR: 'linear interpolation between order statistics (numpy method="linear")',
    percentiles.CORDATUS: "cordatus (reference tool): p50 = statistics.median, other percentiles "
    "nearest rank sorted[ceil(q·n) − 1]",
}


def _image(chart_folder: str, key: str, alt: str) -> Image:
    return Image(f"{chart_folder}/{key}.png", alt)


def _runs_section(dataset: Dataset, settings: Settings, summary: pd.DataFrame) -> Section:
    frame = pd.DataFrame(
        [
            {
                "Label": r.label,
                "Variant": r.variant,
                "TP": r.tp,
                "Nodes": r.nodes,
                "Status": f"**INCOMPLETE** ({r.status})" if r.incomplete else r.status,
                "Source": r.source,
                "Records": r.records,
                "Skipped lines": r.skipped_lines,
                "Time scale": f"{r.time_scale:g}",
                "Directory": r.path.name,
            }
            for r in dataset.runs
        ]
    )
    blocks: list[Block] = [Table("0_runs", "Runs", frame)]
    for run in dataset.runs:
        if run.incomplete:
            blocks.append(
                f'**INCOMPLETE run** `{run.path.name}`: status "{run.status}" — analysed '
                "with the records it has; its last level may be short."
            )
        blocks += [f"`{run.path.name}`: {note}" for note in run.notes]
    blocks += [f"Skipped: {text}" for text in dataset.skipped_runs]
    scales = sorted({r.time_scale for r in dataset.runs if r.time_scale != 1})
    if scales:
        blocks.append(
            "**Figures are in simulated time (time scale "
            + ", ".join(f"{s:g}" for s in scales)
            + ")**: the target ran faster than real time; durations were multiplied and rates "
            "divided by it."
        )
    if any(r.source == SOURCE_LOCUST for r in dataset.runs):
        blocks.append(
            "**Locust CSV input**: no raw records; its percentiles are Locust's bucketed "
            "approximations (nearest rank of times rounded to 1/10/100/1000 ms buckets). "
            "Means and counts are exact; TPS is not available from Locust's CSV."
        )
    warmup, failures = int(summary["warmup_excluded"].sum()), int(summary["failures"].sum())
    blocks.append(
        f"Percentiles: **{METHOD_TEXT[settings.percentile_method]}** (column `percentile_method`). "
        f"Every number comes from measured requests: {warmup} warm-up request(s) excluded; "
        f"{failures} failed request(s) counted per level and not used for metrics."
    )
    if settings.itl_null_as_zero:
        blocks.append(
            "`--itl-null-as-zero`: single-token responses enter ITL as 0 (as the reference tool "
            "does), which lowers ITL means."
        )
    return Section("Runs and method", blocks)


def _per_label_sections(summary: pd.DataFrame) -> list[Section]:
    sections = [
        Section(
            "2. Performance per variant",
            [
                "Means per concurrency level, then p50/p90 with their bootstrap 90 % confidence "
                "interval in brackets. † marks a p90 from fewer than "
                f"{percentiles.FEW_SAMPLES_FOR_P90} samples (it rests on the top one or two values). "
                "Per-stream RPS = 1 / mean latency (flat in C by construction; see section 5.5 for "
                "system-wide RPS)."
            ],
        )
    ]
    for i, label in enumerate(tables.labels_of(summary), start=1):
        blocks: list[Block] = [
            tables.label_means(summary, label),
            tables.label_percentiles(summary, label),
        ]
        blocks += [
            _image(slug(label), key, f"{label} {key}")
            for key in ("ttft", "itl", "tps", "latency", "throughput")
        ]
        sections.append(Section(f"2.{i} {label}", blocks, level=3))
    return sections


def _comparison_sections(summary: pd.DataFrame) -> list[Section]:
    plain = Section(
        "3.1 Without MTP: pairwise differences",
        [
            "Difference = (second − first) / first, per concurrency, for every pair of non-MTP "
            "labels at the same TP size."
        ],
        level=3,
    )
    mtp = Section("3.2 With MTP: side by side at lowest and highest concurrency", level=3)
    for group in tables.tp_groups(summary):
        base = [label for label in group if not tables.is_mtp(_variant(summary, label))]
        for first, second in itertools.combinations(base, 2):
            for column, heading in (
                ("tps_mean", "TPS (tok/s)"),
                ("itl_ms_mean", "ITL (ms)"),
                ("latency_s_mean", "Latency (s)"),
            ):
                stem = column.split("_")[0]
                plain.blocks.append(
                    tables.differences(
                        summary,
                        first,
                        second,
                        [(column, heading)],
                        f"3_1_{slug(first)}_vs_{slug(second)}_{stem}",
                        f"{heading}: {first} vs {second}",
                        show_values=True,
                    )
                )
        with_mtp = [label for label in group if tables.is_mtp(_variant(summary, label))]
        if len(with_mtp) >= 2:
            common = sorted(
                set.intersection(
                    *(set(summary.loc[summary["label"] == m, "concurrency"]) for m in with_mtp)
                )
            )
            for c in dict.fromkeys((common[0], common[-1])) if common else ():
                mtp.blocks.append(
                    tables.side_by_side(
                        summary, with_mtp, c, f"3_2_mtp_c{c}", f"MTP variants at C={c}"
                    )
                )
    head = Section(
        "3. Quantization comparison", [_image(COMPARISON_FOLDER, "ttft_all", "TTFT, all variants")]
    )
    if len(plain.blocks) == 1:
        plain.blocks = ["Fewer than two non-MTP labels at one TP size: no pairwise table."]
    if not mtp.blocks:
        mtp.blocks = ["Fewer than two MTP labels at one TP size: no side-by-side table."]
    return [head, plain, mtp]


def _variant(summary: pd.DataFrame, label: str) -> str:
    return str(summary.loc[summary["label"] == label, "variant"].iloc[0])


def _mtp_sections(summary: pd.DataFrame) -> list[Section]:
    twins = tables.mtp_twins(summary)
    head = Section("4. MTP effect", [_image(COMPARISON_FOLDER, "tps_all", "TPS, all variants")])
    if not twins:
        head.blocks.append(
            'No variant ran together with its "-MTP" twin (e.g. FP8 and FP8-MTP): no MTP tables.'
        )
        return [head]
    sections = [head]
    for i, (base, mtp) in enumerate(twins, start=1):
        levels = sorted(
            set(summary.loc[summary["label"] == base, "concurrency"])
            & set(summary.loc[summary["label"] == mtp, "concurrency"])
        )
        if not levels:
            continue
        sections.append(
            Section(
                f"4.{i} {base} → {mtp}",
                [
                    tables.side_by_side(
                        summary,
                        [base, mtp],
                        levels[0],
                        f"4_{slug(base)}_mtp_c{levels[0]}",
                        f"{base} vs {mtp} at C={levels[0]}",
                    ),
                    tables.differences(
                        summary,
                        base,
                        mtp,
                        [
                            ("tps_mean", "TPS change"),
                            ("itl_ms_mean", "ITL change"),
                            ("latency_s_mean", "Latency change"),
                        ],
                        f"4_{slug(base)}_mtp_by_level",
                        f"{base} → {mtp}: change per concurrency",
                        show_values=False,
                    ),
                ],
                level=3,
            )
        )
    sections.append(
        Section(
            f"4.{len(twins) + 1} MTP speed-up ratio vs concurrency",
            [tables.mtp_ratio(summary, twins)],
            level=3,
        )
    )
    return sections


def _concurrency_sections(summary: pd.DataFrame) -> list[Section]:
    grids = [
        ("5.1 TPS drop", "Mean TPS per stream (tok/s)", "tps_mean", "5_1_tps"),
        ("5.2 ITL increase", "Mean ITL (ms)", "itl_ms_mean", "5_2_itl"),
        ("5.3 TTFT increase", "Mean TTFT (ms)", "ttft_ms_mean", "5_3_ttft"),
        ("5.4 Latency increase", "Mean latency (s)", "latency_s_mean", "5_4_latency"),
    ]
    sections = [
        Section(
            "5. Concurrency effect",
            [
                "Mean per level; the last column is the change from the lowest to the highest "
                "concurrency."
            ],
        )
    ]
    for heading, title, column, key in grids:
        sections.append(
            Section(
                heading,
                [
                    tables.across_levels(
                        summary, column, key, title, "{:.2f}", change_format="{:+.0f}%"
                    )
                ],
                level=3,
            )
        )
    sections.append(
        Section(
            "5.5 Throughput: per-stream vs system-wide RPS",
            [
                'Per-stream RPS (the reference tool\'s "Throughput") = n / Σ latency = 1 / '
                "mean latency: the completion rate of one stream, flat in C by construction. "
                "System-wide RPS = C / mean latency (the report's section 5.5). Measured RPS = "
                "completed requests / level wall time, where wall time runs from the first send "
                "to the last completion of the level (tail included).",
                tables.across_levels(
                    summary, "throughput_rps", "5_5_per_stream_rps", "Per-stream RPS", "{:.2f}"
                ),
                tables.across_levels(
                    summary,
                    "system_rps",
                    "5_5_system_rps",
                    "System-wide RPS (C / mean latency)",
                    "{:.2f}",
                    change_format="{:+.0f}%",
                ),
                tables.across_levels(
                    summary,
                    "measured_rps",
                    "5_5_measured_rps",
                    "Measured RPS (completed / wall time)",
                    "{:.2f}",
                ),
            ],
            level=3,
        )
    )
    return sections


def _scaling_sections(summary: pd.DataFrame) -> list[Section]:
    ideal = [
        tables.ideal_vs_actual(summary, label)
        for label in tables.labels_of(summary)
        if summary.loc[summary["label"] == label, "total_tps"].notna().any()
    ]
    return [
        Section("6. Scalability", []),
        Section(
            "6.1 Total tokens/s: TPS × concurrency, ideal vs actual",
            [
                "Total tok/s = mean TPS × C (the report's definition); measured total tok/s = "
                "Σ output tokens / level wall time. Ideal = lowest-C total × C / lowest C; "
                "efficiency = actual / ideal.",
                tables.across_levels(
                    summary,
                    "total_tps",
                    "6_1_total_tps",
                    "TPS × concurrency (tok/s)",
                    "{:.1f}",
                    rows="concurrency",
                ),
                tables.across_levels(
                    summary,
                    "measured_total_tps",
                    "6_1_measured_total_tps",
                    "Measured total tok/s",
                    "{:.1f}",
                    rows="concurrency",
                ),
                *ideal,
                _image(COMPARISON_FOLDER, "total_tps", "Total tokens/s"),
            ],
            level=3,
        ),
        Section(
            "6.2 Saturation index",
            [
                "Saturation index = mean TPS at C / mean TPS at the label's lowest C × 100 "
                "(identical to the efficiency above).",
                tables.across_levels(
                    summary,
                    "saturation_pct",
                    "6_2_saturation",
                    "Saturation index",
                    "{:.0f}%",
                    rows="concurrency",
                ),
                _image(COMPARISON_FOLDER, "saturation", "Saturation index"),
            ],
            level=3,
        ),
    ]


def _tail_section(summary: pd.DataFrame) -> Section:
    ratios = tables.with_tail_ratios(summary)
    return Section(
        "7. Tail behaviour: p90 / p50",
        [
            "Ratio of p90 to p50 per level (1.00 = no tail). Levels with n < "
            f"{percentiles.FEW_SAMPLES_FOR_P90} have a p90 that rests on one or two values; see the "
            "confidence intervals in section 2.",
            *(
                tables.across_levels(
                    ratios,
                    f"{stem}_p90_over_p50",
                    f"7_{stem.split('_')[0]}_p90_p50",
                    f"{title} p90/p50",
                    "{:.2f}",
                )
                for stem, title in (("itl_ms", "ITL"), ("ttft_ms", "TTFT"), ("tps", "TPS"))
            ),
        ],
    )


def _tp_section(summary: pd.DataFrame) -> Section:
    groups = tables.tp_variants(summary)
    if not groups:
        return Section(
            "8. TP scaling", ["No variant ran at more than one TP size: no TP1/TP2/TP4 comparison."]
        )
    return Section(
        "8. TP scaling",
        [
            "Per concurrency: per-stream TPS and its speed-up over the smallest TP size, total "
            "tok/s, total tok/s per node, and TP efficiency = total tok/s(TPn) / ((n / n₀) × total "
            "tok/s(TPn₀)) × 100 with n₀ the smallest TP size: 100 % means n times the GPUs give n "
            "times the tokens. Nodes come from the manifest (the TP size when absent).",
            *(tables.tp_scaling(summary, variant, labels) for variant, labels in groups.items()),
        ],
    )


def _slo_section(
    dataset: Dataset,
    summary: pd.DataFrame,
    settings: Settings,
    bounds: list[slo.Bound] | None,
    think_time_s: float,
) -> Section:
    if not bounds:
        return Section("9. Service levels", ["No --slo given."])
    section = Section(
        "9. Service levels and capacity",
        [
            "SLO: "
            + ", ".join(f"`{b.text}`" for b in bounds)
            + f" (percentiles: {settings.percentile_method}). "
            "A level meets the SLO when every bound holds for its statistic. Goodput: the share of "
            "measured requests (failures included) whose own values meet every threshold, and "
            "their rate per second of wall time.",
        ],
    )
    levels = (
        slo.evaluate(dataset.records, summary, bounds, settings)
        if not dataset.records.empty
        else pd.DataFrame()
    )
    for label in tables.labels_of(summary):
        rows = levels[levels["label"] == label] if not levels.empty else levels
        if rows.empty:
            section.blocks.append(
                f"**{label}**: no raw records (Locust CSV input): SLO not evaluated."
            )
            continue
        frame = rows[
            [
                "concurrency",
                "n",
                *(b.text for b in bounds),
                "meets_slo",
                "goodput_pct",
                "goodput_rps",
            ]
        ].rename(
            columns={
                "concurrency": "Concurrency",
                "meets_slo": "Meets SLO",
                "goodput_pct": "Goodput",
                "goodput_rps": "Goodput (req/s)",
            }
        )
        frame["Meets SLO"] = frame["Meets SLO"].map({True: "yes", False: "no"})
        section.blocks.append(
            Table(
                f"9_slo_{slug(label)}",
                f"{label}: SLO per level",
                frame,
                {
                    **{b.text: "{:.2f}" for b in bounds},
                    "Goodput": "{:.1f}%",
                    "Goodput (req/s)": "{:.3f}",
                },
            )
        )
        cap = slo.capacity(rows, bounds, think_time_s)
        if cap.concurrency is None:
            section.blocks.append(f"**{label}**: {cap.how}; no capacity figure.")
        else:
            c, r, z = cap.concurrency, cap.latency_s, cap.think_time_s
            interpolated = " (interpolated)" if "interpolated" in cap.how else ""
            section.blocks.append(
                f"**{label}**: highest concurrency meeting the SLO **C = {c:.1f}** "
                f"({cap.how}{cap.note}). Interactive users by Little's law, N = X · (R + Z) with "
                f"X = C / R: R = {r:.2f} s mean latency{interpolated}, Z = {z:g} s think time → "
                f"N = {c:.1f} / {r:.2f} × ({r:.2f} + {z:g}) = **{cap.users:.0f} users**."
            )
    return section


def _server_section(dataset: Dataset, summary: pd.DataFrame, frame: pd.DataFrame) -> Section:
    if frame.empty:
        return Section("10. Server-side metrics", ["No server metrics (no server_metrics.jsonl)."])
    formats = {c: "{:.2f}" for c in frame.columns if c not in ("label", "concurrency")}
    formats.update(
        {c: "{:.1%}" for c in frame.columns if c.endswith("_rate") or c.startswith("accept_")}
    )
    formats.update(
        {
            "kv_cache_usage_pct": "{:.1%}",
            "kv_cache_usage_pct_max": "{:.1%}",
            "gauge_samples": "{:.0f}",
            "drafts": "{:.0f}",
        }
    )
    blocks: list[Block] = [
        "From vLLM /metrics snapshots at level boundaries: counter deltas per level "
        "(acceptance rate = accepted / draft tokens; tokens per pass = 1 + accepted / drafts; "
        "accept_posN = accepted at position N / drafts; server TTFT/ITL = histogram Δsum / "
        "Δcount; generation tok/s = Δ generation tokens / level seconds). Gauges (running, "
        "waiting, KV-cache usage) are means (and maxima) of the samples taken during the level "
        "(`gauge_samples` of them; `--metrics-interval`), else the values at the end of the "
        "level. Deltas run from the snapshot taken when the level's warm-up came back (ladder "
        "mode), so they cover the measured requests only; otherwise from the level's start.",
        Table("10_server_metrics", "Server figures per level", frame, formats),
    ]
    spec = frame[frame["drafts"].fillna(0) > 0] if "drafts" in frame else frame.iloc[0:0]
    if not spec.empty:
        positions = [c for c in spec.columns if c.startswith("accept_pos")]
        table = spec[
            ["label", "concurrency", "drafts", "acceptance_rate", "tokens_per_pass", *positions]
        ]
        blocks.append(
            Table(
                "10_speculative_decoding",
                "Speculative decoding per level",
                table,
                {
                    "drafts": "{:.0f}",
                    "acceptance_rate": "{:.1%}",
                    "tokens_per_pass": "{:.2f}",
                    **{c: "{:.3f}" for c in positions},
                },
                note="accept_posN = P(at least N+1 draft tokens accepted); non-increasing in N by "
                "construction. Mean tokens per pass, not the acceptance rate, predicts throughput.",
            )
        )
    client = summary.set_index(["label", "concurrency"])
    side = frame[["label", "concurrency"]].copy()
    keys = list(zip(side["label"], side["concurrency"], strict=False))

    def pick(column: str) -> list:
        return [
            client[column].get(k, float("nan")) if column in client else float("nan") for k in keys
        ]

    side["TTFT ms, client"] = pick("ttft_ms_mean")
    side["TTFT ms, server"] = frame["ttft_ms_mean"].to_numpy()
    side["ITL ms, client"] = pick("itl_ms_mean")
    side["Chunk ITL ms, client"] = pick("chunk_itl_ms_mean")
    side["ITL ms, server (per step)"] = frame["itl_ms_mean"].to_numpy()
    side["Output tok/s, client"] = pick("measured_total_tps")
    side["Generation tok/s, server"] = frame["gen_tok_s"].to_numpy()
    blocks.append(
        Table(
            "10_client_vs_server",
            "Client vs server, per level",
            side,
            {c: "{:.2f}" for c in side.columns if c not in ("label", "concurrency")},
            note="Server TTFT starts at the API server's arrival (tokenising and queueing included); "
            "server ITL is one observation per engine step, so with speculative decoding it "
            "matches the client's chunk ITL, not its per-token ITL. Client tok/s = Σ output "
            "tokens / level wall time (first send to last completion); the server's generation "
            "tok/s = Δ generation tokens / time between its two snapshots (a little longer).",
        )
    )
    return Section("10. Server-side metrics", blocks)


def _prefill_labels(dataset: Dataset) -> set[str]:
    """Labels of prefill probes: one-token requests, reported per prompt size in section 13."""
    return set(workloads.prefill_labels(dataset))


def _throughput_section(dataset: Dataset, summary: pd.DataFrame, server: pd.DataFrame) -> Section:
    return Section(
        "11. Aggregate vs per-stream throughput",
        [
            "Aggregate = Σ output tokens / level wall time (what the server delivered to all "
            "streams together: the number for a fleet of agents); per-stream = mean of the "
            "requests' output tokens / latency (what one user sees). They differ by about C.",
            *(
                workloads.aggregate_vs_per_stream(summary, server, label)
                for label in tables.labels_of(summary)
                if label not in _prefill_labels(dataset)
            ),
        ],
    )


def _agreement_section(dataset: Dataset, summary: pd.DataFrame) -> Section:
    blocks: list[Block] = [
        "Labels run more than once (several run directories with one label): each run's value "
        "per level and metric and their spread. Prefill probes: agreement per prompt size "
        "in section 13."
    ]
    found = [
        t
        for label in tables.labels_of(summary)
        if label not in _prefill_labels(dataset)
        and (t := workloads.agreement(dataset.records, label)) is not None
    ]
    blocks += found or ["No label was run more than once: no run-to-run comparison."]
    return Section("12. Run-to-run agreement", blocks)


def _prefill_section(dataset: Dataset) -> Section | None:
    found = [
        t
        for label in workloads.prefill_labels(dataset)
        if (t := workloads.prefill_table(dataset.records, label)) is not None
    ]
    if not found:
        return None
    return Section(
        "13. Prefill throughput",
        [
            "The prefill probe (`--workload prefill`): unique prompts (a nonce first, then seeded "
            "text starting at a random sentence) so the prefix cache cannot serve them; max_tokens=1 "
            "isolates prefill from decode; C=1. Sections 2–9 pool its sizes into one C=1 row.",
            *found,
        ],
    )


def _contrast_section(dataset: Dataset, summary: pd.DataFrame) -> Section | None:
    pairs, mixed = workloads.contrast_pairs(dataset)
    blocks: list[Block] = [
        f"**Label `{label}` pools runs with and without --identical-prompts**: give "
        "the contrast run its own --label."
        for label in mixed
    ]
    blocks += [workloads.contrast_table(summary, a, b) for a, b in pairs]
    if not blocks:
        return None
    return Section(
        "14. Distinct vs identical prompts",
        [
            "Pairs of labels with the same workload, variant, TP and model, one sending distinct "
            "cache-busted prompts and one --identical-prompts (every request the same prompt, which "
            "the prefix cache serves): the identical run overstates throughput by what caching saves.",
            *blocks,
        ],
    )


def _endpoint_section(dataset: Dataset, settings: Settings) -> Section:
    table = endpoint_breakdown(dataset.records, settings)
    if table is None:
        return Section(
            "15. Per-endpoint breakdown",
            ["Every label was served by one endpoint: no per-endpoint table."],
        )
    return Section(
        "15. Per-endpoint breakdown",
        [
            "For labels served by several endpoints (e.g. one replica per Spark, `--endpoints`): "
            "the measured requests each endpoint served, per concurrency. Users are dealt to "
            "endpoints in turn, so at C=1 only the first endpoint serves; compare endpoints "
            "within a level, not across levels.",
            table,
        ],
    )


def build(
    dataset: Dataset,
    settings: Settings,
    bounds: list[slo.Bound] | None = None,
    think_time_s: float = 10.0,
) -> Report:
    summary = summarize(dataset, settings)
    server = server_metrics.per_level(dataset.runs)
    scales = sorted({r.time_scale for r in dataset.runs if r.time_scale != 1})
    simulated = (
        " · simulated time (time scale " + ", ".join(f"{s:g}" for s in scales) + ")"
        if scales
        else ""
    )
    charts = [
        c
        for label in tables.labels_of(summary)
        for c in label_charts(summary, label, settings.percentile_method, simulated)
    ]
    charts += comparison_charts(summary, simulated)
    sections = [
        _runs_section(dataset, settings, summary),
        *_per_label_sections(summary),
        *_comparison_sections(summary),
        *_mtp_sections(summary),
        *_concurrency_sections(summary),
        *_scaling_sections(summary),
        _tail_section(summary),
        _tp_section(summary),
        _slo_section(dataset, summary, settings, bounds, think_time_s),
        _server_section(dataset, summary, server),
        _throughput_section(dataset, summary, server),
        _agreement_section(dataset, summary),
        *(
            section
            for section in (_prefill_section(dataset), _contrast_section(dataset, summary))
            if section is not None
        ),
        _endpoint_section(dataset, settings),
    ]
    title = "sparkload report: " + ", ".join(tables.labels_of(summary))
    return Report(title, summary, sections, charts)


def write(
    report: Report, out_dir: Path, charts: bool = True, progress=lambda message: None
) -> None:
    """Write every output format into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv.write(report, out_dir)
    progress(f"wrote summary.csv and {len(report.tables)} table CSVs")
    if charts:
        charts_html.write_library(out_dir)
        for chart in report.charts:
            folder = out_dir / chart.folder
            folder.mkdir(exist_ok=True)
            charts_png.render(chart, folder / f"{chart.key}.png")
            charts_html.render(chart, folder / f"{chart.key}.html", out_dir)
        progress(f"wrote {len(report.charts)} charts (PNG + HTML)")
    markdown.write(report, out_dir / "report.md", charts)
    index_html.write(report, out_dir, charts)
    progress(f"wrote report.md and index.html to {out_dir}")
