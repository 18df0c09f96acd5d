"""Workloads: what each request asks for, and what its record keeps.

``--workload`` picks one; every process builds the same from the same options.

=========  ==================================================  ============  ==================
workload   prompt                                              max_tokens    length pinned
=========  ==================================================  ============  ==================
chat       a line of ``--prompts`` (the ladder's default)      --max-tokens  no (``--ignore-eos``)
           or a dataset's messages (``sparkload.inputs.datasets``)    or the line's
           or ``--input-tokens`` synthetic prompts             --output-tokens yes
fresh      "write a module" + a one-line spec (prompts/fresh)  400           yes
edit       a ~2,000-token source file (prompts/edit/*.py) +    3,000         yes
           "add a method to every class, output the file"
prefill    seeded filler text of ~8K / 32K / 100K tokens       1             -
agent      the session's context (system prompt, user turns    256           no
           from ``--prompts``, tool calls and synthetic
           results) with ``tools``; or ``--agent-trace``'s
           recorded turns
=========  ==================================================  ============  ==================

The package, one module one job:

- ``contract.py``: THE CONTRACT every workload implements (``Workload``) and the data it
  trades with the load side (``PlannedRequest``, ``Slot``, ``UserState``, ``Sampling``);
- ``registry.py``: the workload of a run's options (``load``) and the workloads' rules on those
  options (``settle``);
- ``promptset.py``: what today's workloads share (a fixed set of prompt texts, the cache-busting
  nonce, the record's workload fields);
- ``chat.py``, ``fresh.py``, ``edit.py``, ``prefill.py``, ``conversation.py``, ``agent.py``,
  ``trace.py``: one module per workload;
- ``coding_tools.py``: the agent's built-in tools and the synthetic results of their calls;
- ``filler.py``: the seeded filler text of the prefill probe, the synthetic prompts and the
  agent's tool results.

The workload names are the results contract's (``records.WORKLOAD_NAMES``: the analysis groups
runs by them); each one's own output length is the option table's (``config.OUTPUT_TOKENS``).
"""
