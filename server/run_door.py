"""One door for runs: every way a run starts or continues passes the same checks, whichever route asked for it.

A run request may resume an interrupt and update the input, never steer the graph or write its working state
(server/records.py `writes_working_state`); each of its parts is within `PAOR_SERVER_MAX_RUN_KB`; a setting the model
endpoint would refuse is refused here (422) before any request is sent; a run that creates its thread counts against
the thread quota; and the client has at most its quota of runs in flight.

Where the door stands differs by server, and the engine says which (server/engine.py `checks_runs_where_prepared`):
on `langgraph dev` every run-starting route authorises as `threads.create_run`, so the auth handler is the door
(server/auth.py); on `paor serve`, Aegra's own run preparation is (server/aegra_runs.py): runs, stateless runs, a
cron's first run and every scheduled firing, and `/commands` (`run.start`, `input.respond`) all prepare their run
there, while the auth handler of some of them sees another shape (a cron, a command envelope) or nothing at all (a
scheduled firing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from core.context import refused_setting
from server import quotas
from server.records import writes_working_state
from server.settings import api_keys

STATE_WRITE = (
    "a paor thread's state is written by its runs only: a shared server refuses POST /threads/{id}/state, and a "
    "run command with a goto or an update of more than the input (prompt, messages, documents, language); send a "
    "prompt, documents (upload references or URLs) or a resume instead"
)


async def admit(owner: str, request: Mapping[str, Any], *, creates_thread: bool, run_id: str | None) -> None:
    """Refuse the run `request` (the run's body: input, command, context, config, metadata) of `owner` as an
    `Auth.exceptions.HTTPException` a person can read, or hold its place among the client's runs in flight."""
    check_request(request)
    if not api_keys():
        return
    quotas.check_size("the run's metadata", request.get("metadata"))
    if creates_thread:
        await quotas.check_count(owner, "threads")
    await quotas.check_runs(owner, run_id)  # last: it reserves a place


def check_request(request: Mapping[str, Any]) -> None:
    """What a run request may ask, whoever sends it and whenever it runs (a cron's payload is checked when it is
    made, and again at each firing)."""
    command = request.get("command")
    if api_keys() and isinstance(command, Mapping) and writes_working_state(command):
        raise Auth.exceptions.HTTPException(status_code=403, detail=STATE_WRITE)
    quotas.check_run_request(dict(request))
    check_settings("the run's context", request)


def check_settings(where: str, holder: Mapping[str, Any]) -> None:
    """422 for a setting the model endpoint would refuse, in a run's or an assistant's Context: its `context`, and
    its `config.configurable`, which the server merges in."""
    config = holder.get("config")
    configurable = config.get("configurable") if isinstance(config, Mapping) else None
    for settings in (holder.get("context"), configurable):
        refused = (
            refused_setting(settings["temperature"])
            if isinstance(settings, Mapping) and "temperature" in settings
            else None
        )
        if refused:
            raise Auth.exceptions.HTTPException(status_code=422, detail=f"{where}: {refused}")
