"""act: run the one selected tool; its documents go to the store, state keeps references only."""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime
from pydantic import ValidationError

from core.capacity import blocking_threads
from core.context import Context
from core.errors import ActionNotDeclared, ActionUnavailable, ConfigurationError, ServiceUnavailable, ToolNotCalled
from core.llm import ABANDONED
from core.runtime import context_of
from core.schemas import GENERIC_CRITERION, REJECTED_BY_USER, ActionResult, ActionSelection, dump
from core.state import State
from nodes import history_log
from nodes.approval import ask_approval, needs_approval
from nodes.chat import draft_message, earlier_turns, progress_message, show_result, show_step
from nodes.common import document_index, intent_of, result_label
from nodes.direct import answering_directly, bare_call
from nodes.parameters import earlier_attempts
from nodes.services import Services
from prompts.render import render_conversation
from prompts.templates import clip
from tools.base import ToolDeps, ToolOutput
from tools.catalog import CatalogEntry, require

log = logging.getLogger(__name__)

# What a tool may put into state (and so into every checkpoint): bounded, whatever the tool returns.
SUMMARY_CHARS = 2000
NOTE_CHARS = 300
MAX_NOTES = 10


def act(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
    """Tool errors become a failed result with the reason; only interrupts (Ctrl-C, kill) stop the run."""
    context = context_of(runtime)
    selection = ActionSelection.model_validate(state["selection"])
    arguments = dict(state.get("parameters") or {})
    try:  # an action this graph lacks altogether (a thread resumed with other tools) stops the run, naming it
        entry: CatalogEntry | None = require(selection.action, state.get("tools"))
    except ActionNotDeclared:
        raise
    except ActionUnavailable:  # withdrawn here: the step fails below, like any broken backend's
        entry = None
    if entry is not None and needs_approval(entry, context):  # first: a resumed node must repeat nothing before it
        earlier = earlier_attempts(state, runtime)
        verdict = ask_approval(entry, selection, arguments, intent_of(state), context, earlier)
        if verdict.rejected is not None:
            return _rejected(state, context, entry, selection, arguments, clip(verdict.rejected, NOTE_CHARS))
        if verdict.arguments != arguments:
            return {
                **_run(state, runtime, services, entry, selection, verdict.arguments),
                "parameters": verdict.arguments,
            }
    return _run(state, runtime, services, entry, selection, arguments)


def _rejected(
    state: State,
    context: Context,
    entry: CatalogEntry,
    selection: ActionSelection,
    arguments: dict[str, Any],
    reason: str,
) -> dict[str, Any]:
    """The step the user rejected: a failed result carrying their reason (the action never ran), shown to a chat as
    the proposed tool call answered "rejected: <reason>" and on the round's step line."""
    step = int(state.get("step") or 1)
    label = result_label(int(state.get("round") or 1), step, selection.action)
    shown = f"rejected: {reason}"
    show_step(label, entry.tool_name, arguments)
    show_result(label, entry.tool_name, shown, failed=True)
    line = progress_message(state, f"Step {step} of at most {context.max_steps}: {selection.action} — {shown}")
    result = ActionResult(success=False, resultLabel=label, error=f"{REJECTED_BY_USER}{reason}", rejected=reason)
    return {"result": dump(result), **({"messages": line} if line else {})}


def _run(
    state: State,
    runtime: Runtime[Context],
    services: Services,
    entry: CatalogEntry | None,
    selection: ActionSelection,
    arguments: dict[str, Any],
) -> dict[str, Any]:
    context = context_of(runtime)
    label = result_label(int(state.get("round") or 1), int(state.get("step") or 1), selection.action)
    store = services.documents(context)
    try:
        if entry is None:  # withdrawn here: ActionUnavailable, with the reason
            entry = require(selection.action, state.get("tools"))
        show_step(label, entry.tool_name, arguments)
        direct = answering_directly(state, int(state.get("step") or 1))
        deps = ToolDeps(
            llm=services.llm(context),
            store=store,
            context=context,
            index=document_index(state, history_log.complete(state, runtime)),
            language=intent_of(state).language,
            paths=services.tool_paths,
            request=str(state.get("prompt") or ""),
            criteria=[c for c in intent_of(state).successCriteria if c != GENERIC_CRITERION],
            earlier=render_conversation(earlier_turns(state, budget=None)),
            stream=direct,
            conversation=bare_call(state, context, str(arguments.get("aiPrompt") or "")) if direct else None,
        )
        tool = entry.factory(deps)
        call = {"type": "tool_call", "name": entry.tool_name, "args": arguments, "id": label}
        output = _artifact(run_with_timeout(lambda: tool.invoke(call), context.tool_timeout_s))
    except ServiceUnavailable:
        raise  # an outage is no observation about the action: the step stops here and resumes here
    except Exception as exc:  # a tool failure is an observation, not a crash
        log.warning("%s failed: %s: %s", selection.action, type(exc).__name__, exc)
        error = f"{type(exc).__name__}: {exc}"
        failed = ActionResult(success=False, resultLabel=label, error=error, called=called(exc, entry))
        if entry is not None:
            show_result(label, entry.tool_name, failed.error or "", failed=True)
        return {"result": dump(failed)}
    limit = int(context.max_document_mb * 1024 * 1024)
    notes = [clip(note, NOTE_CHARS) for note in output.notes[:MAX_NOTES]]
    refs = []
    for doc in output.documents:
        data = doc.data
        if len(data) > limit:
            notes.append(f"{doc.name} was cut from {len(data)} to {limit} bytes (max_document_mb)")
            data = data[:limit]
        refs.append(store.put(data, label=label, name=doc.name, mime=doc.mime))
    result = ActionResult(
        success=bool(refs),
        resultLabel=label,
        documents=refs,
        summary=clip(output.summary, SUMMARY_CHARS),
        notes=notes,
        error=None if refs else "the action produced no documents",
    )
    show_result(label, entry.tool_name, result.summary or result.error or "", failed=not refs)
    return {"result": dump(result), **({"messages": [draft_message(deps.streamed[-1])]} if deps.streamed else {})}


# Started once: a new thread per call cost ~3 ms per action. Sized for every run the process works on at once
# (core/capacity.py: a tool call mostly waits on the network). A tool that overruns and is abandoned keeps its
# worker busy; with all workers stuck, new calls queue and time out rather than hang.
_TOOL_THREADS = ThreadPoolExecutor(max_workers=blocking_threads(), thread_name_prefix="paor-tool")


def run_with_timeout(call: Callable[[], Any], timeout_s: float) -> Any:
    """Run a tool call with a deadline. Python cannot kill a thread: a tool that overruns is abandoned (its
    result discarded) and the step fails, so the run goes on. Interrupts raised inside the tool propagate."""
    abandoned = threading.Event()
    context = contextvars.copy_context()  # keeps callbacks (token usage) attached
    context.run(ABANDONED.set, abandoned)
    future = _TOOL_THREADS.submit(context.run, call)
    try:
        return future.result(timeout=timeout_s)
    except FutureTimeout:
        future.cancel()
        abandoned.set()  # the answer it is receiving stops at its next token (core/llm.py)
        raise TimeoutError(f"the tool did not finish within {timeout_s:g}s (tool_timeout_s)") from None


def called(exc: Exception, entry: CatalogEntry | None) -> bool:
    """Whether the tool ran and failed at its job, or paor could not call it (configuration, registration,
    connection, arguments its own schema refuses): only the first may lower what learning thinks of it."""
    if isinstance(exc, ToolNotCalled | ConfigurationError):
        return False
    refused = isinstance(exc, ValidationError) and entry is not None and exc.title == entry.args_schema.__name__
    return not refused


def _artifact(reply: Any) -> ToolOutput:
    if isinstance(reply, ToolMessage):
        if reply.status == "error":
            raise RuntimeError(str(reply.content))
        if isinstance(reply.artifact, ToolOutput):
            return reply.artifact
    raise TypeError("the tool returned no ToolOutput artifact (response_format must be content_and_artifact)")
