"""vLLM's per-request ``metrics`` from a request's schedule: times in real milliseconds (as vLLM's),
the speculative summary from the request's own verify steps."""

import pytest

from sparkload.sim.request_metrics import Schedule, metrics, speculative_decoding


def schedule(**stamps) -> Schedule:
    return Schedule(**{"queued": 1.0, "scheduled": 1.5, "first": 2.0, "last": 3.0, **stamps})


def test_times_split_at_the_schedule_s_stamps():
    found = metrics(schedule(), tokens=11)
    assert found["queue_time_ms"] == 500.0
    assert found["time_to_first_token_ms"] == 500.0
    assert found["generation_time_ms"] == 1000.0  # first -> last: the decode only
    assert found["mean_itl_ms"] == 100.0
    assert found["tokens_per_second"] == pytest.approx(11 / 1.5, abs=1e-3)


def test_one_token_has_no_inter_token_latency():
    assert metrics(schedule(last=2.0), tokens=1)["mean_itl_ms"] is None


def test_no_speculative_part_when_the_engine_does_not_draft():
    assert "speculative_decoding" not in metrics(schedule(), tokens=5)


def test_the_speculative_summary_is_counted_from_the_histogram():
    spec = speculative_decoding([1, 1, 0, 2], k=3)
    assert spec == {
        "mean_acceptance_length": 1.0 + 7 / 4,
        "draft_acceptance_rate": 7 / 12,
        "acceptance_histogram": [1, 1, 0, 2],
        "num_spec_steps": 4,
        "num_accepted_draft_tokens": 7,
        "num_draft_tokens": 12,
        "num_spec_tokens": 3,
    }


def test_a_request_without_verify_steps_has_no_acceptance_length():
    spec = speculative_decoding([0, 0, 0, 0], k=3)
    assert spec["num_spec_steps"] == 0 and spec["mean_acceptance_length"] is None


def test_a_request_is_never_scheduled_before_it_was_queued():
    late = Schedule(queued=2.0)
    late.schedule_at(1.98)
    assert late.scheduled == 2.0 and metrics(late, 1)["queue_time_ms"] == 0.0
