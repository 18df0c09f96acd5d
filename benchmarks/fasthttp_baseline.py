"""The yardstick of the client's cost: a plain Locust FastHttpUser that streams chat completions.

What a careful Locust user writes without sparkload: ``FastHttpUser``, ``stream=True``, the body
read line by line with geventhttpclient's ``readline`` (its ``iter_lines`` and ``iter_content``
wait for 1,024 bytes and hold tokens back: Locust 2.47 notes, section 3), each ``data:`` line
decoded with ``json``, and two Locust events per request: TTFT and the whole request. No
records, no stamps, no failure classes. Each user sends ``REQUESTS_PER_USER`` requests (env
``BASELINE_REQUESTS``, default 3) and stops; the last one to finish ends the run.

    locust -f benchmarks/fasthttp_baseline.py --headless -H URL -u 256 -r 256 -t 300s
"""

from __future__ import annotations

import json
import os
import time

import gevent
from locust import FastHttpUser, constant, task
from locust.exception import StopUser

REQUESTS_PER_USER = int(os.environ.get("BASELINE_REQUESTS", "3"))
MAX_TOKENS = int(os.environ.get("BASELINE_MAX_TOKENS", "128"))
BODY = json.dumps(
    {
        "model": "reference",
        "messages": [{"role": "user", "content": "Say something."}],
        "max_tokens": MAX_TOKENS,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
)
HEADERS = {"Accept": "text/event-stream", "Accept-Encoding": "identity"}
finished_users = 0


class StreamingChatUser(FastHttpUser):
    wait_time = constant(0)
    sent = 0

    @task
    def chat(self) -> None:
        global finished_users
        if self.sent >= REQUESTS_PER_USER:
            finished_users += 1
            if finished_users == self.environment.parsed_options.num_users:  # all of them done
                gevent.spawn_later(0.1, self.environment.runner.quit)
            raise StopUser
        self.sent += 1
        start = time.perf_counter()
        ttft = None
        tokens = 0
        with self.client.post(
            "/v1/chat/completions", data=BODY, headers=HEADERS, stream=True, catch_response=True
        ) as response:
            stream = response._response
            while line := stream.readline():
                if not line.startswith(b"data: "):
                    continue
                data = line[6:].strip()
                if data == b"[DONE]":
                    continue  # read on to the end of the message: the socket goes back to the pool
                choices = json.loads(data).get("choices")
                if choices and choices[0].get("delta", {}).get("content"):
                    tokens += 1
                    if ttft is None:
                        ttft = time.perf_counter() - start
                        self.environment.events.request.fire(
                            request_type="TTFT",
                            name="chat",
                            response_time=1000 * ttft,
                            response_length=0,
                            exception=None,
                            context={},
                        )
            response.success()
