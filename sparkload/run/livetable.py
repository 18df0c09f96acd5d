"""The per-level table shown live (web UI tab, console) and at the end of a run.

From the records the master holds (not Locust's bucketed statistics): measured requests only,
warm-up excluded, failures counted and left out of the figures. Means and counts are exact.
Percentiles interpolate linearly over the exact values, the default of ``analysis``, up to
``EXACT_VALUES`` requests a level; beyond that a level's values go into a DDSketch (relative
error under 1 %), so an hour-long level of a million requests holds as little memory as one of
twenty thousand. The report, from the records, is always exact.

A run whose records reasoned or called tools (a thinking model's, an agent's) shows TTFO, the
time to first output token (reasoning excluded: a thinking model's time to answer), beside TTFT,
and how many requests never answered within max_tokens (``no answer``: they reasoned until the
limit, finish ``length``, without a first output token; they have no TTFO and are not in its
figures); a plain run's table has its columns as always (``columns_for``), and a
level of such a run whose records neither reasoned nor called tools shows dashes there.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from ddsketch import DDSketch

from sparkload.records import (
    CHECK_NO_DATA,
    FINISH_LENGTH,
    PHASE_BASELINE,
    PHASE_MEASURE,
    QUANTILES,
    REQUEST_METRICS,
    STATUS_OK,
    STRUCTURED_PARSE_ERROR,
    STRUCTURED_SCHEMA_ERROR,
    STRUCTURED_TRUNCATED,
    STRUCTURED_VALID,
    LiveFigures,
    PrecisionTarget,
    Reached,
    RequestMetric,
    linear_percentile,
    reach,
)

EXACT_VALUES = 20_000  # values per metric and level kept exactly; a sketch beyond
SKETCH_ACCURACY = 0.01  # the sketch's relative error bound
RECENT_TTFTS = 256  # the latest TTFTs a level keeps in order (the over-saturation watch's)

HEAD_COLUMNS = (("level", "C / rate"), ("n", "n"), ("failures", "fail"))
TAIL_COLUMNS = (
    ("system_rps", "system RPS"),
    ("total_tps", "total tok/s"),
    ("client", "client check"),
    ("stream", "stream check"),
)
NO_ANSWER_COLUMN = ("no_answer", "no answer")  # the requests without a TTFO, beside its columns
# --target-precision: each target's reached half-width (``reached_ttft_p90``), then the
# requests the level still needs by the estimate ("capped" once it stopped at the cap)
PRECISION_PREFIX = "reached_"
LEFT_COLUMN = ("precision_left", "to go")


@dataclass(frozen=True)
class _Cell:
    """A live metric's statistic in a row: its key (``ttft_ms_p50``), its title (the metric's
    heading on its first statistic only: "TTFT ms mean", "p50", "p90"), and its quantile (None:
    the mean)."""

    key: str
    title: str
    quantile: float | None


def _cells(metric: RequestMetric, live: LiveFigures) -> tuple[_Cell, ...]:
    return tuple(
        _Cell(
            f"{metric.column}_{stat}", stat if i else f"{live.heading} {stat}", QUANTILES.get(stat)
        )
        for i, stat in enumerate(live.stats)
    )


# The per-request metrics the table shows (``RequestMetric.live``) with their cells, in the
# declarations' order; a thinking one's only in a thinking model's or an agent's table.
LIVE_METRICS = tuple((m, _cells(m, m.live)) for m in REQUEST_METRICS if m.live is not None)
_LIVE_FIELDS = tuple(m.field for m, _ in LIVE_METRICS)  # what ``add`` reads of each record


def _table_columns(thinking: bool) -> tuple[tuple[str, str], ...]:
    columns = list(HEAD_COLUMNS)
    for metric, cells in LIVE_METRICS:
        if thinking or not metric.thinking:
            columns += [(cell.key, cell.title) for cell in cells]
            if metric.field == "ttfo":
                columns.append(NO_ANSWER_COLUMN)
    return (*columns, *TAIL_COLUMNS)


COLUMNS = _table_columns(thinking=False)
# A thinking model's or an agent's run: TTFO after TTFT's columns, and the requests without one.
THINKING_COLUMNS = _table_columns(thinking=True)
# --response-format: the share of finished replies that match (truncated ones apart), and each
# failure kind's count (the report's schema_valid_ratio, ``analysis/figures/structured.py``)
STRUCTURED_COLUMNS = (
    ("schema_valid_pct", "schema valid %"),
    ("parse_error", "parse err"),
    ("schema_error", "schema err"),
    ("truncated", "truncated"),
)


def columns_for(rows: list[dict]) -> tuple[tuple[str, str], ...]:
    """The table's columns for ``rows``: TTFO's too once some level's records reasoned or
    called tools (their rows have ``no_answer``), else the plain table's; the structured
    replies' once some level's records carry a verdict; and each precision target's reached
    half-width with the requests still to go, under --target-precision."""
    columns = THINKING_COLUMNS if any("no_answer" in row for row in rows) else COLUMNS
    if any("schema_valid_pct" in row for row in rows):
        columns = (*columns[:-2], *STRUCTURED_COLUMNS, *columns[-2:])
    targets = [
        key
        for key in dict.fromkeys(k for row in rows for k in row)
        if key.startswith(PRECISION_PREFIX)
    ]
    if targets:
        titles = [(key, f"{key.removeprefix(PRECISION_PREFIX)} ±%") for key in targets]
        columns = (*columns[:-2], *titles, LEFT_COLUMN, *columns[-2:])
    return columns


class Distribution:
    """One metric's values over a level: an exact mean and count, and percentiles that are exact
    (linear) up to ``EXACT_VALUES`` values and from a DDSketch beyond, in bounded memory."""

    __slots__ = ("count", "sketch", "total", "values")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.values: list[float] = []
        self.sketch: DDSketch | None = None

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        if self.sketch is not None:
            self.sketch.add(value)
            return
        self.values.append(value)
        if len(self.values) > EXACT_VALUES:
            self.sketch = DDSketch(relative_accuracy=SKETCH_ACCURACY)
            for kept in self.values:
                self.sketch.add(kept)
            self.values = []

    @property
    def exact(self) -> bool:
        return self.sketch is None

    def mean(self) -> float | None:
        return self.total / self.count if self.count else None

    def quantile(self, q: float) -> float | None:
        if self.sketch is not None:
            return self.sketch.get_quantile_value(q)
        return linear_percentile(sorted(self.values), q) if self.values else None

    def sorted_values(self) -> list[float] | None:
        """Every value, ascending (None past ``EXACT_VALUES``: a sketch holds them)."""
        return sorted(self.values) if self.sketch is None else None


@dataclass
class LevelTally:
    """One level's records as they arrive: the live table's row, and whether the level is
    complete.

    A ladder level needs ``sessions`` sessions (C x requests-per-user: a request of its own, or
    a conversation, ``workloads/contract.py``). ``expected`` is the measured requests they make:
    known from the start when every session has the same number, else set once every session's
    first record is in, from the turns each one carries. Either way the level is complete when
    that many measured records are in, whatever order they come in.
    """

    index: int
    concurrency: int
    expected: int | None  # measured requests the level needs (None: not known, or not counted)
    arrival_rate: float | None = None  # open loop: the offered rate; C (the pool) means nothing
    time_scale: float = 1.0  # records arrive in simulated time; their start times do not
    sessions: int | None = None  # ladder: the sessions the level needs (None: not counted)
    sessions_begun: int = 0  # sessions whose first measured record is in
    planned: int = 0  # the requests those sessions hold
    # each live metric's values, by its record field
    figures: dict[str, Distribution] = field(
        default_factory=lambda: {name: Distribution() for name in _LIVE_FIELDS}
    )
    thinking: bool = False  # some record reasoned or called tools: the row shows TTFO
    no_answer: int = 0  # ok records that reasoned until max_tokens without a first output token
    verdicts: Counter = field(default_factory=Counter)  # ok records' structured verdicts
    measured: int = 0
    output_tokens: int | None = None  # None: no record counted any (an embeddings level)
    first_start: float | None = None  # epoch seconds (real time)
    last_end: float | None = None
    warmups: int = 0
    failures: int = 0
    error_kinds: Counter = field(default_factory=Counter)
    # the latest answers' TTFTs in arrival order (``ttft.count`` says how many came in all)
    recent_ttfts: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT_TTFTS))
    # --target-precision: what the level must reach (``aim``), and whether it stopped at the
    # cap with a target unmet (the shape says so)
    targets: tuple[PrecisionTarget, ...] = ()
    capped: bool = False

    def aim(self, targets: tuple[PrecisionTarget, ...]) -> None:
        """Track ``targets`` (before the level's first record): their metrics' values too."""
        self.targets = targets
        for target in targets:
            self.figures.setdefault(target.field, Distribution())

    def precision(self) -> list[Reached]:
        """What the answered requests so far reach of each target (``records.reach``: the
        report's own computation, on the same values)."""
        return [reach(t, self.figures[t.field].sorted_values() or []) for t in self.targets]

    def extend(self, sessions: int, per_session: int | None) -> None:
        """The level now needs ``sessions`` sessions (more than before): its count is
        ``per_session`` requests each, or, drawn per conversation, known once all began."""
        self.sessions = sessions
        self.expected = sessions * per_session if per_session else None

    def add(self, record: dict) -> None:
        """Take one record (already in simulated time when the target is time-scaled)."""
        if record["phase"] not in (PHASE_MEASURE, PHASE_BASELINE):
            self.warmups += 1
            return
        self.measured += 1
        if record.get("turn") in (None, 1):  # a session begins (a request of its own, or turn 1)
            self.sessions_begun += 1
            self.planned += record.get("turns") or 1
            if self.sessions_begun == self.sessions:
                self.expected = self.planned
        start, latency = record.get("start_time"), record.get("latency")
        if start is not None and latency is not None:
            end = start + latency / self.time_scale
            self.first_start = start if self.first_start is None else min(self.first_start, start)
            self.last_end = end if self.last_end is None else max(self.last_end, end)
        if record["status"] != STATUS_OK:
            self.failures += 1
            self.error_kinds[record.get("error_kind") or "unknown"] += 1
            return
        for name, values in self.figures.items():
            value = record.get(name)
            if value is not None:
                values.add(value)
        reasoning = record.get("reasoning_tokens")
        if reasoning or record.get("tool_calls"):
            self.thinking = True
            if (
                reasoning
                and record.get("ttfo") is None
                and record.get("finish_reason") == FINISH_LENGTH
            ):
                self.no_answer += 1
        if verdict := record.get("structured"):
            self.verdicts[verdict] += 1
        if record.get("ttft") is not None:
            self.recent_ttfts.append(record["ttft"])
        if (tokens := record.get("output_tokens")) is not None:
            self.output_tokens = (self.output_tokens or 0) + tokens

    @property
    def ttft(self) -> Distribution:
        return self.figures["ttft"]

    @property
    def tps(self) -> Distribution:
        return self.figures["tps"]

    @property
    def latency(self) -> Distribution:
        return self.figures["latency"]

    @property
    def complete(self) -> bool:
        return self.expected is not None and self.measured >= self.expected

    @property
    def wall_time(self) -> float | None:
        """First send to last end of the level's measured requests, in simulated time."""
        if self.first_start is None or self.last_end is None:
            return None
        return (self.last_end - self.first_start) * self.time_scale

    @property
    def name(self) -> str:
        """The level as the table's first column names it: C ("4"), or the offered rate."""
        if self.arrival_rate is not None:
            return f"{self.arrival_rate:.4g}/s"
        return str(self.concurrency)

    @property
    def total_tps(self) -> float | None:
        """Output tokens per second of the whole level so far (simulated time). Closed loop:
        mean TPS x C, the reports' figure; open loop: tokens over the level's wall time."""
        if self.arrival_rate is not None:
            wall = self.wall_time
            return self.output_tokens / wall if wall and self.output_tokens is not None else None
        mean_tps = self.tps.mean()
        return mean_tps * self.concurrency if mean_tps is not None else None

    def row(self) -> dict:
        """The live table's row. Closed loop: the reports' C-based figures. Open loop: C is only
        the pool size, so the rate columns are what was achieved over the level's wall time."""
        mean_latency = self.latency.mean()
        if self.arrival_rate is not None:
            wall = self.wall_time
            system_rps = (self.measured - self.failures) / wall if wall else None
            level: int | str = self.name
        else:
            system_rps = self.concurrency / mean_latency if mean_latency else None
            level = self.concurrency
        row = {
            "level": level,
            "n": self.measured - self.failures,
            "failures": self.failures,
            **self._figures(thinking=False),
            "system_rps": system_rps,
            "total_tps": self.total_tps,
        }
        if self.thinking:  # a thinking model's or an agent's level: its time to answer
            row.update(self._figures(thinking=True), no_answer=self.no_answer)
        if self.targets:
            row.update(self._precision_cells())
        if self.verdicts:  # --response-format
            valid, parse_error = (
                self.verdicts[STRUCTURED_VALID],
                self.verdicts[STRUCTURED_PARSE_ERROR],
            )
            schema_error = self.verdicts[STRUCTURED_SCHEMA_ERROR]
            finished = valid + parse_error + schema_error
            row.update(
                schema_valid_pct=valid / finished * 100 if finished else None,
                parse_error=parse_error,
                schema_error=schema_error,
                truncated=self.verdicts[STRUCTURED_TRUNCATED],
            )
        return row

    def _precision_cells(self) -> dict[str, float | int | str | None]:
        """Each target's reached half-width in percent (None: no interval yet) and the
        requests still to go by the estimate (the most any target needs), or "capped"."""
        reached = self.precision()
        cells: dict[str, float | int | str | None] = {
            PRECISION_PREFIX + r.target.name: None if r.half_width is None else 100 * r.half_width
            for r in reached
        }
        left = [r.requests_left for r in reached]
        cells[LEFT_COLUMN[0]] = (
            "capped" if self.capped else max((n for n in left if n is not None), default=None)
        )
        return cells

    def _figures(self, thinking: bool) -> dict[str, float | None]:
        """The live metrics' cells (the thinking ones', or the others'), in their units."""
        out = {}
        for metric, cells in LIVE_METRICS:
            if metric.thinking == thinking:
                values = self.figures[metric.field]
                for cell in cells:
                    value = (
                        values.mean() if cell.quantile is None else values.quantile(cell.quantile)
                    )
                    out[cell.key] = _scaled(value, metric.factor)
        return out


NO_DATA = CHECK_NO_DATA  # a check's cell where the level has no answered request to judge


def check_cell(flags: list[str], answered: int, judged: bool = True) -> str:
    """A check's cell: its flags, else "ok" once judged; ``NO_DATA`` when no request was
    answered (a level that failed throughout is not a clean one), and blank before judging."""
    if flags:
        return "; ".join(flags)
    if not judged:
        return ""
    return "ok" if answered else NO_DATA


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def format_table(rows: list[dict]) -> str:
    """A fixed-width text table of ``rows`` (dicts keyed like ``columns_for(rows)``)."""
    columns = columns_for(rows)
    headers = [title for _, title in columns]
    cells = [[_fmt(row.get(key)) for key, _ in columns] for row in rows]
    widths = [
        max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=False))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=False)) for row in cells]
    return "\n".join(lines)


def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)
