"""What a node reads of the run it runs in: its Context and its thread."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from core.context import Context


def context_of(runtime: Runtime[Context]) -> Context:
    """The run's Context; a server run without one gets the env-filled defaults."""
    context = runtime.context
    if isinstance(context, Context):
        return context
    if isinstance(context, dict):
        return Context(**context)
    return Context()


def thread_of(runtime: Runtime[Any]) -> str | None:
    """The run's thread id; None without a checkpointer."""
    info = getattr(runtime, "execution_info", None)
    thread = getattr(info, "thread_id", None)
    return str(thread) if thread else None
