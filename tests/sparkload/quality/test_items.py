"""An item set's items as requests: the prompt, the reply wanted back, and the record's extra
that joins a record to its grade."""

from __future__ import annotations

import orjson

from sparkload.body import BodyTemplate
from sparkload.quality import probes


def test_an_item_planned_is_its_prompt_with_the_reply_wanted():
    items = probes.arithmetic(3, seed=1)
    planned = items.planned(2, 256)
    assert (planned.text, planned.max_tokens) == (items.items[2].prompt, 256)
    assert planned.wants_reply and planned.prompt_index == 2
    assert planned.extra == {"probe": "arithmetic", "item": "arithmetic-3"}
    body = orjson.loads(BodyTemplate("m", 256, extras={"temperature": 0.0}).encode(planned))
    assert body["messages"] == [{"role": "user", "content": items.items[2].prompt}]
    assert (body["temperature"], body["max_tokens"]) == (0.0, 256)
