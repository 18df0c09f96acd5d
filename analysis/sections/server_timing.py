"""What the server saw (vLLM's per-request metrics): the client's TTFT split into the server's
queue, its prefill to the first token and the rest, per level; the server's ITL beside the
client's; and speculative decoding's acceptance per level, pooled and by category."""

from __future__ import annotations

from analysis.document import Block, Section
from analysis.figures import server_timing
from analysis.sections import Context, image
from analysis.views import server_views
from analysis.views.tables import labels_of

TITLE = "What the server saw"
SPLIT_RULE = (
    "A server started with vLLM's `--enable-per-request-metrics` times each request itself and "
    "sends it with the reply (the last chunk): its queue (queued → scheduled) and its TTFT "
    "(scheduled → first token: the prefill, the step that gives the first token). The client's "
    "TTFT = server queue + server TTFT + the rest: the network both ways, HTTP, the server's "
    "front end (tokenization, detokenization, the stream's framing). Means over the ok measured "
    "requests that carry both server times, so the parts add up to the client's mean. A level "
    "whose TTFT grew by its queue waits for a batch slot; one whose server TTFT grew has "
    "prefills contending. The server's ITL is its own decode interval / (tokens − 1), beside "
    "the client's."
)
DRAFTING_RULE = (
    "With `--per-request-spec-decode-metrics summary` vLLM also counts each request's verify "
    "steps: acceptance length = tokens per verify step (the bonus token included: 1 to k + 1), "
    "acceptance rate = accepted drafts / drafted tokens, and a histogram of the steps by the "
    "drafts they accepted (0 to k). The pooled histogram is the sum of the records' histograms; "
    "its acceptance length is 1 + accepted / steps. TPOT is the client's ITL of the same "
    "requests. `--check 'acceptance_length_p50>=2.5'` holds a run to it."
)


def _split_blocks(context: Context, splits, label: str) -> list[Block]:
    mine = server_views.closed_loop(splits, label)
    levels = context.summary.loc[context.summary["label"] == label, "concurrency"]
    without = [f"C={c}" for c in levels if c not in {s.concurrency for s in mine}]
    blocks: list[Block] = []
    if without:
        blocks.append(f"{label}: no server figures at " + ", ".join(without) + ".")
    if mine:
        chart = server_views.split_chart(mine, label)
        blocks += [
            server_views.split_table(mine, label),
            image(chart.folder, chart.key, chart.title),
        ]
    return blocks


def _drafting_blocks(drafts, by_category, tpot, label: str) -> list[Block]:
    levels = server_views.closed_loop(drafts, label)
    if not levels:
        return []
    chart = server_views.histogram_chart(levels, label)
    blocks: list[Block] = [
        server_views.drafting_table(levels, label, "concurrency"),
        server_views.histogram_table(levels, label),
        image(chart.folder, chart.key, chart.title),
    ]
    if (tpot["label"] == label).any():
        blocks.append(server_views.tpot_table(tpot, label))
    if categories := [d for d in by_category if d.label == label]:
        blocks.append(server_views.drafting_table(categories, label, "category"))
    return blocks


def build(context: Context) -> Section | None:
    records, settings = context.dataset.records, context.settings
    labels = labels_of(context.summary)
    splits = server_timing.ttft_splits(records, settings)
    drafts = server_timing.drafting(records, settings)
    split_labels = [label for label in labels if server_views.closed_loop(splits, label)]
    if not split_labels and not any(server_views.closed_loop(drafts, label) for label in labels):
        return None
    section = Section(TITLE, [])
    split_blocks = [b for label in labels for b in _split_blocks(context, splits, label)]
    if split_labels:
        section.subsections.append(Section("TTFT split", [SPLIT_RULE, *split_blocks]))
    by_category = server_timing.drafting_by_category(records, settings)
    tpot = server_timing.tpot_by_acceptance(records, settings)
    drafting_blocks = [
        b for label in labels for b in _drafting_blocks(drafts, by_category, tpot, label)
    ]
    if drafting_blocks:
        section.subsections.append(
            Section("Speculative decoding", [DRAFTING_RULE, *drafting_blocks])
        )
    return section
