"""--check on the server's own figures: acceptance length and rate, server queue and TTFT are
bound names like the client's (``acceptance_length_p50>=2.5``, ``server_ttft_p90_ms<=50``)."""

from __future__ import annotations

import pytest

from analysis.cli import main
from analysis.errors import InputError
from analysis.figures import slo
from sparkload.records import EXIT_CHECK_FAILED
from tests.analysis_synthetic import make_record, write_run


@pytest.fixture
def drafted(tmp_path):
    """C=1 accepts 3.5 tokens a step, C=2 only 2.0; server TTFT 20 then 80 ms."""
    records = [
        make_record(
            c,
            index,
            ttft=0.1,
            itl=0.01,
            tps=50,
            latency=1.0,
            start_time=100.0 * c + i,
            acceptance_length=length,
            acceptance_rate=(length - 1) / 3,
            server_queue=0.001,
            server_ttft=server_ttft,
        )
        for index, (c, length, server_ttft) in enumerate([(1, 3.5, 0.02), (2, 2.0, 0.08)])
        for i in range(4)
    ]
    return write_run(tmp_path / "results", "ngram", records)


def test_acceptance_length_is_a_bound_name():
    (bound,) = slo.parse("acceptance_length_p50>=2.5", "--check")
    assert (bound.field, bound.stat, bound.name) == (
        "acceptance_length",
        "p50",
        "acceptance_length_p50",
    )


def test_a_server_time_bound_reads_in_ms():
    (bound,) = slo.parse("server_ttft_p90_ms<=50", "--check")
    assert (bound.field, bound.threshold, bound.name) == ("server_ttft", 50.0, "server_ttft_p90_ms")


def test_acceptance_length_takes_no_unit():
    with pytest.raises(
        InputError, match="acceptance_length takes no unit \\(a count or a ratio\\)"
    ):
        slo.parse("acceptance_length_p50_ms>=2.5", "--check")


def test_check_names_the_level_whose_acceptance_fell_short(drafted, capsys):
    code = main([str(drafted), "--check", "acceptance_length_p50>=2.5", "--quiet"])
    out = capsys.readouterr().out
    assert code == EXIT_CHECK_FAILED
    assert "C=2: acceptance_length_p50 = 2 < 2.5" in out
    assert "C=1" not in out


def test_check_passes_where_every_level_accepts_enough(drafted, capsys):
    assert (
        main(
            [str(drafted), "--check", "acceptance_length_p50>=2,server_queue_p90_ms<=2", "--quiet"]
        )
        == 0
    )


def test_a_run_whose_server_sent_no_drafts_fails_an_acceptance_bound(tmp_path, capsys):
    plain = [
        make_record(1, 0, ttft=0.1, itl=0.01, tps=50, latency=1.0, start_time=100.0 + i)
        for i in range(3)
    ]
    run = write_run(tmp_path / "results", "plain", plain)
    assert main([str(run), "--check", "acceptance_length_p50>=2.5", "--quiet"]) == EXIT_CHECK_FAILED
    assert "no ok request records acceptance_length" in capsys.readouterr().out
