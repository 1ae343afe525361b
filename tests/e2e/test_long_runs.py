"""A long run keeps its checkpoints flat and still shows its complete history: in the output, to `paor history`
(also before the run has finished) and after a resume."""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cli.app import app
from core.context import Context
from graph.builder import build_graph
from prompts.history import MAX_ENTRIES
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

STEPS = 12
INTENT = {
    "dataType": "analysis",
    "expectedFormat": "markdown",
    "successCriteria": ["covers every region"],
    "language": "en",
}
SELECTION = {
    "action": "ai.process",
    "actionObjective": "Write the next region's section",
    "requiredInputDocuments": [],
    "parametersContext": "Write the section of the next region.",
    "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
}


def _script(llm: ScriptedLLM) -> None:
    """Each step writes one region (a different prompt, so no attempt repeats); the judge is satisfied at the end."""
    regions = itertools.count(1)
    sections = itertools.count(1)
    judged = itertools.count(1)

    def parameters(request: RecordedRequest) -> dict[str, Any]:
        return {"schema": "parameters_v1", "parameters": {"aiPrompt": f"Write the section of region {next(regions)}."}}

    def judgement(request: RecordedRequest) -> dict[str, Any]:
        met = next(judged) >= STEPS
        return {"criteriaMet": [met], "qualityScore": 0.95 if met else 0.5, "decision": "stop" if met else "continue"}

    llm.on("Intent", json.dumps(INTENT)).on("ActionSelection", SELECTION).on("ParametersAnswer", parameters)
    llm.on("text", lambda request: f"## Region {next(sections)}\n\n" + "Storage grew (source 1). " * 80)
    llm.on("ContentJudgement", judgement)


def _checkpoint_bytes(db: Path) -> list[int]:
    with sqlite3.connect(db) as conn:
        return [n for (n,) in conn.execute("SELECT length(checkpoint) FROM checkpoints ORDER BY rowid")]


def test_a_long_run_keeps_checkpoints_flat_and_its_complete_history(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any, sqlite_path: Path
) -> None:
    _script(scripted_llm)
    context.max_steps = STEPS + 2
    context.direct_answer = False  # the loop itself is under test (a direct answer no check decides would stop)
    graph = build_graph(checkpointer=checkpointer, store=store)
    config = {"configurable": {"thread_id": "long"}}
    graph.invoke({"prompt": "Write a regional market analysis"}, config, context=context, interrupt_before=["finalize"])

    states = list(graph.get_state_history(config))
    assert max(len(s.values.get("history") or []) for s in states) == MAX_ENTRIES
    assert len(graph.get_state(config).values["history"]) == MAX_ENTRIES  # not finished: the window only
    sizes = _checkpoint_bytes(sqlite_path)
    per_step = 6
    step_9, step_12 = sum(sizes[-4 * per_step : -3 * per_step]), sum(sizes[-per_step:])
    assert step_12 <= 1.1 * step_9, (step_9, step_12)  # the bytes of a step do not grow with the steps before it

    listed = CliRunner().invoke(app, ["history", "long", "--db", str(sqlite_path)])
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.splitlines()[0] == f"thread long: {STEPS} steps, newest first"
    step_lines = listed.stdout.splitlines()[1:]
    assert [line.split()[1] for line in step_lines] == [f"s{n}" for n in range(STEPS, 0, -1)]
    assert all(re.search(r"quality \d\.\d\d  \S", line) for line in step_lines)  # complete, not window heads

    out = graph.invoke(None, config, context=context)
    assert out["status"] == "completed"
    assert [h["step"] for h in out["history"]] == list(range(1, STEPS + 1))
    assert all(h["summary"] and h["documents"] for h in out["history"])  # complete entries, not window heads
    assert graph.get_state(config).values["history"] == out["history"]  # Studio and the server show the same
    finished = CliRunner().invoke(app, ["history", "long", "--db", str(sqlite_path)])
    assert finished.stdout.splitlines()[0] == f"thread long: {STEPS} steps, newest first"
