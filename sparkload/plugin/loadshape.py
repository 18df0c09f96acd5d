"""The one LoadTestShape of sparkload; the load shape it follows is chosen by the options."""

from __future__ import annotations

from locust import LoadTestShape

from sparkload.plugin.controller import controller_of
from sparkload.shapes import Tick


class SparkloadShape(LoadTestShape):
    """Ladder (default), time-based steps (--step-duration) or open loop (--arrival-rate)."""

    def tick(self) -> Tick:
        assert self.runner is not None
        return controller_of(self.runner.environment).tick()
