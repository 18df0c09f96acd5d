"""The live per-level table: exact figures from records, warm-ups and failures kept apart; a
level of many requests in bounded memory."""

import pytest

from sparkload.records import linear_percentile
from sparkload.run import livetable
from sparkload.run.livetable import LevelTally, format_table


def add(tally, **fields):
    tally.add({"phase": "measure", "status": "ok", **fields})


def test_row_holds_means_linear_percentiles_and_the_reports_system_figures():
    tally = LevelTally(0, concurrency=4, expected=None)
    for i in range(1, 11):
        add(tally, ttft=i / 10, itl=0.05, tps=20.0, latency=6.0)
    row = tally.row()
    assert row["ttft_ms_mean"] == pytest.approx(550)
    assert row["ttft_ms_p50"] == pytest.approx(550)
    assert row["ttft_ms_p90"] == pytest.approx(910)
    assert row["system_rps"] == pytest.approx(4 / 6.0)
    assert row["total_tps"] == pytest.approx(80.0)


def test_warmups_and_failures_are_counted_but_not_measured():
    tally = LevelTally(0, concurrency=1, expected=2)
    tally.add({"phase": "warmup", "status": "ok", "ttft": 9.0})
    add(tally, ttft=0.1, tps=10.0, latency=1.0)
    tally.add({"phase": "measure", "status": "error", "error_kind": "http_500"})
    row = tally.row()
    assert (row["n"], row["failures"], tally.warmups) == (1, 1, 1)
    assert row["ttft_ms_mean"] == pytest.approx(100)
    assert tally.complete
    assert tally.error_kinds == {"http_500": 1}


def test_format_table_shows_a_dash_for_missing_values():
    text = format_table([LevelTally(0, 2, 20).row()])
    assert text.splitlines()[1].split()[:3] == ["2", "0", "0"]
    assert "-" in text.splitlines()[1]


def test_percentiles_are_exact_until_the_limit_then_within_the_sketchs_one_percent(monkeypatch):
    monkeypatch.setattr(livetable, "EXACT_VALUES", 1000)
    values = [0.001 * (i % 997 + 1) for i in range(5000)]
    distribution = livetable.Distribution()
    for value in values[:1000]:
        distribution.add(value)
    assert distribution.exact
    assert distribution.quantile(0.9) == linear_percentile(sorted(values[:1000]), 0.9)
    for value in values[1000:]:
        distribution.add(value)
    assert not distribution.exact and distribution.values == []
    exact = linear_percentile(sorted(values), 0.9)
    assert distribution.quantile(0.9) == pytest.approx(exact, rel=0.011)
    assert distribution.mean() == pytest.approx(sum(values) / len(values), rel=1e-12)


def test_a_level_past_the_limit_keeps_no_per_request_values(monkeypatch):
    monkeypatch.setattr(livetable, "EXACT_VALUES", 100)
    tally = livetable.LevelTally(0, 4, None)
    for i in range(10_000):
        tally.add({"phase": "measure", "status": "ok", "ttft": 0.1 + i % 7 * 0.01, "latency": 1})
    assert (tally.ttft.values, tally.latency.values) == ([], [])
    assert tally.row()["n"] == 10_000


# A thinking model's or an agent's run: TTFO beside TTFT; a plain run's table as it always was.

PLAIN_HEADER = (
    "C / rate  n  fail  TTFT ms mean  p50  p90  ITL ms mean  p50  p90  TPS mean  latency s mean"
    "  system RPS  total tok/s  client check  stream check"
)


def thinking_tally(index=0, concurrency=1, **fields) -> LevelTally:
    tally = LevelTally(index, concurrency, None)
    for i in range(1, 11):
        record = dict(ttft=0.02, ttfo=0.2 + i / 100, itl=0.004, tps=250.0, latency=0.5)
        add(tally, **{**record, "reasoning_tokens": 64, "output_tokens": 128, **fields})
    return tally


def test_a_plain_runs_table_keeps_its_columns_though_its_records_have_a_ttfo():
    tally = LevelTally(0, 1, None)
    add(tally, ttft=0.1, ttfo=0.1, itl=0.01, tps=10.0, latency=1.0, output_tokens=10)
    row = tally.row()
    assert "ttfo_ms_mean" not in row and livetable.columns_for([row]) == livetable.COLUMNS
    assert " ".join(format_table([row]).splitlines()[0].split()) == " ".join(PLAIN_HEADER.split())


def test_each_declared_live_metric_shows_its_statistics_in_its_unit():
    tally = LevelTally(0, 1, None)
    add(tally, reasoning_tokens=8, **{m.field: 0.5 for m, _ in livetable.LIVE_METRICS})
    row = tally.row()
    for metric, _ in livetable.LIVE_METRICS:
        assert metric.live is not None
        for stat in metric.live.stats:
            key = f"{metric.column}_{stat}"
            assert row[key] == pytest.approx(0.5 * metric.factor), key
            assert key in dict(livetable.THINKING_COLUMNS)


def test_a_thinking_runs_table_shows_ttfo_after_ttft():
    row = thinking_tally().row()
    assert row["ttfo_ms_mean"] == pytest.approx(255.0)
    assert (row["ttfo_ms_p50"], row["ttfo_ms_p90"]) == pytest.approx((255.0, 291.0))
    header = format_table([row]).splitlines()[0].split()
    assert header[5:13] == ["TTFT", "ms", "mean", "p50", "p90", "TTFO", "ms", "mean"]
    assert "no answer" in format_table([row])


def test_an_agents_tool_calls_bring_the_ttfo_columns_too():
    tally = LevelTally(0, 1, None)
    add(tally, ttft=0.1, ttfo=0.1, tool_calls=1, latency=1.0)
    assert tally.row()["no_answer"] == 0 and "ttfo_ms_mean" in tally.row()


def test_requests_that_never_answered_are_counted_and_not_in_ttfo():
    tally = thinking_tally()
    add(
        tally,
        ttft=0.02,
        reasoning_tokens=128,
        output_tokens=128,
        latency=1.0,
        finish_reason="length",
    )
    row = tally.row()
    assert (row["n"], row["no_answer"], tally.figures["ttfo"].count) == (11, 1, 10)


def test_a_reply_that_stopped_after_its_reasoning_is_not_one_that_never_answered():
    tally = thinking_tally()
    add(
        tally, ttft=0.02, reasoning_tokens=120, output_tokens=123, latency=1.0, finish_reason="stop"
    )
    row = tally.row()
    assert (row["n"], row["no_answer"], tally.figures["ttfo"].count) == (11, 0, 10)


def test_a_level_without_reasoning_in_a_thinking_run_shows_dashes_for_ttfo():
    plain = LevelTally(1, 2, None)
    add(plain, ttft=0.1, ttfo=0.1, latency=1.0)
    lines = format_table([thinking_tally().row(), plain.row()]).splitlines()
    assert lines[2].split()[6:10] == ["-", "-", "-", "-"]


def test_structured_replies_show_the_valid_share_of_the_finished_and_each_kind_apart():
    tally = LevelTally(0, concurrency=1, expected=None)
    for verdict in ["valid"] * 7 + ["parse_error", "schema_error", "truncated"]:
        add(tally, ttft=0.1, latency=1.0, structured=verdict)
    row = tally.row()
    assert row["schema_valid_pct"] == pytest.approx(700 / 9)
    assert (row["parse_error"], row["schema_error"], row["truncated"]) == (1, 1, 1)
    assert "schema valid %" in format_table([row])


def test_a_run_without_a_response_format_shows_no_structured_columns():
    tally = LevelTally(0, concurrency=1, expected=None)
    add(tally, ttft=0.1, latency=1.0)
    assert "schema valid %" not in format_table([tally.row()])


def test_an_open_loop_level_that_generated_no_token_shows_no_total_tps():
    """An embeddings level: its records count no output token (None), so no rate of them."""
    tally = LevelTally(0, concurrency=4, expected=None, arrival_rate=2.0)
    for start in (100.0, 101.0):
        add(tally, latency=0.5, start_time=start, output_tokens=None, inputs=8)
    assert tally.total_tps is None


def test_an_open_loop_levels_total_tps_counts_its_output_tokens_over_its_wall_time():
    tally = LevelTally(0, concurrency=4, expected=None, arrival_rate=2.0)
    for start in (100.0, 101.0):
        add(tally, latency=1.0, start_time=start, output_tokens=10)
    assert tally.total_tps == pytest.approx(20 / 2.0)
