"""paor benchmarks: each prints ratios against baselines measured in the same run; nothing here asserts timings.

Run everything with ``python -m bench`` (writes ``bench/results.md`` and ``bench/tokens.png``), or one part with
``python -m bench.tokens``, ``python -m bench.checkpoints``, ``python -m bench.overhead``.
"""
