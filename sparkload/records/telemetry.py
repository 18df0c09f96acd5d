"""Node telemetry: the Prometheus families beside ``vllm:`` a snapshot in server_metrics.jsonl
may carry, the one list the scraper keeps and the analysis reads."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TelemetryFamily:
    """A Prometheus family of node telemetry that a snapshot in server_metrics.jsonl may carry.

    ``name`` is the family as exposed (a counter's samples add ``_total``); ``scale`` turns its
    values into the quantity's unit: joules, watts, MHz, degrees Celsius, percent, seconds or
    bytes."""

    name: str
    quantity: str
    scale: float = 1.0


# Quantities of node telemetry (``TelemetryFamily.quantity``).
ENERGY = "energy_j"  # a counter: the delta over a level is its energy
POWER = "power_w"  # a gauge: integrated over the level's samples when no counter is there
SM_CLOCK = "sm_clock_mhz"
SM_CLOCK_MAX = "sm_clock_max_mhz"
TEMPERATURE = "temperature_c"
GPU_UTIL = "gpu_util_pct"
CPU_SECONDS = "cpu_seconds"  # node_exporter's per-CPU, per-mode counter (label ``mode``)
CPU_BUSY = "cpu_busy_pct"
MEMORY_USED = "memory_used_bytes"
MEMORY_TOTAL = "memory_total_bytes"
MEMORY_AVAILABLE = "memory_available_bytes"

# Every family the scraper keeps beside ``vllm:``, in order of preference within a quantity:
# dcgm-exporter's DCGM fields (power in W, energy in mJ since boot), ``sparkload node-exporter``
# (nvidia-smi once a second, energy integrated there), node_exporter's hwmon, cpu and meminfo
# collectors. Written by ``sparkload.run.scrape`` and ``sparkload node-exporter``, read by
# ``analysis/reading/telemetry.py``.
TELEMETRY = (
    TelemetryFamily("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", ENERGY, 1e-3),
    TelemetryFamily("sparkload_gpu_energy_joules", ENERGY),
    TelemetryFamily("node_hwmon_energy_joule", ENERGY),
    TelemetryFamily("DCGM_FI_DEV_POWER_USAGE", POWER),
    TelemetryFamily("sparkload_gpu_power_watts", POWER),
    TelemetryFamily("node_hwmon_power_average_watt", POWER),
    TelemetryFamily("node_hwmon_power_input_watt", POWER),
    TelemetryFamily("DCGM_FI_DEV_SM_CLOCK", SM_CLOCK),
    TelemetryFamily("sparkload_gpu_sm_clock_mhz", SM_CLOCK),
    TelemetryFamily("DCGM_FI_DEV_MAX_SM_CLOCK", SM_CLOCK_MAX),
    TelemetryFamily("sparkload_gpu_sm_clock_max_mhz", SM_CLOCK_MAX),
    TelemetryFamily("DCGM_FI_DEV_GPU_TEMP", TEMPERATURE),
    TelemetryFamily("sparkload_gpu_temperature_celsius", TEMPERATURE),
    TelemetryFamily("node_hwmon_temp_celsius", TEMPERATURE),
    TelemetryFamily("DCGM_FI_DEV_GPU_UTIL", GPU_UTIL),
    TelemetryFamily("sparkload_gpu_utilization_percent", GPU_UTIL),
    TelemetryFamily("sparkload_host_cpu_busy_percent", CPU_BUSY),
    TelemetryFamily("node_cpu_seconds", CPU_SECONDS),
    TelemetryFamily("sparkload_host_memory_used_bytes", MEMORY_USED),
    TelemetryFamily("sparkload_host_memory_total_bytes", MEMORY_TOTAL),
    TelemetryFamily("node_memory_MemTotal_bytes", MEMORY_TOTAL),
    TelemetryFamily("node_memory_MemAvailable_bytes", MEMORY_AVAILABLE),
)


def telemetry_family(sample_name: str) -> TelemetryFamily | None:
    """The telemetry family a sample (or exposition line) belongs to, or None."""
    return _TELEMETRY_BY_NAME.get(sample_name.removesuffix("_total").removesuffix("_created"))


_TELEMETRY_BY_NAME = {family.name: family for family in TELEMETRY}
