"""Tool faults: a raising tool, a hanging tool and a huge output each end as a bounded, failed or capped step."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from core.context import Context
from core.schemas import DocumentRef
from tests.reliability.conftest import DIRECT_PARAMETERS, DIRECT_SELECTION, checkpoint_sizes, invoke, script_direct
from tests.support import deadlines
from tests.support.scenarios import DATA_ANSWER
from tests.support.scripted_llm import ScriptedLLM
from tools import catalog
from tools.base import NewDocument, ToolDeps, ToolOutput
from tools.documents import DocumentStore


class ProbeArgs(BaseModel):
    note: str = Field("", description="Anything.")


def _make_tool(name: str, behaviour: Callable[[], ToolOutput]) -> Callable[[ToolDeps], BaseTool]:
    def factory(deps: ToolDeps) -> BaseTool:
        def run(note: str = "") -> tuple[str, ToolOutput]:
            output = behaviour()
            return output.summary, output

        return StructuredTool.from_function(
            func=run, name=name, description="test probe", args_schema=ProbeArgs, response_format="content_and_artifact"
        )

    return factory


@pytest.fixture
def probe_action() -> Iterator[Callable[[str, Callable[[], ToolOutput]], str]]:
    """Register throwaway `probe.<name>` actions; they are removed from the catalog afterwards."""
    catalog.catalog()  # load the built-ins first so the registry is complete
    added: list[str] = []

    def add(name: str, behaviour: Callable[[], ToolOutput]) -> str:
        display = f"probe.{name}"
        catalog.register(
            catalog.CatalogEntry(
                display_name=display,
                tool_name=f"probe_{name}",
                args_schema=ProbeArgs,
                factory=_make_tool(f"probe_{name}", behaviour),
                purpose="analysis",
                summary="a test probe",
            )
        )
        added.append(display)
        return display

    yield add
    for display in added:
        catalog._REGISTRY.pop(display, None)


def select(action: str) -> dict[str, Any]:
    return {**DIRECT_SELECTION, "action": action, "parametersSchema": {"fields": []}}


PROBE_PARAMETERS = {"schema": "parameters_v1", "parameters": {"note": "go"}}


def test_a_raising_tool_is_a_failed_step_with_its_error_and_the_run_goes_on(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, probe_action: Any
) -> None:
    def boom() -> ToolOutput:
        raise RuntimeError("disk on fire")

    action = probe_action("boom", boom)
    script_direct(
        scripted_llm,
        ActionSelection=[select(action), DIRECT_SELECTION],
        ParametersAnswer=[PROBE_PARAMETERS, DIRECT_PARAMETERS],
    )
    out = invoke(graph, rctx, "boom")
    first = out["history"][0]
    assert first["action"] == action and first["outcome"] == "failed"
    assert "RuntimeError: disk on fire" in " ".join(first["findings"])
    assert out["status"] == "completed" and [h["step"] for h in out["history"]] == [1, 2]


def test_a_tool_hanging_past_tool_timeout_fails_its_step_with_the_timeout_reason(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, probe_action: Any
) -> None:
    release = threading.Event()
    returned = threading.Event()

    def hang() -> ToolOutput:
        release.wait(deadlines.PROCESS_S)
        returned.set()
        return ToolOutput(documents=[NewDocument.text("late.md", "too late")], summary="late")

    action = probe_action("hang", hang)
    script_direct(
        scripted_llm,
        ActionSelection=[select(action), DIRECT_SELECTION],
        ParametersAnswer=[PROBE_PARAMETERS, DIRECT_PARAMETERS],
    )
    rctx.tool_timeout_s = 2.0  # every tool of the run has this long; only the hanging one needs it to run out
    try:
        out = invoke(graph, rctx, "hang")
        assert not returned.is_set()  # the run went on without waiting for the hanging tool
    finally:
        release.set()  # let the abandoned worker thread finish
    first = out["history"][0]
    assert first["outcome"] == "failed"
    assert "the tool did not finish within 2s (tool_timeout_s)" in " ".join(first["findings"])
    assert out["status"] == "completed"  # step 2 recovered
    assert all(d["name"] != "late.md" for h in out["history"] for d in h["documents"])  # the late result is discarded


def test_a_tool_its_step_gave_up_on_asks_the_model_nothing_more(scripted_llm: ScriptedLLM, context: Context) -> None:
    """A tool that reaches a model call after its step gave up on it (the next part of a long text) sends none:
    on a one-slot llama.cpp server, that request would make the run's next one wait."""
    from core.llm import Models, call_model
    from nodes.act import run_with_timeout

    release, done = threading.Event(), threading.Event()
    raised: list[Exception] = []
    llm = Models().for_context(context)

    def slow_then_ask() -> Any:
        release.wait(deadlines.PROCESS_S)
        try:
            return call_model(llm, "Summarise the next part.")
        except Exception as exc:
            raised.append(exc)
            raise
        finally:
            done.set()

    with pytest.raises(TimeoutError):
        run_with_timeout(slow_then_ask, 0.5)
    release.set()
    assert done.wait(deadlines.PROCESS_S)
    assert scripted_llm.requests == [] and "gave up on it" in str(raised[0])


def test_a_tool_returning_no_documents_is_a_failed_step(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, probe_action: Any
) -> None:
    action = probe_action("nothing", lambda: ToolOutput(summary="nothing to show"))
    script_direct(scripted_llm, ActionSelection=[select(action)], ParametersAnswer=[PROBE_PARAMETERS])
    rctx.max_steps = 1
    out = invoke(graph, rctx, "nothing")
    assert out["status"] == "incomplete" and out["stop_reason"] == "max_steps (1) reached"
    assert "the action produced no documents" in " ".join(out["history"][0]["findings"])


def test_huge_tool_output_is_capped_and_the_checkpoint_stays_small(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, db_path: Path
) -> None:
    huge = DATA_ANSWER + "\n\n" + ("padding " * 700_000)  # ≈ 5.6 MB answer from the model inside ai.process
    scripted_llm.obey_max_tokens = False  # a server that ignores max_tokens: the document cap must still hold
    script_direct(scripted_llm, text=[huge])
    rctx.max_document_mb = 1
    out = invoke(graph, rctx, "huge")
    step = out["history"][0]
    ref = DocumentRef.model_validate(step["documents"][0])
    assert ref.size == 1024 * 1024  # cut at max_document_mb
    assert len(DocumentStore(rctx.store_path).read_bytes(ref)) == 1024 * 1024
    assert any("was cut from" in f and "max_document_mb" in f for f in step["findings"])
    biggest_checkpoint, biggest_write = checkpoint_sizes(db_path)
    assert biggest_checkpoint < 64 * 1024, biggest_checkpoint
    assert biggest_write < 64 * 1024, biggest_write
    with sqlite3.connect(db_path) as conn:
        (total,) = conn.execute("SELECT SUM(LENGTH(checkpoint)) FROM checkpoints").fetchone()
    assert total < 1024 * 1024  # all checkpoints of the run together hold less than the one document


def test_huge_probe_output_of_many_documents_is_capped_per_document(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, probe_action: Any, db_path: Path
) -> None:
    blob = b"z" * (5 * 1024 * 1024)
    many = ToolOutput(
        documents=[NewDocument(name=f"part{i}.txt", mime="text/plain", data=blob + bytes([i])) for i in range(3)],
        summary="s" * 1_000_000,
        notes=["n" * 100_000] * 50,
    )
    action = probe_action("huge", lambda: many)
    script_direct(scripted_llm, ActionSelection=[select(action)], ParametersAnswer=[PROBE_PARAMETERS])
    rctx.max_document_mb = 1
    rctx.max_steps = 1
    out = invoke(graph, rctx, "huge-probe")
    sizes = [d["size"] for d in out["history"][0]["documents"]]
    assert sizes == [1024 * 1024] * 3
    biggest_checkpoint, biggest_write = checkpoint_sizes(db_path)
    assert biggest_checkpoint < 64 * 1024 and biggest_write < 64 * 1024
