"""Reading the server's per-request metrics: vLLM's exact shape into the record's units, and
nothing made up (None) where a figure is missing or malformed."""

from __future__ import annotations

import pytest

from sparkload.transport.request_metrics import ServerFigures, fill, read
from tests.servers import Script, measure_on

# vLLM 0.32's ``metrics`` (PerRequestMetrics) with --per-request-spec-decode-metrics summary,
# as its last chunk carries it (exclude_none: absent fields are not sent)
VLLM_METRICS = {
    "time_to_first_token_ms": 12.5,
    "generation_time_ms": 240.0,
    "queue_time_ms": 3.25,
    "mean_itl_ms": 4.0,
    "tokens_per_second": 196.0,
    "speculative_decoding": {
        "mean_acceptance_length": 3.88,
        "draft_acceptance_rate": 0.96,
        "acceptance_histogram": [1, 1, 0, 48],
        "num_spec_steps": 50,
        "num_accepted_draft_tokens": 145,
        "num_draft_tokens": 150,
        "num_spec_tokens": 3,
    },
}


def test_vllms_metrics_read_in_seconds_and_counts():
    figures = read(VLLM_METRICS)
    assert figures == ServerFigures(
        queue=pytest.approx(0.00325),
        ttft=pytest.approx(0.0125),
        generation=pytest.approx(0.24),
        itl=pytest.approx(0.004),
        tps=196.0,
        acceptance_length=3.88,
        acceptance_rate=0.96,
        histogram=[1, 1, 0, 48],
        steps=50,
        accepted=145,
        drafts=150,
    )


def test_timing_alone_leaves_the_drafting_figures_none():
    figures = read({"queue_time_ms": 1.0, "time_to_first_token_ms": 2.0})
    assert figures is not None
    assert (figures.queue, figures.ttft) == (0.001, 0.002)
    assert figures.acceptance_length is None and figures.histogram is None
    assert figures.generation is None


@pytest.mark.parametrize("metrics", [None, {}, [], "metrics", 3, {"unknown": 1}])
def test_no_usable_object_reads_as_none(metrics):
    assert read(metrics) is None


@pytest.mark.parametrize(
    "bad", [None, "12", True, -1.0, float("nan"), float("inf"), [1.0], {"ms": 1}]
)
def test_a_malformed_time_is_none_and_the_others_are_kept(bad):
    figures = read({"queue_time_ms": bad, "time_to_first_token_ms": 5.0})
    assert figures is not None
    assert (figures.queue, figures.ttft) == (None, 0.005)


@pytest.mark.parametrize("histogram", [[], [1, -1], [1, 2.5], "1,2", [True, 1], None])
def test_a_malformed_histogram_is_none(histogram):
    spec = {**VLLM_METRICS["speculative_decoding"], "acceptance_histogram": histogram}
    figures = read({"speculative_decoding": spec})
    assert figures is not None and figures.histogram is None
    assert figures.steps == 50


def test_no_verify_step_has_no_acceptance_length_or_rate():
    # vLLM says 1.0 and 0.0 for a request that drafted nothing: figures of nothing
    spec = {
        "mean_acceptance_length": 1.0,
        "draft_acceptance_rate": 0.0,
        "acceptance_histogram": [0, 0, 0, 0],
        "num_spec_steps": 0,
        "num_accepted_draft_tokens": 0,
        "num_draft_tokens": 0,
        "num_spec_tokens": 3,
    }
    figures = read({"speculative_decoding": spec})
    assert figures is not None
    assert (figures.acceptance_length, figures.acceptance_rate, figures.steps) == (None, None, 0)


def test_speculative_decoding_not_an_object_is_ignored():
    figures = read({"queue_time_ms": 1.0, "speculative_decoding": [1, 2]})
    assert figures == ServerFigures(queue=0.001)


def test_fill_leaves_a_record_without_metrics_as_it_was():
    records, _ = measure_on(Script(tokens=3))
    (record,) = records
    fill(record, None)
    assert record.server_queue is None and record.acceptance_length is None
    assert "server_queue" not in record.to_dict()


def test_a_streamed_reply_carries_the_last_chunks_metrics_in_its_record():
    (record,), _ = measure_on(Script(tokens=4, metrics=VLLM_METRICS))
    assert record.status == "ok"
    assert record.server_queue == pytest.approx(0.00325)
    assert record.server_ttft == pytest.approx(0.0125)
    assert record.server_itl == pytest.approx(0.004)
    assert record.spec_histogram == [1, 1, 0, 48]
    assert (record.spec_steps, record.spec_accepted, record.spec_drafts) == (50, 145, 150)


@pytest.mark.parametrize("metrics", [{"queue_time_ms": "soon"}, {"speculative_decoding": 7}])
def test_malformed_metrics_never_fail_a_request(metrics):
    (record,), _ = measure_on(Script(tokens=4, metrics=metrics))
    assert record.status == "ok" and record.error_kind is None
    assert record.server_queue is None and record.acceptance_length is None
