"""A client's answer to an interrupt answers that interrupt only, also when its run is executed a second time.

A client answers a question (an approval, a clarification) with `command={"resume": value}`. `paor serve` keeps the
command with the run, and when the instance running it dies, Aegra executes the run again on another instance with
the same command (aegra_api.services.run_executor `_resolve_input`; LangGraph then resumes from the thread's last
checkpoint). LangGraph gives a plain `resume` to whichever interrupt is pending then: when the instance died after
the run had gone on and asked its next question (saved) but before the run was marked interrupted, the second
execution answers that next question with the answer to the first — step 2's action ran on step 1's approval
(tests/engine/test_crash.py::test_an_action_is_not_run_unapproved_when_the_instance_dies_as_it_asks).

LangGraph's resume map, `{interrupt_id: value}`, answers the interrupt it names and no other. So a run request
whose `resume` is plain becomes one whose `resume` names the thread's one pending interrupt, read through the
server's own API with the caller's key when the run is made. A thread with no or several pending interrupts, and a
resume that is a map already, are passed on as sent (LangGraph says what is wrong with them).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import orjson
from langgraph_sdk.client import LangGraphClient
from starlette.types import ASGIApp, Receive, Scope, Send

from server.keys import HEADER, owner_of
from server.traffic import read_body, replay

#: Run requests on a thread.
_THREAD_RUNS = re.compile(r"^/threads/([^/]+)/runs(/stream|/wait)?/?$")
#: An interrupt's id: LangGraph's xxh3-128 hex digest.
_INTERRUPT_ID = re.compile(r"^[0-9a-f]{32}$")
#: The traffic middleware, which runs first, bounded the body already.
_UNBOUNDED = 1 << 62


def is_resume_map(resume: object) -> bool:
    """Whether `resume` names the interrupts it answers (LangGraph's own test: every key an interrupt id)."""
    return isinstance(resume, dict) and bool(resume) and all(_INTERRUPT_ID.match(str(key)) for key in resume)


def pinned(request: dict[str, Any], pending: list[str]) -> dict[str, Any] | None:
    """`request` with its plain `command.resume` turned into `{interrupt_id: resume}` for the one `pending`
    interrupt; None when there is nothing to pin (no command, no resume, a map already, not exactly one pending)."""
    command = request.get("command")
    if not isinstance(command, dict) or command.get("resume") is None or len(pending) != 1:
        return None
    resume = command["resume"]
    if is_resume_map(resume):
        return None
    return {**request, "command": {**command, "resume": {pending[0]: resume}}}


async def pending_interrupts(app: ASGIApp, thread_id: str, key: bytes | None) -> list[str]:
    """The ids of the thread's pending interrupts as the caller (its `key`) sees them through the server's API; none
    for a thread it may not see (its run request is refused then anyway)."""
    transport = httpx.ASGITransport(app=app)
    headers = {HEADER: key.decode("utf-8", errors="replace")} if key else {}
    async with httpx.AsyncClient(transport=transport, base_url="http://paor.internal", headers=headers) as http:
        try:
            state = await LangGraphClient(http).threads.get_state(thread_id)
        except httpx.HTTPStatusError:
            return []
    tasks = state.get("tasks") or []
    return [
        str(interrupt["id"])
        for task in tasks
        if isinstance(task, dict)
        for interrupt in task.get("interrupts") or []
        if isinstance(interrupt, dict) and interrupt.get("id")
    ]


class PinnedResumes:
    """ASGI middleware: a run request on a thread whose `command.resume` is plain names the interrupt it answers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"] if scope["type"] == "http" else ""
        match = _THREAD_RUNS.match(path)
        key = dict(scope.get("headers") or []).get(HEADER.encode())
        if match is None or scope.get("method") != "POST" or owner_of(key) is None:
            await self.app(scope, receive, send)
            return
        body = await read_body(receive, _UNBOUNDED) or b""
        request = _resuming(body, match.group(1))
        changed = None
        if request is not None:
            pending = await pending_interrupts(scope.get("app") or self.app, match.group(1), key)
            changed = pinned(request, pending)
        if changed is None:
            await self.app(scope, replay(body, receive), send)
            return
        lean = orjson.dumps(changed)
        headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"content-length"]
        headers.append((b"content-length", str(len(lean)).encode()))
        await self.app({**scope, "headers": headers}, replay(lean, receive), send)


def _resuming(body: bytes, thread_id: str) -> dict[str, Any] | None:
    """The request parsed, where it resumes a thread (a cheap look at the bytes first); else None."""
    if b'"resume"' not in body:
        return None
    try:
        uuid.UUID(thread_id)
        request = orjson.loads(body)
    except (ValueError, orjson.JSONDecodeError):
        return None
    return request if isinstance(request, dict) else None
