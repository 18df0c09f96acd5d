"""sparkload's main job: streaming chat completions on the concurrency ladder.

    locust -f locustfiles/chat.py --headless                 # against the built-in simulator
    locust -f locustfiles/chat.py --headless -H http://spark:8000 --variant nvfp4-mtp
    locust -f locustfiles/chat.py                             # web UI on http://127.0.0.1:8089

``sparkload run [options]`` is the same run; ``sparkload run --help`` lists every option (Locust
reads a locustfile's options only after its own --help has been answered). See README.md and
docs/ (docs/first-run.md first).
"""

from sparkload.plugin import install
from sparkload.plugin.loadshape import SparkloadShape  # noqa: F401 - Locust picks the shape up from here
from sparkload.plugin.user import ChatUser  # noqa: F401 - and the user class

install()
