"""The single-Spark notes' tables: Qwen3.8-27B builds, DSpark/MTP drafting, batch budgets.

The notes ("Measurements — Qwen3.8-27B 4-bit on one DGX Spark") compare deployments that differ
in one of four settings: the weight build, the speculative decoding (``none``, ``mtp:K``,
``dspark:K``), the batch token budget and prefix caching. A run says which deployment it measured
through its manifest: the user's ``--metadata`` (``build``, ``spec``, ``budget``,
``prefix_caching``: what a real Spark's run is given) or, on the simulator, a ``qwen3.8-*``
profile and its options; metadata wins key by key, so real and simulated runs file alike.

What a run measured comes from the manifest too: the workload (fresh, edit, prefill), whether
every stream sent the same prompt, and its levels: a label run at C=1 only is a single-stream
run; one with higher levels is a concurrency run. The figures, as the notes define them:

  single stream (fresh / edit tok/s)   per-request tps mean at C=1 (output tokens / latency);
                                       one value per run of a repeated label ("a / b")
  aggregate                            Σ output tokens / level wall time (measured_total_tps)
  per stream                           aggregate / C
  acceptance, tokens per pass          the server's spec-decode counters at C=1
  KV tokens                            num_gpu_blocks × block_size (vllm:cache_config_info)

Nothing is filled in: a cell whose run is missing is NaN (a dash), a table without its runs is
left out by the section.

Two rooms: ``setups`` (which deployment each run measured, and the figures the tables read)
and ``tables`` (one function per table of the notes); ``analysis.sections.single_spark`` puts
them in the report.
"""
