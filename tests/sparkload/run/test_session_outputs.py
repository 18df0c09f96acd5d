"""``--keep-outputs`` through a user's session: each record keeps its reply's text, its text
chunks' lengths and its prompt's key; without the option no record holds any of them."""

from __future__ import annotations

from locust.argument_parser import LocustArgumentParser

from sparkload.inputs.prompts import PromptOrder
from sparkload.plugin.options import register
from sparkload.records import PHASE_MEASURE
from sparkload.run.context import RunContext
from sparkload.run.session import Assignment, UserSession
from sparkload.stages import MEASURE, Stage
from tests.servers import Script, scripted
from tests.sparkload.workloads.test_contract import Shipped


def one_record(*args: str) -> dict:
    parser = LocustArgumentParser()
    register(parser)
    shipped = Shipped()
    with scripted(Script(tokens=3)) as server:
        context = RunContext.from_options(parser.parse_args(list(args)), server.url)
        session = UserSession(
            context=context,
            ordinal=0,
            endpoint=context.endpoints[0],
            node_id="local",
            worker_label="local",
            prompt_order=PromptOrder(context.workload.prompt_count, 0),
            shipper=shipped,
            next_request_id=lambda: "r",
        )
        session.send(Assignment(Stage(MEASURE, 0, 1), PHASE_MEASURE))
        session.close()
    (record,) = shipped
    return record


def test_a_record_keeps_its_reply_its_chunks_and_its_prompts_key_with_keep_outputs():
    record = one_record("--keep-outputs")
    assert record["output_text"] == " t0 t1 t2" and record["output_chunks"] == [3, 3, 3]
    assert len(record["prompt_key"]) == 16


def test_no_record_holds_an_output_without_keep_outputs():
    record = one_record()
    assert {"output_text", "output_chunks", "prompt_key"} & set(record) == set()
