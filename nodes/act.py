"""act: run the one selected tool; its documents go to the store, state keeps references only."""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from graph.context import Context
from graph.instrument import context_of
from graph.schemas import ActionResult, ActionSelection, dump
from graph.services import Services
from graph.state import State
from nodes.common import document_index, intent_of, result_label
from tools.base import ToolDeps, ToolOutput
from tools.catalog import lookup

log = logging.getLogger(__name__)


def act(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Tool errors become a failed result with the reason; only interrupts (Ctrl-C, kill) stop the run."""
    context = context_of(runtime)
    selection = ActionSelection.model_validate(state["selection"])
    arguments = dict(state.get("parameters") or {})
    label = result_label(int(state.get("round") or 1), int(state.get("step") or 1), selection.action)
    store = services.documents(context)
    entry = lookup(selection.action)
    try:
        if entry is None:
            raise LookupError(f"action {selection.action} is not registered")
        deps = ToolDeps(
            llm=services.llm(context),
            store=store,
            context=context,
            index=document_index(state),
            language=intent_of(state).language,
        )
        reply = entry.factory(deps).invoke(
            {"type": "tool_call", "name": entry.tool_name, "args": arguments, "id": label}
        )
        output = _artifact(reply)
    except Exception as exc:  # a tool failure is an observation, not a crash
        log.warning("%s failed: %s: %s", selection.action, type(exc).__name__, exc)
        failed = ActionResult(success=False, resultLabel=label, error=f"{type(exc).__name__}: {exc}")
        return {"result": dump(failed)}
    refs = [store.put(doc.data, label=label, name=doc.name, mime=doc.mime) for doc in output.documents]
    result = ActionResult(
        success=bool(refs),
        resultLabel=label,
        documents=refs,
        summary=output.summary,
        notes=output.notes,
        error=None if refs else "the action produced no documents",
    )
    return {"result": dump(result)}


def _artifact(reply: Any) -> ToolOutput:
    if isinstance(reply, ToolMessage):
        if reply.status == "error":
            raise RuntimeError(str(reply.content))
        if isinstance(reply.artifact, ToolOutput):
            return reply.artifact
    raise TypeError("the tool returned no ToolOutput artifact (response_format must be content_and_artifact)")
