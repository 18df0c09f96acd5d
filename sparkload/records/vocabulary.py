"""The contract's vocabulary: file names, exit codes, workload names, statuses, failure and
stream-flag kinds, and which record fields are durations, rates and wall-clock times.

The load side writes these names and the analysis reads them; neither copies them.
"""

from __future__ import annotations

from sparkload.records.metrics import REQUEST_METRICS, SCALED_DURATION, SCALED_RATE

SCHEMA_VERSION = 1

# Exit codes of every entry point (the locustfile, ``sparkload`` and its subcommands, and
# ``python -m analysis``, whose ``--check`` code the load side passes on): the same numbers on
# both sides of the contract.
EXIT_OK = 0
EXIT_REQUESTS_FAILED = 1  # Locust's own rule: some request failed
EXIT_BAD_INPUT = 2  # one line on stderr, nothing sent
EXIT_ABORTED = 3  # the run had to stop early (e.g. a worker was lost); its records are kept
EXIT_CHECK_FAILED = 4  # --check: a level breached a service level
EXIT_INTERRUPTED = 130  # stopped before its plan finished: Ctrl-C (the shell's code), SIGTERM, STOP

# Workload names (``Manifest.workload.name``): what each run sent, as the analysis groups it.
WORKLOAD_CHAT, WORKLOAD_FRESH, WORKLOAD_EDIT = "chat", "fresh", "edit"
WORKLOAD_PREFILL, WORKLOAD_CONVERSATION = "prefill", "conversation"
WORKLOAD_AGENT = "agent"  # tool-calling sessions, synthetic or replayed (--agent-trace)
WORKLOAD_NAMES = (
    WORKLOAD_CHAT,
    WORKLOAD_FRESH,
    WORKLOAD_EDIT,
    WORKLOAD_PREFILL,
    WORKLOAD_CONVERSATION,
    WORKLOAD_AGENT,
)
WORKLOAD_TRACE = "trace"  # chosen by --trace, not by --workload
WORKLOAD_TENANTS = "tenants"  # chosen by --tenants: one workload per traffic class
CHECK_TENANTS = "tenants"  # --check tenants: every class held to its own SLO
# Wire API names (``--api``, ``Manifest.request``): each is one module of ``sparkload/apis/``.
API_CHAT = "chat"  # /v1/chat/completions
API_COMPLETIONS = "completions"  # /v1/completions
API_RESPONSES = "responses"  # /v1/responses
API_MESSAGES = "messages"  # /v1/messages (Anthropic's Messages API)
API_EMBEDDINGS = "embeddings"  # /v1/embeddings (one JSON body, not a stream)
API_NAMES = (API_CHAT, API_COMPLETIONS, API_RESPONSES, API_MESSAGES, API_EMBEDDINGS)
# A run's records: Parquet parts in a directory (records/requests_files.py says its layout);
# run directories of earlier versions hold JSON lines (``sparkload export --jsonl`` writes them)
REQUESTS_PARQUET = "requests.parquet"
REQUESTS_FILE = "requests.jsonl"
MANIFEST_FILE = "manifest.json"
SERVER_METRICS_FILE = "server_metrics.jsonl"

PHASE_WARMUP = "warmup"
PHASE_MEASURE = "measure"
# --tenant-baselines: a class alone before the mix, measured apart from the run's levels
PHASE_BASELINE = "baseline"
STATUS_OK = "ok"
STATUS_ERROR = "error"

# Run status (``Manifest.status``)
STATUS_RUNNING = "running"
STATUS_COMPLETE = "complete"
STATUS_STOPPED = "stopped"  # stopped by the user (Ctrl-C, SIGTERM, the web UI's STOP)
STATUS_ABORTED = "aborted"  # the plan could not be finished (e.g. a worker was lost)

# Failure classes (``error_kind``); HTTP failures are ``http_<code>``, e.g. ``http_500``.
ERROR_CONNECT = "connect"
ERROR_TIMEOUT = "timeout"
ERROR_DISCONNECT = "disconnect"  # stream ended without data: [DONE] (or response.completed)
ERROR_MALFORMED_SSE = "malformed_sse"
ERROR_MALFORMED_BODY = "malformed_body"  # a whole JSON response (not a stream) that does not parse
ERROR_SERVER_EVENT = "server_error_event"  # {"error": ...} inside a 200 stream
ERROR_EMPTY_OUTPUT = "empty_output"  # neither a token nor a finish reason (an empty reply is ok)
ERROR_CLIENT = "client_error"  # a fault of the load generator itself (always a bug to report)

# What a level's stream check can say (``LevelEntry.stream_flag_kinds``; ``sparkload.streamcheck``
# decides). The first two mean TTFT and ITL time bursts, not decode steps (the flag names whose:
# an intermediary's, the client's or the server's own): ``--check`` fails such a level by
# default. The others qualify a figure but keep it.
STREAM_COLLAPSED = "collapsed"
STREAM_PARTIAL_BURST = "partial_burst"
STREAM_HEADERS_HELD = "headers_held"
STREAM_LONG_TAIL = "long_tail"
STREAM_CLOCK_ADJUSTED = "clock_adjusted"
STREAM_MEANINGLESS = (STREAM_COLLAPSED, STREAM_PARTIAL_BURST)
# What a level's client or stream check shows where the level has no answered request to judge
CHECK_NO_DATA = "no data"

# Fields measured in seconds (multiplied by the time scale) and in per-second rates (divided):
# as the per-request metrics' declarations (``metrics.REQUEST_METRICS``) say.
DURATION_FIELDS = tuple(m.field for m in REQUEST_METRICS if m.time == SCALED_DURATION)
RATE_FIELDS = tuple(m.field for m in REQUEST_METRICS if m.time == SCALED_RATE)
# Fields that are wall-clock times (epoch seconds): on the master's clock once the master took the
# record (shifted by the sending worker's clock offset, ``RequestRecord.clock_offset``).
WALL_CLOCK_FIELDS = ("start_time", "scheduled_time")


def http_error_kind(status_code: int) -> str:
    return f"http_{status_code}"


# An agent's request (``RequestRecord.step``): what the step asked of the model, a tool call
# (the agent runs the tool and asks again with its result) or the answer to the user's turn.
STEP_TOOL_CALL, STEP_ANSWER = "tool_call", "answer"
STEPS = (STEP_TOOL_CALL, STEP_ANSWER)
# The finish_reason of a reply cut by max_tokens: a structured reply's or a tool call's arguments
# are then truncated, and a reply with no output token yet never answered (``no_answer``).
FINISH_LENGTH = "length"
# A structured reply's verdict (``RequestRecord.structured``, with --response-format): it parses
# and matches the schema, it is not JSON, it is JSON that does not match, or it was cut by
# max_tokens (finish_reason "length"), its own kind whatever its text.
STRUCTURED_VALID, STRUCTURED_PARSE_ERROR = "valid", "parse_error"
STRUCTURED_SCHEMA_ERROR, STRUCTURED_TRUNCATED = "schema_error", "truncated"
STRUCTURED_VERDICTS = (
    STRUCTURED_VALID,
    STRUCTURED_PARSE_ERROR,
    STRUCTURED_SCHEMA_ERROR,
    STRUCTURED_TRUNCATED,
)
# What kind of JSON a parse_error reply was not (``RequestRecord.structured_error``): empty; not
# JSON at all (prose, a markdown fence); a raw control character inside a string (JSON wants it
# escaped: a grammar that lets one through makes replies no parser reads); ended before its JSON
# did (though not at max_tokens: that is ``truncated``); a whole JSON value with more after it;
# any other syntax error.
PARSE_EMPTY, PARSE_NOT_JSON, PARSE_CONTROL_CHARACTER = "empty", "not_json", "control_character"
PARSE_INCOMPLETE, PARSE_TRAILING_DATA, PARSE_SYNTAX = "incomplete", "trailing_data", "syntax"
PARSE_ERROR_KINDS = (
    PARSE_EMPTY,
    PARSE_NOT_JSON,
    PARSE_CONTROL_CHARACTER,
    PARSE_INCOMPLETE,
    PARSE_TRAILING_DATA,
    PARSE_SYNTAX,
)
# Who counted a figure (``tokens_counted_by``, ``reasoning_counted_by``): the server's usage, or
# the client from the stream's chunks (one token a chunk: a lower bound with MTP).
COUNTED_BY_USAGE, COUNTED_BY_CHUNKS = "usage", "chunks"
