"""Optional API-key auth for the LangGraph server (`langgraph.json` `auth`), with owner-only threads.

PAOR_SERVER_API_KEY unset: the server is open, as `langgraph dev` is by default (keep it on loopback). Set — one
key, or several separated by commas, one per client — every protected route (runs, threads, assistants, the store
API, `/mcp` and paor's own routes, see `http.enable_custom_route_auth`) needs `x-api-key`; anything else is 401.
Each key is its own owner: threads, runs, assistants and crons are stamped with it and filtered by it, so a client
sees only its own (another's is 404, as if it did not exist) and the operator's assistants (langgraph.json: paor),
which no client can change, delete or name again; so `/mcp` and A2A, which list and run assistants as the caller,
list each client its own and the operator's. The store API is confined to namespaces that start with the client's
identity: paor's own learning memory is the graph's, not the clients'. Every client is held to the operator's
quotas (server/quotas.py): threads, runs in flight, assistants, crons, store items and bytes, document bytes, and
the size of what a resource keeps as metadata, configuration or context.
A thread's state is written by its runs: direct state writes, and run commands that update the fields carrying
documents, are refused. Identities are derived from the key by hashing (server/keys.py), so no key is ever stored
in metadata or logs. The routes LangGraph does not protect (its meta and development routes) are behind the same
key through server/gate.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from langgraph_sdk import Auth

from server import engine, quotas, run_door
from server.keys import ANONYMOUS, REFUSAL, client_of
from server.settings import api_keys
from server.urls import signed_link

__all__ = ["ANONYMOUS", "LINK", "auth"]
#: Who presents a deliverable link: it reaches that one document's route (server/urls.py), which checks it.
LINK = "signed-link"

auth = Auth()


@auth.authenticate
async def authenticate(
    headers: Mapping[Any, Any], method: str = "", path: str = "", query_params: Mapping[str, str] | None = None
) -> Auth.types.MinimalUserDict:
    """langgraph-api passes all four by name; Aegra calls `authenticate(headers)` alone, so a signed link is checked
    by the key gate and its route there. The engine reads the key from the headers as its server gives them."""
    if not api_keys():
        return {"identity": ANONYMOUS, "is_authenticated": False}
    identity = client_of(engine.current().client_key(headers))
    if identity is not None:
        return {"identity": identity}
    if method in ("GET", "HEAD") and signed_link(path, query_params or {}) is not None:  # a clicked link
        return {"identity": LINK, "permissions": []}
    raise Auth.exceptions.HTTPException(status_code=401, detail=REFUSAL)


def _owner_only(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Stamp what the caller creates with their identity and show them only what carries it."""
    if not api_keys():
        return None
    if ctx.action in ("create", "create_run", "update") and isinstance(value, dict):
        _stamp(value, owner=ctx.user.identity)
    return {"owner": ctx.user.identity}


def _stamp(value: dict[str, Any], **marks: str) -> None:
    metadata = value.get("metadata")
    if isinstance(metadata, dict):
        metadata.update(marks)  # in place: the server keeps its own reference to this dict
    else:
        value["metadata"] = dict(marks)


@auth.on.threads
async def own_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    return _owner_only(ctx, value)


@auth.on.threads.create
async def create_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """A new thread (or a copy) within the client's thread quota, with metadata of bounded size."""
    if api_keys() and isinstance(value, dict):
        quotas.check_size("the thread's metadata", value.get("metadata"))
        await quotas.check_count(ctx.user.identity, "threads")
    return _owner_only(ctx, value)


@auth.on.threads.update
async def update_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Metadata patches and run cancellations are owner-only like the rest; a direct write of a thread's state is
    refused (the engine knows how its server reports one): a paor thread's state is written by its runs only, and a
    client-written state could name any stored document by its hash (server/records.py keeps the graph from reading
    those)."""
    if api_keys() and isinstance(value, dict) and engine.current().writes_state(value):
        raise Auth.exceptions.HTTPException(status_code=403, detail=run_door.STATE_WRITE)
    if api_keys() and isinstance(value, dict) and isinstance(value.get("metadata"), dict) and value["metadata"]:
        thread = value.get("thread_id")  # none when LangGraph itself updates threads (an assistant's deletion)
        current = await engine.current().thread_metadata(ctx.user.identity, str(thread)) if thread else None
        quotas.check_size("the thread's metadata", {**(current or {}), **value["metadata"]})
    return _owner_only(ctx, value)


@auth.on.threads.create_run
async def create_runs(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """The door for runs where the server has no other (server/run_door.py); where it checks each run as it prepares
    it (`paor serve`), only the owner is stamped here."""
    if isinstance(value, dict) and not engine.current().checks_runs_where_prepared:
        kwargs = engine.current().run_request(value)
        owner, thread = ctx.user.identity, value.get("thread_id")
        if thread is None:  # a stateless run: its thread stays unless it is temporary (`on_completion: keep`)
            creates = not kwargs.get("temporary")
        else:
            creates = value.get("if_not_exists") == "create"
            creates = creates and bool(api_keys())
            creates = creates and not await engine.current().existing_threads(owner, [str(thread)])
        if api_keys():
            quotas.check_size("the run's metadata", value.get("metadata"))
        await run_door.admit(owner, kwargs, creates_thread=creates, run_id=str(value.get("run_id") or "") or None)
    return _owner_only(ctx, value)


@auth.on.crons
async def own_crons(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    return _owner_only(ctx, value)


@auth.on.crons.create
async def create_crons(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """A cron within the client's quota, its payload of bounded size and a run request the door would admit (its
    runs pass the door too, the first and every scheduled one), on one of the client's own threads."""
    if isinstance(value, dict):
        run_door.check_request(engine.current().cron_run(value))
    if api_keys() and isinstance(value, dict):
        quotas.check_size("the cron's payload", value.get("payload"))
        await quotas.check_count(ctx.user.identity, "crons")
        thread = value.get("thread_id")
        if thread is not None and not await engine.current().existing_threads(ctx.user.identity, [str(thread)]):
            raise Auth.exceptions.HTTPException(status_code=404, detail=f"Thread with ID {thread} not found")
    return _owner_only(ctx, value)


@auth.on.crons.update
async def update_crons(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    if isinstance(value, dict):
        run_door.check_request(engine.current().cron_run(value))
    if api_keys() and isinstance(value, dict):
        quotas.check_size("the cron's payload", value.get("payload"))
    return _owner_only(ctx, value)


#: What the server's own assistants (the graphs of langgraph.json) carry, set by LangGraph, never by a client.
SYSTEM = {"created_by": "system"}


def _own_or_operators(ctx: Auth.types.AuthContext) -> Auth.types.FilterType | None:
    if not api_keys():
        return None
    either: Any = {"$or": [{"owner": ctx.user.identity}, SYSTEM]}  # LangGraph's filters take $or; its types do not
    return cast(Auth.types.FilterType, either)


@auth.on.assistants.read
async def read_assistants(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """A client reads (and runs) its own assistants and the operator's: the graphs of langgraph.json (paor)."""
    return _own_or_operators(ctx)


@auth.on.assistants.search
async def search_assistants(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Listing them too: Studio, MCP's tools/list and tools/call and A2A start here, so each client's MCP tools are
    its own assistants and the operator's, never another client's."""
    return _own_or_operators(ctx)


@auth.on.assistants.create
async def create_assistants(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """An assistant a client creates is its own, within its quota, and never takes an operator's name."""
    if api_keys() and isinstance(value, dict):
        await _check_assistant(ctx, value)
        await quotas.check_count(ctx.user.identity, "assistants")
    return _owner_only(ctx, value)


@auth.on.assistants.update
async def update_assistants(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Only the client's own assistants change (the operator's carry no owner: 404), and never to an operator's
    name."""
    if api_keys() and isinstance(value, dict):
        await _check_assistant(ctx, value)
    return _owner_only(ctx, value)


@auth.on.assistants
async def own_assistants(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Deleting too: the client's own assistants only."""
    return _owner_only(ctx, value)


async def _check_assistant(ctx: Auth.types.AuthContext, value: dict[str, Any]) -> None:
    for field in ("metadata", "config", "context"):
        quotas.check_size(f"the assistant's {field}", value.get(field))
    run_door.check_settings("the assistant's context", value)
    quotas.check_size("the assistant's description", value.get("description"))
    name = value.get("name")
    if isinstance(name, str) and _tool_name(name) in {_tool_name(own) for own in await _operator_names()}:
        raise Auth.exceptions.HTTPException(
            status_code=409,
            detail=f"the assistant name {name!r} is the operator's (an MCP tool of every client); choose another",
        )
    _stamp(value, owner=ctx.user.identity, created_by=ctx.user.identity)  # never "system": that is the operator's


_OPERATOR_NAMES: list[str] = []


async def _operator_names() -> list[str]:
    """The names of the operator's assistants (fixed when the server starts)."""
    if not _OPERATOR_NAMES:
        _OPERATOR_NAMES.extend(await engine.current().operator_names())
    return _OPERATOR_NAMES


def _tool_name(name: str) -> str:
    """An assistant's name as MCP lists it (langgraph_api's normalisation), case folded."""
    return re.sub(r"[^a-zA-Z0-9_\-.]", "", re.sub(r"\s+", "_", name.strip()))[:128].casefold()


@auth.on.store()
async def own_namespaces(ctx: Auth.types.AuthContext, value: Any) -> bool | None:
    """A client's namespaces start with its identity, for items, searches (`namespace_prefix` on Aegra) and
    listings (`prefix`); what it puts there is held to its store quotas. A namespace or key the store cannot keep
    is 422 here, not a 500 from the database."""
    namespace = tuple(value.get("namespace") or value.get("namespace_prefix") or value.get("prefix") or ())
    _check_store_names(namespace, value.get("key"))
    if not api_keys():
        return None
    if not namespace or namespace[0] != ctx.user.identity:
        raise Auth.exceptions.HTTPException(
            status_code=403, detail=f"store namespaces of this client start with {ctx.user.identity!r}"
        )
    if ctx.action == "put":
        if value.get("value") is None:  # a put of None deletes the item
            await quotas.STORE.forget(ctx.user.identity, namespace, str(value.get("key")))
        else:
            await quotas.STORE.admit(ctx.user.identity, namespace, str(value.get("key")), value.get("value"))
    elif ctx.action == "delete":
        await quotas.STORE.forget(ctx.user.identity, namespace, str(value.get("key")))
    return None


#: The longest store key or namespace label a client may use (PostgreSQL indexes them; a 2 MB key was a 500).
MAX_STORE_NAME = 512


def _check_store_names(namespace: tuple[Any, ...], key: Any) -> None:
    """LangGraph's rules for namespace labels (non-empty text without periods, which the stores use as the
    separator) and a bound on labels and keys."""
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label or len(label) > MAX_STORE_NAME:
            raise Auth.exceptions.HTTPException(
                status_code=422,
                detail=f"a store namespace label is text of 1 to {MAX_STORE_NAME} characters without periods",
            )
    if key is not None and (not isinstance(key, str) or len(key) > MAX_STORE_NAME):
        raise Auth.exceptions.HTTPException(
            status_code=422, detail=f"a store key is text of at most {MAX_STORE_NAME} characters"
        )


@auth.on
async def refuse_the_rest(ctx: Auth.types.AuthContext, value: Any) -> bool | None:
    """Anything no handler above covers is refused while auth is on."""
    return None if not api_keys() else False
