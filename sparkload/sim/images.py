"""What an image in a request costs the simulator: its size, read from its header, in tokens.

Qwen-VL's vision encoder cuts an image into 14x14 patches and merges each 2x2 of them into one
token, so an image of W x H pixels costs about ceil(W / 28) x ceil(H / 28) tokens (the real
processor also rescales to a pixel budget first; the simulator does not). The size is read
from the image's own header (PNG, JPEG, any format Pillow knows), decoded from a data URL; an
image named by an http(s) URL is not fetched: it counts as ``DEFAULT_SIZE``.

Pure and without the server: the load side reads sizes with it too (a record's image size).
"""

from __future__ import annotations

import base64
import binascii
import io
import math
from collections.abc import Iterator, Mapping
from typing import Any

from PIL import Image, UnidentifiedImageError

PATCH = 28  # pixels a side of one merged token (14-pixel patches, merged 2x2)
DEFAULT_SIZE = (448, 448)  # an image the simulator cannot read (an http URL): 256 tokens
HEADER_CHARS = 64 * 1024  # base64 characters decoded to find a size (a JPEG's may follow EXIF)


def image_tokens(width: int, height: int) -> int:
    """The tokens of a ``width`` x ``height`` image: one per 28x28 pixels, rounded up."""
    return math.ceil(width / PATCH) * math.ceil(height / PATCH)


def data_url_bytes(url: str) -> bytes | None:
    """The bytes a base64 data URL holds (None: not one, or not valid base64)."""
    head, comma, data = url.partition(",")
    if not comma or not head.startswith("data:") or not head.endswith(";base64"):
        return None
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def size_of(data: bytes) -> tuple[int, int] | None:
    """An image's width and height from its header (None: not an image Pillow knows)."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def url_size(url: str) -> tuple[int, int] | None:
    """The size of the image a URL names: read from a data URL's header, decoding only its
    start; None for any other URL (the simulator does not fetch)."""
    head, comma, data = url.partition(",")
    if not comma or not head.startswith("data:"):
        return None
    start = data[: HEADER_CHARS - HEADER_CHARS % 4]
    found = data_url_bytes(f"{head},{start}")
    return size_of(found) if found is not None else None


def image_urls(messages: list[Any]) -> Iterator[str]:
    """Every image URL in chat messages' content parts, in any API's form: chat's
    ``image_url`` (``{"url": ...}``), the Responses API's ``input_image`` (a string), an
    Anthropic ``image`` block's base64 ``source`` (as a data URL)."""
    for message in messages:
        content = message.get("content") if isinstance(message, Mapping) else None
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, Mapping):
                continue
            url = part.get("image_url")
            if isinstance(url, Mapping):
                url = url.get("url")
            source = part.get("source") if part.get("type") == "image" else None
            if isinstance(source, Mapping) and source.get("type") == "base64":
                url = f"data:{source.get('media_type')};base64,{source.get('data', '')}"
            if isinstance(url, str):
                yield url


def messages_image_tokens(messages: list[Any]) -> int:
    """The image tokens of every image the messages carry (``DEFAULT_SIZE`` for one whose size
    cannot be read)."""
    return sum(image_tokens(*(url_size(url) or DEFAULT_SIZE)) for url in image_urls(messages))
