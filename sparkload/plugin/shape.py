"""The one LoadTestShape of sparkload; the load profile it follows is chosen by the options."""

from __future__ import annotations

from locust import LoadTestShape

from sparkload.plugin import core


class SparkloadShape(LoadTestShape):
    """Ladder (default), time-based steps (--step-duration) or open loop (--arrival-rate)."""

    def tick(self):
        return core.get(self.runner.environment).tick()
