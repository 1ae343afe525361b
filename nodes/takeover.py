"""A run taken over after the server running it stopped tells its client so, once, as it goes on.

The server names the attempt it executes in the run's metadata (`run_attempt`, which it sets whatever a client sent:
server/aegra_attempts.py on `paor serve`, langgraph-api's own count on `langgraph dev`); attempt 2 or later resumes
from the last checkpoint, on another instance or after the server's own retry. Its first node says so on the
stream at once (a `custom` event, before the node's own work, which may be the model call that was in flight) and in
the chat, as a line below what paor understood and the step it is on — the next step's line replaces both, as each
step's replaces the last (nodes/chat.py `progress_message`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from core.context import Context
from core.state import State
from nodes.chat import UNDERSTOOD_PREFIX, round_replies
from nodes.services import Services

NodeFn = Callable[[State, Runtime[Context], Services], dict[str, Any]]

#: The notice, in the user's language where paor has it (English otherwise).
TAKEN_OVER = {
    "en": "This run was interrupted (its server stopped); it goes on from the last finished step.",
    "de": "Diese Ausführung wurde unterbrochen (ihr Server hat angehalten); sie macht beim letzten fertigen Schritt "
    "weiter.",
    "fr": "Cette exécution a été interrompue (son serveur s'est arrêté) ; elle reprend à la dernière étape terminée.",
    "es": "Esta ejecución se interrumpió (su servidor se detuvo); sigue desde el último paso terminado.",
    "it": "Questa esecuzione è stata interrotta (il suo server si è fermato); riprende dall'ultimo passo completato.",
}
#: The (run, attempt) pairs this process has announced: only the first node of an attempt says it.
_ANNOUNCED: set[tuple[str, int]] = set()
_REMEMBERED = 1024


def announcing(fn: NodeFn) -> NodeFn:
    """`fn`, announcing first where it is the first node of a run's later attempt in this process."""

    def node(state: State, runtime: Runtime[Context], services: Services) -> dict[str, Any]:
        attempt = _new_attempt(runtime)
        if attempt is None:
            return fn(state, runtime, services)
        line = TAKEN_OVER.get(str((state.get("intent") or {}).get("language") or "en"), TAKEN_OVER["en"])
        runtime.stream_writer({"notice": "taken over", "attempt": attempt, "message": line})
        return with_line(state, fn(state, runtime, services), line)

    node.__name__ = getattr(fn, "__name__", "node")
    node.__doc__ = fn.__doc__
    return node


def _new_attempt(runtime: Runtime[Context]) -> int | None:
    """The attempt of this run, where it is a later one this process has not announced yet."""
    try:
        attempt = int((get_config().get("metadata") or {}).get("run_attempt") or 1)
    except (RuntimeError, TypeError, ValueError):  # outside a runnable context, or a value no server wrote
        return None
    run = str(getattr(runtime.execution_info, "run_id", None) or "")
    if attempt < 2 or not run or (run, attempt) in _ANNOUNCED:
        return None
    if len(_ANNOUNCED) >= _REMEMBERED:
        _ANNOUNCED.clear()
    _ANNOUNCED.add((run, attempt))
    return attempt


def with_line(state: State, update: dict[str, Any], line: str) -> dict[str, Any]:
    """`update` whose interim chat message (what paor understood, and the step it is on) ends with `line`; as it is
    where the node ends the round (the interim message removed for the answer) or the round shows none."""
    interim = next((m for m in round_replies(state) if str(m.id).startswith(UNDERSTOOD_PREFIX)), None)
    if interim is None:
        return update
    messages = list(update.get("messages") or [])
    own = [m for m in messages if m.id == interim.id]
    if not own:
        return {**update, "messages": [*messages, AIMessage(content=f"{interim.text}\n\n{line}", id=interim.id)]}
    last = own[-1]
    if not isinstance(last, AIMessage):  # removed: the round ends with this node's answer
        return update
    said = AIMessage(content=f"{last.text}\n\n{line}", id=interim.id)
    return {**update, "messages": [said if m is last else m for m in messages]}
