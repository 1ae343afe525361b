"""`python -m bench`: every benchmark, a markdown report (bench/results.md) and a plot (bench/tokens.png)."""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

from bench import checkpoints, computation, hotspots, overhead, recovery, server_load, tokens, walltime

HERE = Path(__file__).resolve().parent


def main() -> None:
    start = time.perf_counter()
    sections = [
        "# paor benchmarks",
        "",
        f"Python {platform.python_version()} on {platform.machine()}; ratios are against baselines measured in the "
        "same run (LangGraph's prebuilt `create_react_agent`); nothing here is asserted.",
    ]
    verdicts: list[str] = []

    wall_results = walltime.run_all()
    token_results = wall_results[tokens.TOOL_TOKENS]  # the same runs: ~3000-token outputs
    sections += [
        "",
        "## Prompt tokens (tool answers of ~3000 tokens each; o200k_base over every request's messages)",
        "",
        tokens.table(token_results),
        "",
        "Step 1 includes paor's intent call (and Actionplan's planning call); create_react_agent's last step "
        "includes its final answer call.",
    ]
    verdicts += tokens.verdicts(token_results)
    tokens.plot(token_results, HERE / "tokens.png")

    sections += [
        "",
        "## Wall time under a latency model, and model requests per step",
        "",
        walltime.table(wall_results),
        "",
        "paor React's model requests per step, by node:",
        "",
        walltime.node_table(wall_results),
    ]
    verdicts += walltime.verdicts(wall_results)

    checkpoint_results = checkpoints.run_all()
    sections += [
        "",
        "## Checkpoint bytes as runs grow (SqliteSaver)",
        "",
        checkpoints.table(checkpoint_results),
    ]
    verdicts += checkpoints.verdicts(checkpoint_results)

    overhead_results = overhead.run_all()
    sections += ["", "## Framework overhead", "", overhead.table(overhead_results)]
    verdicts += overhead.verdicts(overhead_results)

    sections += [
        "",
        "## Where paor's per-iteration overhead goes (pyinstrument)",
        "",
        hotspots.table(hotspots.run_all()),
    ]

    recovery_results = recovery.run_all()
    sections += [
        "",
        "## Adaptive recovery (scripted models that err and follow the evidence in their prompt)",
        "",
        recovery.table(recovery_results),
    ]
    verdicts += recovery.verdicts(recovery_results)

    computation_results = computation.run_all()
    sections += ["", "## The primes task: code.execute vs ai.process", "", computation.table(computation_results)]
    verdicts += computation.verdicts(computation_results)

    load_results = server_load.run_all()
    sections += ["", "## `langgraph dev` under load", "", server_load.table(load_results)]
    verdicts += server_load.verdicts(load_results)

    sections += ["", "## Targets", "", *(f"- {line}" for line in verdicts), "", "![prompt tokens per step](tokens.png)"]
    report = "\n".join(sections) + "\n"
    print(report)
    (HERE / "results.md").write_text(report, encoding="utf-8")
    print(
        f"wrote {HERE / 'results.md'} and {HERE / 'tokens.png'} in {time.perf_counter() - start:.0f}s", file=sys.stderr
    )


if __name__ == "__main__":
    main()
