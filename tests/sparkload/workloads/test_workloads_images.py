"""--images on a planned request: the images after its text, the workload's own request left as
planned; an API without image parts refused before the load."""

from __future__ import annotations

import pytest

from sparkload.errors import ConfigError
from sparkload.workloads.contract import PlannedRequest
from sparkload.workloads.images import RequestImages
from sparkload.workloads.registry import settle
from tests.options import run_options


def images(*args: str) -> RequestImages:
    found = RequestImages.for_run(run_options("--image-size", "16x16", *args))
    assert found is not None
    return found


def test_no_images_asked_makes_none():
    assert RequestImages.for_run(run_options()) is None


def test_a_text_prompt_is_sent_as_one_user_message_of_its_text_and_its_images():
    planned = PlannedRequest("What is it?", 8, prompt_index=5)
    sent = images("--images", "2").attach(planned)
    (message,) = sent.messages or ()
    assert message["role"] == "user"
    assert message["content"][0] == {"type": "text", "text": "What is it?"}
    assert [part["type"] for part in message["content"][1:]] == ["image_url", "image_url"]
    assert planned.messages is None  # the workload's own request is as it planned it


def test_the_same_seed_sends_the_same_images_and_another_seed_others():
    planned = PlannedRequest("Q", 8, prompt_index=1)
    same = images("--images", "1").attach(planned).messages
    assert images("--images", "1").attach(planned).messages == same
    assert images("--images", "1", "--seed", "9").attach(planned).messages != same


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_images_are_settled_on_an_api_with_image_parts(api):
    assert settle(run_options("--api", api, "--images", "1")).workload.images == 1


def test_images_are_refused_on_an_api_without_image_parts_naming_those_with():
    with pytest.raises(ConfigError, match="use --api chat, responses or messages$"):
        settle(run_options("--api", "completions", "--images", "1"))
