"""Accuracy probes: items with exact answers, the rules that grade a reply, and their tally.

No Locust, no sending: pure functions and plain data, so the standalone ``sparkload quality``
(``sparkload.run.quality``) and, later, probes interleaved with a loaded level use the same
pieces. Its modules:

- ``items``: an ``Item`` (an id, a prompt, the expected answer and how to match it) and an
  ``ItemSet`` (a dataset file or a built-in probe: its items and how they were made);
- ``graders``: ``grade(item, reply)`` and the extraction rule of each match (GSM8K's final
  number, a multiple-choice letter, exact, numeric, regex, a retrieval key);
- ``datasets``: the user's files (GSM8K JSONL, MMLU-layout JSON/JSONL/CSV, a generic JSONL of
  prompt and expected, BFCL's format), each bad line one clear ``ConfigError`` before any request;
- ``bfcl``: BFCL's tool-call format (its items' messages, tools and possible answers, inline or
  in BFCL's answer file) and ``toolcalls``: a reply's tool calls graded by BFCL's checks, a
  wrong one's reason named;
- ``probes``: the built-in probes generated from a seed (multi-step arithmetic, long-context
  retrieval of a key planted at a chosen depth);
- ``tally``: graded items into the results contract's ``QualityResult``;
- ``options``: ``sparkload quality``'s own option rows, typed as ``QualityOptions``, and the
  rows of the option table it shares with ``run``.

It imports the results contract, the option table, the user-file reader (``inputs.files``), the
workloads' seeded filler and token counting, and nothing of the run, so the run's stages may
import it.
"""
