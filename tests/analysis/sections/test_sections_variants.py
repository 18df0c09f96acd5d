"""The report's Tested variants: a row per label with its quantization, drafting and depth, TP
size and nodes, from what the run recorded, else from the names it gave."""

from __future__ import annotations

from analysis import report
from analysis.figures.metrics import Settings
from analysis.outputs import markdown
from analysis.reading.load import load
from tests.analysis_synthetic import closed_loop_level, markdown_table, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def variants(root, *runs: tuple[str, dict]) -> dict[str, dict[str, str]]:
    records = closed_loop_level(1, 0, 1_700_000_000.0, ttft=0.1, itl=0.01, tps=50, latency=1)
    written = [write_run(root, label, records, manifest_fields=fields) for label, fields in runs]
    text = markdown.render(report.build(load(written), SETTINGS), with_images=False)
    header, *rows = markdown_table(text, "Variants")
    return {row[0]: dict(zip(header, row, strict=True)) for row in rows}


def test_the_simulators_profile_and_speculation_name_format_method_and_depth(tmp_path):
    (row,) = variants(
        tmp_path,
        (
            "a",
            {"variant": "awq-mtp", "tp": 2, "simulator": {"profile": "awq-mtp", "spec": "mtp:3"}},
        ),
    ).values()
    assert (row["Quantization"], row["Drafting"], row["Draft depth"], row["TP"]) == (
        "AWQ (activation-aware 4-bit weights)",
        "MTP",
        "3",
        "2",
    )


def test_the_users_metadata_wins_over_the_names(tmp_path):
    metadata = {"quantization": "int4", "spec": "dspark:7", "size": "17 GB"}
    (row,) = variants(tmp_path, ("fp8-ish", {"variant": "fp8-ish", "metadata": metadata})).values()
    assert (row["Quantization"], row["Drafting"], row["Draft depth"], row["Size"]) == (
        "INT4 (4-bit integer weights)",
        "DSpark",
        "7",
        "17 GB",
    )


def test_without_a_record_the_variant_name_says_mtp_of_unknown_depth_or_none(tmp_path):
    rows = variants(tmp_path, ("nvfp4-mtp", {}), ("nvfp4", {}), ("mystery", {}))
    assert [(r["Quantization"], r["Drafting"], r["Draft depth"]) for r in rows.values()] == [
        ("NVFP4 (NVIDIA 4-bit floating point)", "MTP", "—"),
        ("NVFP4 (NVIDIA 4-bit floating point)", "none", "—"),
        ("—", "none", "—"),
    ]
