"""`paor serve`'s door for runs (server/run_door.py): Aegra's run preparation, where every run it makes is made.

Aegra 0.11 prepares every run in one function, `aegra_api.services.run_preparation._prepare_run`: the run routes,
stateless runs, a cron's first run (after authorising `crons.create`, never `threads.create_run`), the scheduler's
firings (no request, no auth at all), and the v2 `/commands` route (whose auth handler sees `{id, method, params}`,
not a run). Each caller imported the function by name, so each module's name for it is replaced by one that admits
the run first, with the client of the run (its `user.identity`) and the run request Aegra is about to store. A refusal
is the `HTTPException` Aegra's callers expect: a 4xx to a client, a protocol error envelope on `/commands`, a logged
skip for the scheduler (which tries again at its next tick).

The run's configuration gets the client's `host` (server/urls.py `REQUEST_HEADERS`) for its links. The run's place
among its client's runs in flight is held while Aegra inserts it, then released: from then on the
run is in Aegra's own table, which the runs quota counts.
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import HTTPException
from langgraph_sdk import Auth

from server import engine, quotas, run_door
from server.settings import api_keys
from server.urls import REQUEST_HEADERS

log = logging.getLogger(__name__)
_PREPARATION = "aegra_api.services.run_preparation"
_NAME = "_prepare_run"
#: Marks a preparation function already behind the door.
_DOOR = "__paor_door__"


def install() -> None:
    """Put the door in front of Aegra's run preparation, in the module that defines it and every module that
    imported it by name. Idempotent."""
    import aegra_api.services.run_preparation as preparation

    original = getattr(preparation, _NAME)
    if getattr(original, _DOOR, False):
        return
    door = behind_door(original)
    for module in list(sys.modules.values()):
        if getattr(module, _NAME, None) is original:
            setattr(module, _NAME, door)
    log.info("paor's run checks now stand in front of Aegra's run preparation")


def behind_door(prepare: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """`prepare` (Aegra's `_prepare_run(session, thread_id, request, user, …)`) that admits each run first."""

    async def prepare_run(session: Any, thread_id: str, request: Any, user: Any, *args: Any, **kwargs: Any) -> Any:
        owner = str(user.identity)
        body = request.model_dump(exclude_none=True) if hasattr(request, "model_dump") else dict(request)
        creates = bool(api_keys()) and not await engine.current().existing_threads(owner, [str(thread_id)])
        place = f"door:{uuid.uuid4()}"
        try:
            await run_door.admit(owner, body, creates_thread=creates, run_id=place)
        except Auth.exceptions.HTTPException as refused:
            raise HTTPException(refused.status_code, refused.detail, headers=refused.headers) from None
        _with_link_headers(request)
        try:
            return await prepare(session, thread_id, request, user, *args, **kwargs)
        finally:
            await quotas.release_place(owner, place)

    setattr(prepare_run, _DOOR, True)
    return prepare_run


def _with_link_headers(request: Any) -> None:
    """The client's `host` (and a proxy's forwarding headers) in the run's configuration, where its links are built
    from (server/policy.py `run_links`): Aegra passes no request headers to runs, so links were relative, and a
    relative link in a chat opens on the chat's own origin. A scheduled firing has no request: its links are
    absolute where PAOR_SERVER_PUBLIC_URL is set."""
    headers = REQUEST_HEADERS.get()
    if not headers or not hasattr(request, "config"):
        return
    config = dict(request.config or {})
    configurable = dict(config.get("configurable") or {})
    for name, value in headers.items():
        configurable.setdefault(name, value)
    request.config = {**config, "configurable": configurable}
