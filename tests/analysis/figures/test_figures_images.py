"""Images per level: images and their megabytes per second of the level's wall time, and TTFT
by a request's image count and size; a run without images keeps its summary's columns."""

from __future__ import annotations

import pytest

from analysis.figures import images
from analysis.figures.measured import measured_ok
from analysis.figures.metrics import Settings, summarize
from analysis.reading.load import load
from tests.analysis_synthetic import make_record, write_run

SETTINGS = Settings(bootstrap_resamples=0)


def record(i: int, ttft: float, **fields) -> dict:
    return make_record(
        1, 0, ttft=ttft, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i, **fields
    )


@pytest.fixture
def dataset(tmp_path):
    records = [
        record(0, 0.10, prompt_tokens=100),
        record(1, 0.20, prompt_tokens=164, images=1, image_bytes=1_000_000, image_size="224x224"),
        record(2, 0.40, prompt_tokens=356, images=1, image_bytes=1_000_000, image_size="448x448"),
        record(3, 0.60, prompt_tokens=612, images=2, image_bytes=3_000_000, image_size="448x448"),
    ]  # one second apart, a second each: the level's wall time is 4 s
    return load([write_run(tmp_path, "pictures", records)])


def test_images_per_second_are_the_levels_images_over_its_wall_time(dataset):
    level = summarize(dataset, SETTINGS).iloc[0]
    assert level["images_sum"] == 4
    assert level["images_per_s"] == pytest.approx(4 / 4)
    assert level["image_mb_per_s"] == pytest.approx(5 / 4)


def test_ttft_by_image_count_groups_requests_by_how_many_images_they_carried(dataset):
    table = images.ttft_by(measured_ok(dataset.records, SETTINGS), "linear", images.BY_COUNT)
    assert list(table["images"]) == [0, 1, 2]
    assert list(table["n"]) == [1, 2, 1]
    assert table["ttft_ms_mean"].tolist() == pytest.approx([100, 300, 600])
    assert table["prompt_tokens_mean"].tolist() == pytest.approx([100, 260, 612])


def test_ttft_by_size_orders_sizes_by_pixels_after_requests_without_images(dataset):
    table = images.ttft_by(measured_ok(dataset.records, SETTINGS), "linear", images.BY_SIZE)
    assert list(table["image_size"]) == ["none", "224x224", "448x448"]
    assert table["ttft_ms_p50"].tolist() == pytest.approx([100, 200, 500])


def test_a_run_without_images_has_no_image_columns(tmp_path):
    plain = load([write_run(tmp_path, "plain", [record(0, 0.1)])])
    assert "images_per_s" not in summarize(plain, SETTINGS)
