"""Images a request carries, as OpenAI content parts: synthetic ones (``--images``), a
dataset's own (resolved when the file is read), and what a record counts of them.

Synthetic images are seeded noise (uncompressible: a PNG of W x H is about 3 W H bytes, a
JPEG at quality 90 about a third of that), ``POOL`` distinct ones per size made once per run
in every process, so a request costs no image encoding: request ``i`` (its prompt index)
takes the size ``sizes[i % len(sizes)]`` and that size's images ``i N + k`` (mod ``POOL``),
k < N. The same seed, size and index give the same bytes in every process and run.

A dataset's ``image_url`` part names an http(s) URL or a data URL (sent as they are) or a
file, relative to the dataset's directory, read here into a data URL with the media type of
what the file holds; a file that is missing or is not an image is one ``ConfigError``.
"""

from __future__ import annotations

import base64
import io
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from sparkload.errors import ConfigError
from sparkload.sim.images import image_urls, url_size

POOL = 16  # distinct synthetic images per size
JPEG_QUALITY = 90
REMOTE = ("http://", "https://", "data:")  # image URLs sent as they are
IMAGE_URL = "image_url"


def image_part(url: str) -> dict[str, Any]:
    """One image as an OpenAI content part."""
    return {"type": IMAGE_URL, IMAGE_URL: {"url": url}}


def data_url(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def render(width: int, height: int, fmt: str, seed: int, index: int) -> bytes:
    """Synthetic image ``index`` of a size: seeded RGB noise, encoded as ``fmt``."""
    noise = random.Random(f"image:{seed}:{width}x{height}:{index}").randbytes(width * height * 3)
    out = io.BytesIO()
    picture = Image.frombytes("RGB", (width, height), noise)
    if fmt == "jpeg":
        picture.save(out, "JPEG", quality=JPEG_QUALITY)
    else:
        picture.save(out, "PNG", compress_level=1)  # noise does not compress: spend no time
    return out.getvalue()


@dataclass(frozen=True)
class SyntheticImages:
    """A run's synthetic images: ``count`` a request, from a pool per size made once."""

    count: int
    sizes: tuple[tuple[int, int], ...]
    fmt: str  # png | jpeg
    seed: int
    pool: dict[tuple[int, int], tuple[str, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        media = f"image/{self.fmt}"
        made = {
            size: tuple(data_url(media, render(*size, self.fmt, self.seed, i)) for i in range(POOL))
            for size in dict.fromkeys(self.sizes)
        }
        object.__setattr__(self, "pool", made)

    def parts(self, index: int) -> list[dict[str, Any]]:
        """The image parts of the request of prompt index ``index``."""
        urls = self.pool[self.sizes[index % len(self.sizes)]]
        return [image_part(urls[(index * self.count + k) % len(urls)]) for k in range(self.count)]


def with_parts(messages: Sequence[Mapping[str, Any]], parts: list[dict[str, Any]]) -> list[Any]:
    """``messages`` with ``parts`` after the content of the last user message (its text as a
    text part first), so a shared text prefix stays a prefix; the rest as they are."""
    out: list[Any] = list(messages)
    last = max((i for i, m in enumerate(out) if m.get("role") == "user"), default=None)
    if last is None:
        return out
    content = out[last].get("content")
    before = list(content) if isinstance(content, list) else [{"type": "text", "text": content}]
    out[last] = {**out[last], "content": before + parts}
    return out


@dataclass(frozen=True)
class ImageStats:
    """What a request's record keeps of its images."""

    count: int = 0
    bytes: int = 0  # the encoded images' bytes (a data URL's; an http URL's are not known)
    size: str | None = None  # "WxH" when every image has that one known size


def image_stats(messages: Sequence[Mapping[str, Any]] | None) -> ImageStats:
    """Count the images of chat messages' content parts, their bytes and their common size."""
    urls = list(image_urls(list(messages or ())))
    if not urls:
        return ImageStats()
    sizes = {url_size(url) for url in urls}
    size = sizes.pop() if len(sizes) == 1 else None
    return ImageStats(
        len(urls),
        sum(_encoded_bytes(url) for url in urls),
        f"{size[0]}x{size[1]}" if size else None,
    )


def _encoded_bytes(url: str) -> int:
    """The bytes a base64 data URL decodes to, from its length (0: not a data URL)."""
    head, _, data = url.partition(",")
    if not head.startswith("data:") or not head.endswith(";base64"):
        return 0
    return len(data) * 3 // 4 - len(data) + len(data.rstrip("="))


def resolved_content(content: list[Any], where: str, base: Path) -> list[dict[str, Any]]:
    """A dataset message's content parts as sent: text parts as they are, each ``image_url``
    part's file path read into a data URL (relative to ``base``, the dataset's directory)."""
    out = []
    for number, part in enumerate(content, 1):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            out.append({"type": "text", "text": part["text"]})
            continue
        image = part.get(IMAGE_URL) if kind == IMAGE_URL else None
        url = image.get("url") if isinstance(image, dict) else image
        if not isinstance(url, str) or not url:
            raise ConfigError(
                f"{where}: content part {number} is neither a text part nor an image_url with a url"
            )
        out.append(image_part(url if url.startswith(REMOTE) else _file_url(url, where, base)))
    return out


def _file_url(name: str, where: str, base: Path) -> str:
    """An image file as a data URL, its media type what the file holds."""
    path = base / name
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{where}: image {path} cannot be read ({exc.strerror})") from None
    try:
        with Image.open(io.BytesIO(data)) as picture:
            kind = picture.format or ""
    except (UnidentifiedImageError, OSError, ValueError):
        raise ConfigError(f"{where}: image {path} is not an image file") from None
    return data_url(Image.MIME.get(kind, "application/octet-stream"), data)
