"""Traffic classes (``--tenants``): each class's figures in the mix and its own service level.

One table per label: per level and class, the headline figures over the class's requests alone,
its share of the level's tokens, and its SLO's verdict (``analysis/figures/tenants.py``
defines every column), then one line per class that misses its SLO at a level.
"""

from __future__ import annotations

from analysis.document import Block, Section
from analysis.figures import tenants
from analysis.sections import Context
from analysis.views.tables import Table, slug

TITLE = "Tenants"
METHOD = (
    "Each class of the run's `--tenants` file, its users (an open loop's arrivals) dealt by "
    "their number in the run so that its share of every level is exact (within one where "
    "share x users is not whole). Figures per level over the class's measured requests alone,"
    " by the report's definitions: TTFT, TTFO, ITL (ms), TPS (output tok/s per user) and "
    "latency (s), mean, p50 and p90, over its successful requests; `n` and `failures` count "
    "them. `token_share`: the class's prompt and output tokens over all classes' at the "
    "level. Against the class's own `slo` (`--check`'s syntax): `meets_slo` whether every "
    "bound holds at the level (percentile bounds on the class's requests), `slo_attainment` "
    "the share of its measured requests meeting every bound (a failure misses it), "
    "`goodput_rps` those requests per second of the class's level. `sparkload report --check "
    "tenants` (and `run --check tenants`) fails a run on any class missing its SLO, naming "
    "it."
)
ALONE = (
    "`--tenant-baselines`: before the mix, each class ran alone (`alone_users`: its share of "
    "the first mix level's users, at least one, `--requests-per-user` each; those levels are "
    "no level of the run's tables). Per class and mix level, a figure alone, in the mix, and "
    "their ratio mix / alone: the interference of the other classes (above 1 for TTFT, ITL "
    "and latency, below 1 for TPS, is the class served worse beside them)."
)
RATIOS = {
    column: "{:.3g}" if column.endswith("_ratio") else "{:.2f}"
    for column in tenants.ALONE_COLUMNS
    if column.endswith(("_alone", "_mix", "_ratio"))
}
FORMATS = {
    "share": "{:.3g}",
    "token_share": "{:.3f}",
    "slo_attainment": "{:.3f}",
    "goodput_rps": "{:.2f}",
    **{column: "{:.2f}" for column in tenants.HEADLINE},
}


def build(context: Context) -> Section | None:
    verdicts = tenants.judge(context.dataset, context.settings)
    if not verdicts:
        return None
    frame = tenants.table(verdicts)
    blocks: list[Block] = [METHOD]
    for label in dict.fromkeys(frame["label"]):
        rows = frame[frame["label"] == label].drop(columns=["label"])
        shown = rows.dropna(axis=1, how="all")
        blocks.append(Table(f"tenants_{slug(str(label))}", f"Classes of {label}", shown, FORMATS))
    beside = tenants.interference(verdicts)
    if not beside.empty:
        blocks.append(ALONE)
        blocks.append(Table("tenants_alone", "Each class alone and in the mix", beside, RATIOS))
    blocks += [
        f"{verdict.label}: class {verdict.spec.name} misses its SLO ({verdict.spec.slo}): "
        + "; ".join(str(breach).removeprefix(f"{verdict.label} ") for breach in verdict.breaches)
        for verdict in verdicts
        if verdict.breaches
    ]
    return Section(TITLE, blocks)
