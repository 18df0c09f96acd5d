"""What an image costs the simulator: its size read from its header, in Qwen-VL's tokens, in
any API's form, and added to a request's prompt tokens."""

from __future__ import annotations

import base64
import io

import pytest
import requests
from PIL import Image

from sparkload.sim.images import (
    DEFAULT_SIZE,
    image_tokens,
    image_urls,
    messages_image_tokens,
    url_size,
)
from sparkload.sim.server import parse_chat_request, parse_responses_request
from tests.servers import running_sim


def png_url(width: int, height: int, fmt: str = "PNG") -> str:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(out, fmt)
    media = "image/png" if fmt == "PNG" else "image/jpeg"
    return f"data:{media};base64,{base64.b64encode(out.getvalue()).decode()}"


def test_an_image_costs_one_token_per_28_pixels_a_side_rounded_up():
    assert image_tokens(448, 448) == 256
    assert image_tokens(224, 224) == 64
    assert image_tokens(29, 28) == 2


def test_a_data_urls_size_is_read_from_its_header():
    assert url_size(png_url(300, 200)) == (300, 200)
    assert url_size(png_url(64, 96, "JPEG")) == (64, 96)


def test_an_http_url_has_no_size_the_simulator_could_read():
    assert url_size("http://127.0.0.1:9/cat.png") is None


def test_images_are_found_in_chat_responses_and_anthropic_forms():
    url = png_url(10, 10)
    data = url.partition(",")[2]
    messages = [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]},
        {"role": "user", "content": [{"type": "input_image", "image_url": url}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": data},
                }
            ],
        },
    ]
    assert [url_size(found) for found in image_urls(messages)] == [(10, 10)] * 3


def test_an_unreadable_image_counts_as_the_default_size():
    messages = [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "http://127.0.0.1:9/y.png"}}],
        }
    ]
    assert messages_image_tokens(messages) == image_tokens(*DEFAULT_SIZE)


def test_a_chat_requests_images_are_its_image_tokens():
    text = {"type": "text", "text": "What is in the picture?"}
    image = {"type": "image_url", "image_url": {"url": png_url(448, 448)}}
    body = {"messages": [{"role": "user", "content": [text, image, image]}]}
    assert parse_chat_request(body, "m", 0).image_tokens == 2 * 256


def test_a_responses_requests_input_images_are_its_image_tokens():
    parts = [{"type": "input_text", "text": "Describe"}]
    parts.append({"type": "input_image", "image_url": png_url(224, 224)})
    body = {"input": [{"role": "user", "content": parts}]}
    assert parse_responses_request(body, "m", 0).image_tokens == 64


@pytest.mark.e2e  # starts the simulator
def test_the_usages_prompt_tokens_grow_by_the_image_tokens():
    text = {"type": "text", "text": "What is in the picture? " * 10}
    image = {"type": "image_url", "image_url": {"url": png_url(448, 448)}}

    def prompt_tokens(url: str, content: list) -> int:
        body = {"messages": [{"role": "user", "content": content}], "max_tokens": 2}
        reply = requests.post(f"{url}/v1/chat/completions", json=body, timeout=10)
        return reply.json()["usage"]["prompt_tokens"]

    with running_sim("--time-scale", "50") as url:
        assert prompt_tokens(url, [text, image]) - prompt_tokens(url, [text]) == 256
