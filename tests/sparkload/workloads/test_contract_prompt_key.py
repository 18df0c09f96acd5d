"""A prompt's key (``contract.prompt_key``, kept with ``--keep-outputs``): the same prompt's in
every run and level, whatever else the request asks."""

from __future__ import annotations

from sparkload.workloads.contract import PlannedRequest, prompt_key

ASKED = [{"role": "user", "content": "hi"}]


def test_a_prompts_key_does_not_depend_on_its_output_length_or_its_index():
    key = prompt_key(PlannedRequest("hi", 8, messages=ASKED))
    assert key == prompt_key(PlannedRequest("hi", 512, prompt_index=3, messages=ASKED))


def test_another_message_is_another_key():
    other = [{"role": "user", "content": "ho"}]
    assert prompt_key(PlannedRequest("hi", 8, messages=ASKED)) != prompt_key(
        PlannedRequest("hi", 8, messages=other)
    )


def test_the_tools_sent_with_a_prompt_are_part_of_its_key():
    tools = ({"type": "function", "function": {"name": "f"}},)
    assert prompt_key(PlannedRequest("hi", 8, messages=ASKED)) != prompt_key(
        PlannedRequest("hi", 8, messages=ASKED, tools=tools)
    )
