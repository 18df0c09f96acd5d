"""``--images``: a run's synthetic images, attached to each request the workload planned.

The images go after the content of the request's last user message (``inputs.images``), as
OpenAI content parts; each API's body writes them in its own form (``WireApi.image_parts``:
an API without them is refused before the load). The workload's own request stays as it
planned it: what a conversation keeps in its history is the text, so every request carries
exactly ``--images`` images. A request with no user message (none is planned today) is sent
without images.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sparkload.apis import able_to, wire_api
from sparkload.errors import ConfigError
from sparkload.inputs.images import SyntheticImages, with_parts
from sparkload.workloads.contract import PlannedRequest

if TYPE_CHECKING:
    from sparkload.config import RunOptions


@dataclass(frozen=True)
class RequestImages:
    """What every request of the run carries beside its prompt: ``--images`` of a size."""

    images: SyntheticImages

    @classmethod
    def for_run(cls, opts: RunOptions) -> RequestImages | None:
        """The run's images, made once (None without ``--images``)."""
        w = opts.workload
        if not w.images:
            return None
        return cls(SyntheticImages(w.images, w.image_size, w.image_format, opts.plan.seed))

    def attach(self, planned: PlannedRequest) -> PlannedRequest:
        """``planned`` as sent: its messages (its text as one user message) with the images of
        its prompt index after the last user message's text."""
        messages = planned.messages or ({"role": "user", "content": planned.text},)
        parts = self.images.parts(planned.prompt_index)
        return replace(planned, messages=tuple(with_parts(messages, parts)))


def refuse_images(opts: RunOptions) -> None:
    """``--images`` on an API that sends no content parts: one line naming those that do."""
    if opts.workload.images and not wire_api(opts.request.api).image_parts:
        raise ConfigError(
            f"--images: --api {opts.request.api} carries no images; "
            f"use --api {able_to('image_parts')}"
        )
