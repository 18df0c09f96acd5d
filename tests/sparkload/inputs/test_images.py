"""Images as content parts: synthetic ones seeded, sized and made once; a dataset's resolved
(URLs as they are, files read into data URLs); what a record counts of a request's images."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from sparkload.errors import ConfigError
from sparkload.inputs.images import (
    POOL,
    SyntheticImages,
    image_stats,
    render,
    resolved_content,
    with_parts,
)


def decoded(url: str) -> Image.Image:
    head, _, data = url.partition(",")
    assert head.endswith(";base64")
    return Image.open(io.BytesIO(base64.b64decode(data)))


def test_a_synthetic_image_is_the_same_bytes_for_the_same_seed_size_and_index():
    assert render(64, 32, "png", 7, 3) == render(64, 32, "png", 7, 3)
    assert render(64, 32, "png", 7, 3) != render(64, 32, "png", 8, 3)
    assert render(64, 32, "png", 7, 3) != render(64, 32, "png", 7, 4)


@pytest.mark.parametrize(("fmt", "kind"), [("png", "PNG"), ("jpeg", "JPEG")])
def test_a_synthetic_image_has_its_size_and_format(fmt, kind):
    picture = Image.open(io.BytesIO(render(96, 48, fmt, 0, 0)))
    assert (picture.format, picture.size) == (kind, (96, 48))


def test_noise_does_not_compress_into_a_trivially_small_png():
    assert len(render(128, 128, "png", 0, 0)) > 128 * 128 * 3


def test_each_request_takes_n_images_of_the_size_its_prompt_index_takes_in_turn():
    images = SyntheticImages(2, ((32, 32), (64, 48)), "png", 0)
    for index, size in ((0, (32, 32)), (1, (64, 48)), (2, (32, 32))):
        parts = images.parts(index)
        assert [part["type"] for part in parts] == ["image_url", "image_url"]
        assert all(decoded(p["image_url"]["url"]).size == size for p in parts)


def test_a_requests_images_differ_and_come_back_for_its_prompt_index():
    images = SyntheticImages(2, ((16, 16),), "jpeg", 0)
    first, second = images.parts(0), images.parts(1)
    urls = [p["image_url"]["url"] for p in first + second]
    assert len(set(urls)) == 4
    assert images.parts(0) == first
    assert len(images.pool[(16, 16)]) == POOL


def test_images_go_after_the_text_of_the_last_user_message():
    messages = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "Q2"},
    ]
    image = {"type": "image_url", "image_url": {"url": "http://x/y.png"}}
    sent = with_parts(messages, [image])
    assert sent[:3] == messages[:3]
    assert sent[3] == {"role": "user", "content": [{"type": "text", "text": "Q2"}, image]}


def test_a_records_image_fields_count_the_images_their_bytes_and_common_size():
    images = SyntheticImages(3, ((40, 20),), "png", 0)
    messages = with_parts([{"role": "user", "content": "Q"}], images.parts(0))
    stats = image_stats(messages)
    raw = sum(
        len(base64.b64decode(p["image_url"]["url"].partition(",")[2])) for p in images.parts(0)
    )
    assert (stats.count, stats.bytes, stats.size) == (3, raw, "40x20")


def test_a_request_without_images_counts_none():
    assert image_stats([{"role": "user", "content": "Q"}]).count == 0


def test_a_dataset_image_file_is_read_into_a_data_url_of_what_it_holds(tmp_path: Path):
    (tmp_path / "pics").mkdir()
    Image.new("RGB", (30, 20)).save(tmp_path / "pics" / "cat.img", "JPEG")  # no telling suffix
    parts = [
        {"type": "text", "text": "What is it?"},
        {"type": "image_url", "image_url": {"url": "pics/cat.img"}},
    ]
    text, image = resolved_content(parts, "here", tmp_path)
    assert text == parts[0]
    url = image["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert decoded(url).size == (30, 20)


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/a.png", "data:image/png;base64,AAAA"])
def test_a_dataset_image_url_or_data_url_is_sent_as_it_is(url, tmp_path: Path):
    part = {"type": "image_url", "image_url": {"url": url}}
    assert resolved_content([part], "here", tmp_path) == [part]


def test_a_missing_image_file_is_one_error_naming_it(tmp_path: Path):
    part = {"type": "image_url", "image_url": {"url": "gone.png"}}
    with pytest.raises(ConfigError, match=r"^here: image .*gone\.png cannot be read"):
        resolved_content([part], "here", tmp_path)


def test_a_file_that_is_no_image_is_one_error_naming_it(tmp_path: Path):
    (tmp_path / "notes.png").write_text("not a picture")
    part = {"type": "image_url", "image_url": {"url": "notes.png"}}
    with pytest.raises(ConfigError, match=r"^here: image .*notes\.png is not an image file$"):
        resolved_content([part], "here", tmp_path)
