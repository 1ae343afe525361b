"""SQLite checkpoint bytes per iteration when every action produces a 1 MB document.

paor keeps documents in its content-addressed store and only `DocumentRef`s in state; the baseline is LangGraph's
prebuilt `create_react_agent`, whose tool result (the document) lives in the message history and so in every
checkpoint. Both use `SqliteSaver` on a temporary file; bytes are the stored checkpoint, metadata and write blobs.
"""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

from bench.common import PROMPT, prepare_environment, print_report, react_script, tempdir, varied_text

ITERATIONS = 5
DOCUMENT_BYTES = 1_000_000
TARGET = 32 * 1024


def document(i: int) -> str:
    """~1 MB of varied markdown, different for every action."""
    block = varied_text(i, 3000)
    text = ""
    part = 0
    while len(text.encode()) < DOCUMENT_BYTES:
        part += 1
        text += f"\n\n<!-- action {i}, part {part} -->\n" + block
    return text


def stored_bytes(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        checkpoints = conn.execute(
            "SELECT coalesce(sum(length(checkpoint) + length(metadata)), 0), count(*) FROM checkpoints"
        ).fetchone()
        writes = conn.execute("SELECT coalesce(sum(length(value)), 0) FROM writes").fetchone()[0]
    return {"checkpoints": checkpoints[0], "count": checkpoints[1], "writes": writes, "total": checkpoints[0] + writes}


def run_paor(iterations: int = ITERATIONS) -> dict[str, int]:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.memory import InMemoryStore

    from graph.builder import build_graph
    from graph.context import Context
    from tests.support.scripted_llm import ScriptedLLM

    root = tempdir("checkpoints-paor")
    db = root / "paor.sqlite"
    with ScriptedLLM() as llm, SqliteSaver.from_conn_string(str(db)) as saver:
        react_script(llm, iterations, answer=document)
        context = Context(
            model="scripted",
            base_url=llm.base_url,
            max_retries=0,
            max_steps=iterations,
            token_budget=100_000_000,
            store_dir=str(root / "store"),
            documents_dir=str(root / "docs"),
        )
        out = build_graph(checkpointer=saver, store=InMemoryStore()).invoke(
            {"prompt": PROMPT}, {"configurable": {"thread_id": "bench"}}, context=context
        )
        if len(out.get("history") or []) != iterations:
            raise RuntimeError(f"paor did {len(out.get('history') or [])} steps: {out.get('stop_reason')}")
        if min(d["size"] for d in out["deliverables"]) < DOCUMENT_BYTES:
            raise RuntimeError("paor's deliverable is smaller than the 1 MB document")
    return stored_bytes(db)


def run_create_react_agent(iterations: int = ITERATIONS) -> dict[str, int]:
    from langchain_core.messages import ToolMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from bench.stub import ReactStub, make_ai_process_tool

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

    db = tempdir("checkpoints-react") / "react.sqlite"
    stub = ReactStub(iterations, document)
    model = stub.model()
    with SqliteSaver.from_conn_string(str(db)) as saver:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = create_react_agent(model, [make_ai_process_tool(model)], checkpointer=saver)
        out = agent.invoke(
            {"messages": [("user", PROMPT)]},
            {"configurable": {"thread_id": "bench"}, "recursion_limit": 4 * iterations + 10},
        )
        tools = [m for m in out["messages"] if isinstance(m, ToolMessage)]
        if len(tools) != iterations or min(len(str(m.content)) for m in tools) < DOCUMENT_BYTES:
            raise RuntimeError("create_react_agent did not produce the 1 MB tool results")
    return stored_bytes(db)


def run_all() -> dict[str, dict[str, int]]:
    prepare_environment(tempdir("checkpoints"))
    return {"paor React": run_paor(), "create_react_agent": run_create_react_agent()}


def table(results: dict[str, dict[str, int]]) -> str:
    baseline = results["create_react_agent"]["total"]
    lines = [
        f"| system ({ITERATIONS} iterations, 1 MB document each) | checkpoints | SQLite bytes | bytes / iteration "
        "| vs create_react_agent |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['count']} | {r['total']:,} | {r['total'] / ITERATIONS:,.0f} "
            f"| {r['total'] / baseline:.4f}× |"
        )
    return "\n".join(lines)


def verdicts(results: dict[str, dict[str, int]]) -> list[str]:
    per = results["paor React"]["total"] / ITERATIONS
    return [
        f"paor checkpoint bytes per iteration ≤ 32 KB: {per / 1024:,.1f} KB → {'MET' if per <= TARGET else 'NOT MET'} "
        f"(create_react_agent: {results['create_react_agent']['total'] / ITERATIONS / 1024:,.0f} KB)"
    ]


def main() -> None:
    results = run_all()
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
