"""Images (``--images``, a dataset's image parts): images per second per level, and TTFT by a
request's image count and by its images' size, beside the prompt tokens they cost."""

from __future__ import annotations

from analysis.document import Section
from analysis.figures import images
from analysis.figures.measured import measured_ok
from analysis.sections import Context
from analysis.views.tables import Table, slug

TITLE = "Images"
RATE_COLUMNS = {
    "concurrency": "C",
    "n": "n",
    "images_sum": "images",
    "images_per_s": "images/s",
    "image_mb_per_s": "image MB/s",
    "ttft_ms_p50": "TTFT p50 ms",
}
BY_COLUMNS = {
    "concurrency": "C",
    "n": "n",
    "ttft_ms_mean": "TTFT mean ms",
    "ttft_ms_p50": "TTFT p50 ms",
    "ttft_ms_p90": "TTFT p90 ms",
    "prompt_tokens_mean": "prompt tokens",
}
FORMATS = {
    "images/s": "{:.2f}",
    "image MB/s": "{:.2f}",
    "TTFT mean ms": "{:.1f}",
    "TTFT p50 ms": "{:.1f}",
    "TTFT p90 ms": "{:.1f}",
    "prompt tokens": "{:.0f}",
}
GROUPS = ((images.BY_COUNT, "images a request"), (images.BY_SIZE, "image size"))


def build(context: Context) -> Section | None:
    summary, records = context.summary, context.dataset.records
    if not images.has_images(records) or "images_per_s" not in summary:
        return None
    tables = []
    for label, levels in summary.groupby("label", sort=False):
        tables.append(
            Table(
                f"{slug(str(label))}_images",
                f"{label}: images per level",
                levels[list(RATE_COLUMNS)].rename(columns=RATE_COLUMNS),
                FORMATS,
            )
        )
    ok = measured_ok(records, context.settings)
    for by, name in GROUPS:
        table = images.ttft_by(ok, context.settings.percentile_method, by)
        if table.empty:
            continue
        for label, rows in table.groupby("label", sort=False):
            columns = {"concurrency": "C", by: name, **BY_COLUMNS}
            tables.append(
                Table(
                    f"{slug(str(label))}_ttft_by_{by}",
                    f"{label}: TTFT by {name}",
                    rows[list(columns)].rename(columns=columns),
                    FORMATS,
                )
            )
    return Section(
        TITLE,
        [
            "Images per second are the level's ok measured requests' images over its wall time "
            "(the one measured RPS divides by); image MB/s their encoded bytes (a data URL's; an "
            "http URL's are not known). TTFT by image count and by size groups each level's ok "
            "measured requests by how many images they carried and by their images' size "
            "(mixed: a request whose images differ in size or are of unknown size), with the "
            "prompt tokens the server counted for them: a server that counts images in its "
            "prompt tokens shows what an image costs there.",
            *tables,
        ],
    )
