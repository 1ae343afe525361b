"""`paor serve`: a failed run's error event carries paor's message when the message is written for the client.

Aegra 0.11 ends the stream of every failed run with `{"error": "<Type>", "message": "<Type>: execution failed"}`,
keeping the exception's text for the run record alone; langgraph-api shows the message of a `ValueError`. paor's
errors meant for the client are ValueErrors with one line each (core/errors.py: an outage naming the service and
what to do, a refused request, an input document refused), written without the operator's addresses; on `paor
serve` they reached the chat as "ModelUnavailable: execution failed". So where Aegra records a failed run's error
(its `finalize_run`), the text is kept a moment, and the error event of that run shows it when its type is one of
those. Every other error keeps Aegra's own words: a bug's text may hold anything.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from core.errors import PaorError


def shown(error_type: str) -> bool:
    """Whether `error_type` names one of paor's errors whose message a client may read: its ValueErrors."""
    found, seen = [PaorError], set()
    while found:
        kind = found.pop()
        if kind.__name__ == error_type and issubclass(kind, ValueError):
            return True
        seen.add(kind)
        found.extend(sub for sub in kind.__subclasses__() if sub not in seen)
    return False


#: Errors recorded and not yet signalled, by run (a handful at a time; bounded all the same).
_RECORDED: dict[str, str] = {}
_MOST = 1024


def install() -> None:
    """Wrap Aegra's run finalisation and error signal (idempotent)."""
    from aegra_api.services import run_executor
    from aegra_api.services.streaming_service import streaming_service

    if getattr(run_executor.finalize_run, "__paor__", False):
        return
    run_executor.finalize_run = _recording(run_executor.finalize_run)
    streaming_service.signal_run_error = _showing(streaming_service.signal_run_error)


def _recording(finalize: Callable[..., Awaitable[bool]]) -> Callable[..., Awaitable[bool]]:
    async def finalize_run(run_id: str, *args: Any, error: str | None = None, **kwargs: Any) -> bool:
        if error:
            if len(_RECORDED) >= _MOST:
                _RECORDED.clear()
            _RECORDED[run_id] = error
        return await finalize(run_id, *args, error=error, **kwargs)

    finalize_run.__paor__ = True  # type: ignore[attr-defined]
    return finalize_run


def _showing(signal: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    async def signal_run_error(run_id: str, error_message: str, error_type: str = "Error") -> None:
        recorded = _RECORDED.pop(run_id, None)
        if recorded and shown(error_type):
            error_message = recorded
        await signal(run_id, error_message, error_type)

    return signal_run_error
