"""SQLite checkpoint bytes as runs grow: 5, 10, 20 and 40 steps with ~2 KB and ~1 MB tool outputs.

paor keeps documents in its content-addressed store, `DocumentRef`s in state, a bounded history window (the
complete history is in the LangGraph store) and telemetry as running totals, so what a step writes should not
depend on how many steps came before. The baseline is LangGraph's prebuilt `create_react_agent`, whose tool results
live in the message list and so in every checkpoint. Both use `SqliteSaver` on a temporary file; bytes are the
stored checkpoints, their metadata and the write blobs, attributed to the node that produced them: a step is
select … refine for paor and agent + tools for the baseline; the run's end (paor's finalize with the complete
history in its output, the baseline's final answer) is shown apart.
"""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import PROMPT, prepare_environment, print_report, react_script, tempdir, varied_text

STEPS = (5, 10, 20, 40)
SIZES = (2_000, 1_000_000)
# create_react_agent rewrites every earlier output into each checkpoint: at 1 MB per output, 40 steps would write
# ~2.5 GB (20 steps ~0.6 GB), so the baseline stops at 10 steps there.
BASELINE_MAX_STEPS = {1_000_000: 10}
_STEP_NODES = ("select", "parameters", "act", "validate", "learn", "refine")


@dataclass
class CheckpointRun:
    system: str
    steps: int
    size: int
    checkpoints: int = 0
    total: int = 0
    per_step: list[int] = field(default_factory=list)
    start: int = 0  # input and intent (paor) / input (baseline)
    end: int = 0  # finalize (paor) / the final answer (baseline)

    @property
    def last_step(self) -> int:
        return self.per_step[-1]


def document(size: int) -> Callable[[int], str]:
    """Varied markdown of about `size` bytes, different for every action."""

    def make(i: int) -> str:
        block = varied_text(i, min(3000, max(50, size // 5)))
        text, part = "", 0
        while len(text.encode()) < size:
            part += 1
            text += f"\n\n<!-- action {i}, part {part} -->\n" + block
        return text[: max(size, 1)]

    return make


def _measure(path: Path, saver: Any, run: CheckpointRun, step_of: Callable[[str, dict[str, Any], bool], int]) -> None:
    """Attribute every checkpoint (and the writes of the node that produced it) to a step, the start or the end."""
    with sqlite3.connect(path) as conn:
        sizes = dict(conn.execute("SELECT checkpoint_id, length(checkpoint) + length(metadata) FROM checkpoints"))
        writes = dict(conn.execute("SELECT checkpoint_id, sum(length(value)) FROM writes GROUP BY checkpoint_id"))
    saved = list(reversed(list(saver.list({"configurable": {"thread_id": "bench"}}))))
    run.checkpoints = len(saved)
    run.per_step = [0] * run.steps
    previous = None
    for position, item in enumerate(saved):
        checkpoint = item.checkpoint
        produced = sizes[checkpoint["id"]] + (writes.get(previous["id"], 0) if previous else 0)
        run.total += produced
        node = ""
        if previous is not None:
            node = next(
                (c[len("branch:to:") :] for c in previous.get("updated_channels") or [] if "branch:to:" in c), ""
            )
        step = step_of(node, checkpoint["channel_values"], position == len(saved) - 1) if node else 0
        if step == 0:
            run.start += produced
        elif step > run.steps:
            run.end += produced
        else:
            run.per_step[step - 1] += produced
        previous = checkpoint


def run_paor(steps: int, size: int) -> CheckpointRun:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.memory import InMemoryStore

    from core.context import Context
    from graph.builder import build_graph
    from tests.support.scripted_llm import ScriptedLLM

    root = tempdir("checkpoints-paor")
    db = root / "paor.sqlite"
    run = CheckpointRun("paor React", steps, size)

    def step_of(node: str, values: dict[str, Any], last: bool) -> int:
        if node in _STEP_NODES:
            return int(values.get("step") or 0)
        return steps + 1 if node == "finalize" else 0

    # A real endpoint would stream a 1 MB answer in parts; the scripted one sends it whole, past max_tokens.
    with ScriptedLLM(obey_max_tokens=False) as llm, SqliteSaver.from_conn_string(str(db)) as saver:
        react_script(llm, steps, answer=document(size))
        context = Context(
            model="scripted",
            base_url=llm.base_url,
            max_retries=0,
            max_steps=steps,
            token_budget=100_000_000,
            store_dir=str(root / "store"),
            documents_dir=str(root / "docs"),
            max_document_mb=max(2.0, 2 * size / 1e6),
        )
        out = build_graph(checkpointer=saver, store=InMemoryStore()).invoke(
            {"prompt": PROMPT}, {"configurable": {"thread_id": "bench"}}, context=context
        )
        if len(out.get("history") or []) != steps:
            raise RuntimeError(f"paor did {len(out.get('history') or [])} steps: {out.get('stop_reason')}")
        if min(d["size"] for d in out["deliverables"]) < 0.9 * size:
            raise RuntimeError("paor's deliverable is smaller than the tool output")
        _measure(db, saver, run, step_of)
    return run


def run_create_react_agent(steps: int, size: int) -> CheckpointRun:
    from langchain_core.messages import ToolMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from bench.stub import ReactStub, make_ai_process_tool

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    db = tempdir("checkpoints-react") / "react.sqlite"
    stub = ReactStub(steps, document(size))
    model = stub.model()
    run = CheckpointRun("create_react_agent", steps, size)

    def step_of(node: str, values: dict[str, Any], last: bool) -> int:
        done = sum(isinstance(m, ToolMessage) for m in values.get("messages") or [])
        if node == "tools":
            return done
        return steps + 1 if last else done + 1  # the agent call that asks for tool call k belongs to step k

    with SqliteSaver.from_conn_string(str(db)) as saver:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = create_react_agent(model, [make_ai_process_tool(model)], checkpointer=saver)
        out = agent.invoke(
            {"messages": [("user", PROMPT)]},
            {"configurable": {"thread_id": "bench"}, "recursion_limit": 4 * steps + 10},
        )
        tools = [m for m in out["messages"] if isinstance(m, ToolMessage)]
        if len(tools) != steps or min(len(str(m.content)) for m in tools) < 0.9 * size:
            raise RuntimeError("create_react_agent did not produce the tool results")
        _measure(db, saver, run, step_of)
    return run


def run_all(steps_list: tuple[int, ...] = STEPS, sizes: tuple[int, ...] = SIZES) -> list[CheckpointRun]:
    prepare_environment(tempdir("checkpoints"))
    runs = []
    for size in sizes:
        for steps in steps_list:
            runs.append(run_paor(steps, size))
            if steps <= BASELINE_MAX_STEPS.get(size, max(steps_list)):
                runs.append(run_create_react_agent(steps, size))
    return runs


def _size(n: int) -> str:
    return f"~{n // 1000:,} KB" if n < 1_000_000 else f"~{n // 1_000_000} MB"


def table(runs: list[CheckpointRun]) -> str:
    baselines = {(r.size, r.steps): r.total for r in runs if r.system == "create_react_agent"}
    lines = [
        "| tool output | steps | system | checkpoints | total bytes | bytes / step | last step | first step "
        "| start + end | vs create_react_agent |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        base = baselines.get((r.size, r.steps))
        versus = f"{r.total / base:.3f}×" if base else "(not run)"
        lines.append(
            f"| {_size(r.size)} | {r.steps} | {r.system} | {r.checkpoints} | {r.total:,} | {r.total / r.steps:,.0f} "
            f"| {r.last_step:,} | {r.per_step[0]:,} | {r.start + r.end:,} | {versus} |"
        )
    return "\n".join(lines)


def verdicts(runs: list[CheckpointRun]) -> list[str]:
    paor = {(r.size, r.steps): r for r in runs if r.system == "paor React"}
    base = {(r.size, r.steps): r for r in runs if r.system == "create_react_agent"}
    small, large = min(SIZES), max(SIZES)
    lo, hi = min(STEPS), max(STEPS)
    growth = paor[small, hi].last_step / paor[small, lo].last_step
    share = paor[small, hi].total / base[small, hi].total
    by_ref = paor[large, hi].last_step / paor[small, hi].last_step
    met = "MET", "NOT MET"
    return [
        f"paor checkpoint bytes of the last step, {hi} vs {lo} steps (~2 KB outputs) ≤ 1.25×: "
        f"{paor[small, hi].last_step:,} vs {paor[small, lo].last_step:,} = {growth:.2f}× → {met[growth > 1.25]}",
        f"paor {hi}-step run (~2 KB outputs) ≤ 1/4 of create_react_agent's bytes: {paor[small, hi].total:,} vs "
        f"{base[small, hi].total:,} = {share:.3f} → {met[share > 0.25]}",
        f"paor with ~1 MB outputs unchanged (by reference): last step at {hi} steps {paor[large, hi].last_step:,} "
        f"bytes vs {paor[small, hi].last_step:,} with ~2 KB = {by_ref:.2f}× → {met[by_ref > 1.25]}",
    ]


def main() -> None:
    runs = run_all()
    print_report(table(runs), verdicts(runs))


if __name__ == "__main__":
    main()
