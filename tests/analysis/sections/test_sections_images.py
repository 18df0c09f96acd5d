"""The report's Images section: there with images per level and TTFT by image count and size
for a run whose requests carried images, left out of a plain run."""

from __future__ import annotations

from analysis import report
from analysis.figures.metrics import Settings
from analysis.reading.load import load
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def run_of(tmp_path, counts: list[int]):
    records = [
        make_record(
            1, 0, ttft=0.1 * (1 + n), itl=0.01, tps=50, latency=1.0, start_time=100.0 + i,
            images=n or None, image_bytes=n * 1000 or None, image_size="64x64" if n else None,
        )
        for i, n in enumerate(counts)
    ]  # fmt: skip
    return load([write_run(tmp_path, "pictures", records)])


def test_a_run_with_images_has_the_section_and_its_three_tables(tmp_path):
    built = report.build(run_of(tmp_path, [0, 1, 1, 2]), SETTINGS)
    (section,) = [s for s in built.sections if s.title.endswith(". Images")]
    tables = [b for b in section.blocks if hasattr(b, "frame")]
    assert [t.title for t in tables] == [
        "pictures: images per level",
        "pictures: TTFT by images a request",
        "pictures: TTFT by image size",
    ]
    assert tables[0].frame.iloc[0]["images"] == 4
    assert list(tables[1].frame["images a request"]) == [0, 1, 2]
    assert list(tables[2].frame["image size"]) == ["none", "64x64"]


def test_a_plain_run_has_no_images_section(tmp_path):
    built = report.build(run_of(tmp_path, [0, 0]), SETTINGS)
    assert not any(s.title.endswith(". Images") for s in built.sections)
