"""One wrapper gives every node timing, token accounting, a progress event and a log line.

Nodes stay plain functions `(state, runtime, services) -> update`; what the CLI, Studio and the benchmarks observe
is produced here once, identically for every node. The per-node record goes to the stream and the log; state keeps
only the round's running totals, so checkpoints do not grow with the step count.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import get_usage_metadata_callback
from langgraph.runtime import Runtime

from core.context import Context
from core.errors import ServiceUnavailable
from core.runtime import context_of, thread_of
from core.schemas import TelemetryRecord
from core.state import State
from nodes.services import Services
from tools.catalog import extended_by

log = logging.getLogger("paor")

NodeFn = Callable[[State, Runtime[Context], Services], dict[str, Any]]
GraphNode = Callable[[State, Runtime[Context]], dict[str, Any]]


def instrumented(name: str, fn: NodeFn, services: Services) -> GraphNode:
    def node(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        started = time.perf_counter()
        if services.pin is not None:
            runtime = runtime.override(context=services.pin(context_of(runtime)))
        actions = services.actions
        run = _run_key(runtime)
        if actions is not None:
            actions.hold(run)  # the graph's MCP sessions stay open while a run uses them
        records, thread = services.records, thread_of(runtime)
        if records is not None and thread:  # the server: no node reads a document its thread has no record of
            records.vouch(thread, state, context_of(runtime))
        with get_usage_metadata_callback() as usage, extended_by(actions):
            try:
                update = fn(state, runtime, services)
            except ServiceUnavailable:  # the run stops on an outage: its resume opens the sessions anew
                if actions is not None:
                    actions.release(run)
                raise
        if records is not None and thread:
            records.record(thread, update, context_of(runtime))
        if actions is not None and update.get("status"):
            actions.release(run)  # the round ends with this node's update (its answer, or why it stopped)
        record = TelemetryRecord(
            node=name,
            round=update.get("round", state.get("round", 0)),
            step=update.get("step", state.get("step", 0)),
            durationS=round(time.perf_counter() - started, 6),
            inputTokens=sum(u.get("input_tokens", 0) for u in usage.usage_metadata.values()),
            outputTokens=sum(u.get("output_tokens", 0) for u in usage.usage_metadata.values()),
        )
        event = progress_event(record, {**state, **update})
        runtime.stream_writer(event)
        log.info("%s", event)
        return {**update, "telemetry": totals_of(record)}

    node.__name__ = name
    node.__doc__ = fn.__doc__
    return node


def _run_key(runtime: Runtime[Context]) -> str:
    info = getattr(runtime, "execution_info", None)
    return str(getattr(info, "thread_id", None) or getattr(info, "run_id", None) or "run")


def totals_of(record: TelemetryRecord) -> dict[str, Any]:
    """A node's record as an addend of the round's running totals (core.state.add_totals)."""
    spent = {"inputTokens": record.inputTokens, "outputTokens": record.outputTokens}
    node = {"runs": 1, "seconds": record.durationS}  # per-node tokens are in the progress events
    return {"round": record.round, "seconds": record.durationS, **spent, "nodes": {record.node: node}}


def _step_error(node: str, state: dict[str, Any], result: dict[str, Any]) -> str | None:
    """What went wrong in this node: a failed selection or parameters, or a tool call that failed (act)."""
    if node in ("select", "parameters"):
        return state.get("step_error")
    if node == "act" and result and not result.get("success"):
        return str(result.get("error") or "the action failed")
    return None


def progress_event(record: TelemetryRecord, state: dict[str, Any]) -> dict[str, Any]:
    """The custom stream event: which node ran, for which step and action, and what it decided."""
    selection = state.get("selection") or {}
    result = state.get("result") or {}
    validation = state.get("validation") or {}
    decision = state.get("decision") or {}
    event: dict[str, Any] = {
        "event": "progress",
        "node": record.node,
        "round": record.round,
        "step": record.step,
        "action": selection.get("action") if record.node != "intent" else None,
        "objective": selection.get("actionObjective") if record.node == "select" else None,
        "resultLabel": result.get("resultLabel") if record.node in ("act", "validate") else None,
        "qualityScore": validation.get("qualityScore") if record.node == "validate" else None,
        "decision": decision.get("decision") if record.node == "refine" else None,
        "reason": decision.get("reason") if record.node == "refine" else None,
        "error": _step_error(record.node, state, result),
        "status": state.get("status") if record.node == "finalize" else None,
        "durationS": record.durationS,
        "inputTokens": record.inputTokens,
        "outputTokens": record.outputTokens,
    }
    return {k: v for k, v in event.items() if v is not None}
