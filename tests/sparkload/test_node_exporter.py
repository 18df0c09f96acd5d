"""sparkload node-exporter: nvidia-smi's query parsed, energy integrated, failures said once."""

from __future__ import annotations

import sys

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from sparkload.node_exporter import (
    GpuReading,
    HostReading,
    Sampler,
    StateCollector,
    nvidia_smi_command,
    parse_query,
)
from sparkload.records import telemetry_family

LINE = "123.45, 2405, 3003, 61, 87"
HOST = HostReading(cpu_busy_pct=12.5, memory_used_bytes=40e9, memory_total_bytes=128e9)


def test_the_query_is_the_five_fields_without_header_or_units():
    assert nvidia_smi_command() == [
        "nvidia-smi",
        "--query-gpu=power.draw,clocks.sm,clocks.max.sm,temperature.gpu,utilization.gpu",
        "--format=csv,noheader,nounits",
    ]


def test_one_line_is_one_gpus_power_clocks_temperature_and_utilization():
    assert parse_query(LINE + "\n") == [GpuReading(123.45, 2405.0, 3003.0, 61.0, 87.0)]


def test_every_line_is_a_gpu_in_nvidia_smis_order():
    assert [g.power_w for g in parse_query(f"{LINE}\n40.0, 600, 3003, 45, 0\n")] == [123.45, 40.0]


def test_a_field_nvidia_smi_cannot_read_is_left_out():
    reading = parse_query("[N/A], 2405, [Not Supported], 61, 87")[0]
    assert (reading.power_w, reading.sm_clock_max_mhz) == (None, None)


@pytest.mark.parametrize("output", ["", "123.45, 2405, 3003\n", "hot, 2405, 3003, 61, 87\n"])
def test_output_that_is_not_the_query_is_a_value_error(output):
    with pytest.raises(ValueError):
        parse_query(output)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def printing(text: str) -> list[str]:
    """A stand-in nvidia-smi: this Python prints ``text``."""
    return [sys.executable, "-c", f"print({text!r})"]


def sampler(command: list[str], said: list[str], clock: Clock | None = None) -> Sampler:
    return Sampler(command, 5.0, said.append, clock or Clock(), host=lambda: HOST)


def test_energy_is_power_integrated_over_the_samples():
    clock, said = Clock(), []
    gpus = sampler(printing(LINE), said, clock)
    gpus.sample()
    clock.now = 2.0
    gpus.sample()
    assert gpus.state.energy_j == [pytest.approx(2 * 123.45)]
    assert said == []


def test_the_served_energy_carries_the_last_power_on_to_the_moment_of_the_scrape():
    clock = Clock()
    gpus = sampler(printing(LINE), [], clock)
    gpus.sample()
    clock.now = 0.5
    assert gpus.energy_now() == [pytest.approx(0.5 * 123.45)]


def test_the_served_energy_never_goes_down_when_the_power_drops(tmp_path):
    reading = tmp_path / "reading"
    clock = Clock()
    gpus = sampler([sys.executable, "-c", f"print(open({str(reading)!r}).read())"], [], clock)
    served = []
    for now, watts in ((0.0, 100.0), (1.0, 0.0), (2.0, 50.0)):
        reading.write_text(f"{watts}, 2405, 3003, 61, 87")
        clock.now = now
        gpus.sample()
        served.append(gpus.energy_now()[0])
        clock.now = now + 0.9
        served.append(gpus.energy_now()[0])
    assert served == sorted(served)
    assert served[-1] == pytest.approx(100.0 + 0.0 + 50.0 * 0.9)


def test_a_missing_nvidia_smi_is_one_line_and_the_host_is_still_read():
    said: list[str] = []
    gpus = sampler(["/nonexistent/nvidia-smi"], said)
    gpus.sample()
    gpus.sample()
    assert said == ["/nonexistent/nvidia-smi not found; serving the host's CPU and memory only"]
    assert (gpus.state.nvidia_smi_up, gpus.state.gpus, gpus.state.host) == (False, [], HOST)


def test_a_failing_nvidia_smi_is_one_line_until_it_answers_again(tmp_path):
    said: list[str] = []
    flag = tmp_path / "broken"
    flag.write_text("")
    script = (
        "import os, sys\n"
        f"if os.path.exists({str(flag)!r}):\n"
        "    sys.exit('NVML: Driver/library version mismatch')\n"
        f"print({LINE!r})\n"
    )
    gpus = sampler([sys.executable, "-c", script], said)
    gpus.sample()
    gpus.sample()
    assert len(said) == 1 and "Driver/library version mismatch" in said[0]
    assert not gpus.state.nvidia_smi_up
    flag.unlink()
    gpus.sample()
    assert said[1:] == [f"{sys.executable} answers again"]
    assert gpus.state.nvidia_smi_up


def test_an_nvidia_smi_that_hangs_is_given_up_after_the_timeout():
    said: list[str] = []
    hung = Sampler([sys.executable, "-c", "import time; time.sleep(30)"], 0.5, said.append)
    hung.sample()
    assert said == [
        f"{sys.executable} failed (no answer within 0.5 s); GPU series left out until it answers"
    ]


def exposition(gpus: Sampler) -> dict[str, float]:
    registry = CollectorRegistry()
    registry.register(StateCollector(gpus))
    text = generate_latest(registry).decode()
    return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples}


def test_the_metrics_carry_the_gpus_readings_energy_and_the_host():
    gpus = sampler(printing(LINE), [])
    gpus.sample()
    served = exposition(gpus)
    assert served["sparkload_gpu_power_watts"] == 123.45
    assert served["sparkload_gpu_sm_clock_max_mhz"] == 3003.0
    assert served["sparkload_gpu_energy_joules_total"] == 0.0  # one sample: nothing integrated
    assert served["sparkload_host_memory_used_bytes"] == 40e9
    assert served["sparkload_nvidia_smi_up"] == 1.0


def test_without_an_answer_from_nvidia_smi_no_gpu_series_is_served():
    gpus = sampler(["/nonexistent/nvidia-smi"], [])
    gpus.sample()
    served = exposition(gpus)
    assert not [name for name in served if name.startswith("sparkload_gpu_")]
    assert served["sparkload_nvidia_smi_up"] == 0.0
    assert served["sparkload_host_cpu_busy_percent"] == 12.5


def test_every_series_the_exporter_serves_is_one_the_scraper_keeps_and_the_analysis_reads():
    gpus = sampler(printing(LINE), [])
    gpus.sample()
    served = set(exposition(gpus)) - {"sparkload_nvidia_smi_up"}
    assert [name for name in served if telemetry_family(name) is None] == []
