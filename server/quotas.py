"""Per-client quotas of a shared server: threads, runs in flight, assistants, crons, store items and bytes, and
document bytes (server/settings.py `LIMITS`, docs/shared-server.md#limits).

The auth handler (server/auth.py) asks these before LangGraph creates anything; the upload route asks
`documents_refusal`. Counts come from the server's own API, asked in-process for the owner's resources
(server/engine.py), so they hold whatever created them (a run, a copy, MCP), and are counted where the engine
counts: across every instance of `paor serve`. The store's bytes are kept in a ledger per client, loaded once from
the store and updated on every write through the API (read again on each write where several processes write).
A refusal is an `Auth.exceptions.HTTPException` a person can read: 429 for a count (with `Retry-After` where
waiting helps: runs in flight end), 413 for bytes. Quotas apply while keys are set: without them the server has
one client.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
import uuid
from typing import Any

from langgraph_sdk import Auth

from server import engine, forgetting
from server.engine import StoreSizes, item_size
from server.records import ThreadRecords
from server.run_sizes import RUN_PARTS, size_of
from server.settings import LIMITS, api_keys, limit, server_store
from server.uploads import owner_uploads

log = logging.getLogger(__name__)

MB = 1024 * 1024
#: Seconds a client at its runs-in-flight quota is asked to wait before trying again.
RETRY_RUNS_S = 5
#: Seconds between rescans of a client's store items when a write is refused (items may have expired since).
RESCAN_S = 30.0

_NOUNS = {"threads": "threads", "assistants": "assistants", "crons": "crons"}
_HOW_TO_FREE = {
    "threads": "delete threads you no longer need (DELETE /threads/{thread_id})",
    "assistants": "delete assistants you no longer need (DELETE /assistants/{assistant_id})",
    "crons": "delete crons you no longer need (DELETE /runs/crons/{cron_id})",
}


def _setting(name: str) -> str:
    return LIMITS[name][0]


def refuse(status: int, detail: str, retry_after: int | None = None) -> Auth.exceptions.HTTPException:
    headers = {"Retry-After": str(retry_after)} if retry_after else None
    return Auth.exceptions.HTTPException(status_code=status, detail=detail, headers=headers)


async def check_count(owner: str, resource: str) -> None:
    """Refuse creating one more thread, assistant or cron above the client's quota. Checks of one client take turns
    across instances, and a creation that passed holds a place until its request ends (the server has inserted it
    by then), so creations sent at once to several instances cannot all pass on the same count."""
    if not api_keys():
        return
    most = int(limit(resource))
    counters, places = engine.current().counters, f"{resource}:{owner}"
    async with counters.turn(places):
        made, being_made = await engine.current().count(owner, resource), len(await counters.reserved(places))
        if _over_quota(owner, resource, made, being_made, most):
            raise refuse(
                429,
                f"this client has {made + being_made} {_NOUNS[resource]}, the most this server keeps for one client "
                f"({_setting(resource)}={most}); {_HOW_TO_FREE[resource]}",
            )
        await _hold(places, f"new:{uuid.uuid4()}")


def _over_quota(owner: str, resource: str, listed: int, being_made: int, most: int) -> bool:
    """Whether one more is over the quota, logged with the counts it was decided on (the server's rows, the places
    held by requests in flight): an operator sees why a client was refused, and a count that let one too many pass
    shows."""
    over = listed + being_made >= most
    verdict = "refused" if over else "passed"
    log.info(
        "quota %s: %s %s: %d listed and %d being made, at most %d", verdict, owner, resource, listed, being_made, most
    )
    return over


#: Seconds a run that passed the check counts as in flight until the server lists it (it inserts it right after),
#: when no request holds its place (a cron's run); a request's runs count until the request ends (at most an hour).
RESERVE_S = 3.0
HELD_S = 3600.0
#: The places the current request reserved, released when it ends (server/traffic.py).
REQUEST_RESERVATIONS: contextvars.ContextVar[list[tuple[str, str]] | None] = contextvars.ContextVar(
    "paor_run_reservations", default=None
)


async def release(reservations: list[tuple[str, str]]) -> None:
    """The request that reserved these places ended: its runs are in the server's lists, or were never made."""
    for owner in {owner for owner, _ in reservations}:
        await engine.current().counters.unreserve(owner, [run for who, run in reservations if who == owner])


#: How the place of a request that starts its run later (an MCP `tools/call`) is named: that run takes it over.
AHEAD = "ahead:"


async def check_runs(owner: str, run_id: str | None = None, *, reserve: bool = True) -> None:
    """Refuse a run while the client has its quota of runs queued or running, or its documents fill their quota.
    Checks of one client take turns (across instances), and a run that passed counts until the server lists it,
    so runs sent at once cannot all pass on the same count (`reserve=False`: a look ahead that keeps no place). A
    request that checked ahead under an `AHEAD` name holds a place until it ends, and the run it then starts takes
    that place: no run of another request can take it in between (an MCP call beside other runs once passed its
    look ahead, then its run was refused and LangGraph answered a bare 500)."""
    if not api_keys():
        return
    most = int(limit("runs"))
    counters = engine.current().counters
    async with counters.turn(f"runs:{owner}"):
        if not (run_id or "").startswith(AHEAD):
            await _take_over_place_held_ahead(owner)
        reserved = await counters.reserved(owner)
        listed = await engine.current().runs_in_flight(owner, most + len(reserved))
        if counted := reserved & listed:  # the server lists it now
            await counters.unreserve(owner, counted)
        if _over_quota(owner, "runs", len(listed), len(reserved - listed), most):
            raise refuse(
                429,
                f"this client has {len(listed | reserved)} runs queued or running, the most this server runs at once "
                f"for one client ({_setting('runs')}={most}); wait for one to end, or cancel one",
                retry_after=RETRY_RUNS_S,
            )
        if refused := await documents_refusal(owner, 0, starting_run=True):
            raise refuse(429, refused)
        if reserve:
            await _hold(owner, str(run_id or f"unnamed-{time.time()}"))


async def _hold(owner: str, place: str) -> None:
    """A place under `owner` (a client's runs, or `resource:client`) held until the current request ends, or
    `RESERVE_S` where no request holds it (a cron's scheduled run)."""
    held = REQUEST_RESERVATIONS.get()
    await engine.current().counters.reserve(owner, place, HELD_S if held is not None else RESERVE_S)
    if held is not None:
        held.append((owner, place))


async def release_place(owner: str, place: str) -> None:
    """The run or resource that held `place` is in the server's lists now, or was never made."""
    held = REQUEST_RESERVATIONS.get()
    if held is not None and (owner, place) in held:
        held.remove((owner, place))
    if api_keys():
        await engine.current().counters.unreserve(owner, [place])


async def _take_over_place_held_ahead(owner: str) -> None:
    held = REQUEST_RESERVATIONS.get()
    ahead = next((entry for entry in held or [] if entry[0] == owner and entry[1].startswith(AHEAD)), None)
    if held is not None and ahead is not None:
        held.remove(ahead)
        await engine.current().counters.unreserve(owner, [ahead[1]])


def check_run_request(request: Any) -> None:
    """Each part of a run request within `PAOR_SERVER_MAX_RUN_KB` (413 naming the part), while keys are set."""
    if api_keys() and isinstance(request, dict):
        for part in RUN_PARTS:
            check_size(f"the run's {part}", request.get(part), "run_kb")


def check_size(what: str, value: Any, setting: str = "metadata_kb") -> None:
    """Refuse metadata, configuration or context (or, by `run_kb`, a part of a run request) larger than the
    operator allows for one resource."""
    if value is not None:
        check_bytes(what, size_of(value), setting)


def check_bytes(what: str, size: int, setting: str = "metadata_kb") -> None:
    most = int(limit(setting) * 1024)
    if size > most:
        raise refuse(
            413,
            f"{what} takes {size / 1024:.1f} KB; this server keeps at most {most // 1024} KB of it "
            f"({_setting(setting)}); keep large data in documents (POST /paor/documents)",
        )


# --- document bytes ------------------------------------------------------------------------------------------------


def document_bytes(owner: str) -> int:
    """Bytes of the distinct documents the client holds: its uploads and what its threads produced or received."""
    root = server_store()
    records = ThreadRecords(root)
    sizes: dict[str, int] = {}
    for thread in records.threads(owner):
        sizes.update((ref.sha256, ref.size) for ref in records.documents(owner, thread))
    sizes.update((ref.sha256, ref.size) for _, ref in owner_uploads(root, owner))
    return sum(sizes.values())


async def documents_refusal(owner: str, adding: int, *, starting_run: bool = False) -> str | None:
    """Why `adding` more bytes of documents would take the client over its quota; None if they fit."""
    if not api_keys():
        return None
    quota = limit("documents_mb") * MB
    used = await asyncio.to_thread(document_bytes, owner)
    if (used + adding > quota or (starting_run and used >= quota)) and await forgetting.sweep(owner):
        used = await asyncio.to_thread(document_bytes, owner)
    if used + adding <= quota and not (starting_run and used >= quota):
        return None
    doing = "a run would add more" if starting_run else f"this one adds {adding / MB:.1f} MB"
    return (
        f"this client's documents take {used / MB:.1f} MB of the {quota / MB:g} MB this server keeps for one client "
        f"({_setting('documents_mb')}) and {doing}; delete threads (DELETE /threads/{{thread_id}}) or uploads "
        "(DELETE /paor/documents/{reference}) you no longer need"
    )


# --- store items and bytes -----------------------------------------------------------------------------------------


class StoreLedger:
    """The size of each store item of each client, as written through the API; read again from the engine on every
    write where several processes write (`paor serve`), kept between writes where one does (`langgraph dev`)."""

    def __init__(self) -> None:
        self._sizes: dict[str, StoreSizes] = {}
        self._scanned: dict[str, float] = {}

    async def admit(self, owner: str, namespace: tuple[str, ...], key: str, value: Any) -> None:
        """Refuse a put that takes the client over its items or bytes; otherwise count it."""
        if not api_keys():
            return
        size = item_size(tuple(namespace), key, size_of(value))
        most_bytes, most_items = int(limit("store_mb") * MB), int(limit("store_items"))
        async with engine.current().counters.turn(f"store:{owner}"):
            for attempt in range(2):
                sizes = await self._load(owner, fresh=attempt == 1 or not engine.current().one_process)
                item = (tuple(namespace), key)
                items = len(sizes) + (item not in sizes)
                used = sum(sizes.values()) - sizes.get(item, 0) + size
                if items <= most_items and used <= most_bytes:
                    sizes[item] = size
                    return
                if time.monotonic() - self._scanned.get(owner, 0.0) < RESCAN_S:
                    break
        if items > most_items:
            raise refuse(
                429,
                f"this client has {items - 1} store items, the most this server keeps for one client "
                f"({_setting('store_items')}={most_items}); delete items you no longer need (DELETE /store/items)",
            )
        raise refuse(
            413,
            f"this client's store items would take {used / MB:.1f} MB; this server keeps at most "
            f"{limit('store_mb'):g} MB for one client ({_setting('store_mb')}); delete items you no longer need "
            "(DELETE /store/items)",
        )

    async def forget(self, owner: str, namespace: tuple[str, ...], key: str) -> None:
        self._sizes.get(owner, {}).pop((tuple(namespace), key), None)

    async def _load(self, owner: str, *, fresh: bool) -> StoreSizes:
        if owner in self._sizes and not fresh:
            return self._sizes[owner]
        self._sizes[owner] = await engine.current().store_sizes(owner)
        self._scanned[owner] = time.monotonic()
        return self._sizes[owner]


STORE = StoreLedger()
