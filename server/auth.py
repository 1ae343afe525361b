"""Optional API-key auth for the LangGraph server (`langgraph.json` `auth`), with owner-only threads.

PAOR_SERVER_API_KEY unset: the server is open, as `langgraph dev` is by default (keep it on loopback). Set — one
key, or several separated by commas, one per client — every protected route (runs, threads, assistants, the store
API, `/mcp` and paor's own routes, see `http.enable_custom_route_auth`) needs `x-api-key`; anything else is 401.
Each key is its own owner: threads, runs and crons are stamped with it and filtered by it, so a client sees only
its own threads (another's is 404, as if it did not exist). Assistants are shared for reading (paor's own has no
owner); one a client creates can be changed or deleted by that client only. The store API is confined to
namespaces that start with the client's identity: paor's own learning memory is the graph's, not the clients'.
A thread's state is written by its runs: direct state writes, and run commands that update the fields carrying
documents, are refused. Identities are derived from the key by hashing (server/keys.py), so no key is ever stored
in metadata or logs. The routes LangGraph does not protect (its meta and development routes) are behind the same
key through server/gate.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from server.keys import HEADER, REFUSAL, client_of
from server.records import DOCUMENT_FIELDS, touches_documents
from server.settings import api_keys
from server.urls import signed_link

ANONYMOUS = "anonymous"
#: Who presents a signed deliverable link: it opens that one document (server/urls.py) and no other route.
LINK = "signed-link"

auth = Auth()


@auth.authenticate
async def authenticate(
    headers: dict[bytes, bytes], method: str, path: str, query_params: Mapping[str, str]
) -> Auth.types.MinimalUserDict:
    if not api_keys():
        return {"identity": ANONYMOUS, "is_authenticated": False}
    identity = client_of(headers.get(HEADER.encode()))
    if identity is not None:
        return {"identity": identity}
    if method == "GET" and signed_link(path, query_params) is not None:  # a clicked deliverable link: that document
        return {"identity": LINK, "permissions": []}
    raise Auth.exceptions.HTTPException(status_code=401, detail=REFUSAL)


def _owner_only(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Stamp what the caller creates with their identity and show them only what carries it."""
    if not api_keys():
        return None
    if ctx.action in ("create", "create_run", "update") and isinstance(value, dict):
        metadata = value.get("metadata")
        if isinstance(metadata, dict):
            metadata["owner"] = ctx.user.identity  # in place: the server keeps its own reference to this dict
        else:
            value["metadata"] = {"owner": ctx.user.identity}
    return {"owner": ctx.user.identity}


@auth.on.threads
async def own_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    return _owner_only(ctx, value)


_STATE_WRITE = (
    "a paor thread's state is written by its runs only: a shared server refuses POST /threads/{id}/state, and a "
    f"run command that updates {', '.join(DOCUMENT_FIELDS)}; send a prompt, documents (upload references or URLs) "
    "or a resume instead"
)


@auth.on.threads.update
async def update_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Metadata patches and run cancellations are owner-only like the rest; a direct write of a thread's state is
    refused. LangGraph reports `POST /threads/{id}/state` as an update carrying the thread id alone (a patch carries
    `metadata`, a cancellation its `action`), and a paor thread's state is written by its runs only: a client-written
    state could name any stored document by its hash (server/records.py keeps the graph from reading those)."""
    if api_keys() and isinstance(value, dict) and not value.keys() - {"thread_id"}:
        raise Auth.exceptions.HTTPException(status_code=403, detail=_STATE_WRITE)
    return _owner_only(ctx, value)


@auth.on.threads.create_run
async def create_runs(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """A run's `command` may resume an interrupt, never write the fields that carry documents."""
    command = (value.get("kwargs") or {}).get("command") if isinstance(value, dict) else None
    if api_keys() and isinstance(command, dict) and touches_documents(command.get("update")):
        raise Auth.exceptions.HTTPException(status_code=403, detail=_STATE_WRITE)
    return _owner_only(ctx, value)


@auth.on.crons
async def own_crons(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    return _owner_only(ctx, value)


@auth.on.assistants.read
async def read_assistants(ctx: Auth.types.AuthContext, value: Any) -> None:
    """The graphs of langgraph.json (paor) belong to everyone who may use the server."""


@auth.on.assistants.search
async def search_assistants(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Listing them too: Studio and MCP's tools/list start here."""


@auth.on.assistants
async def own_assistants(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Assistants a client creates are theirs; the server's own (no owner) cannot be changed or deleted."""
    return _owner_only(ctx, value)


@auth.on.store()
async def own_namespaces(ctx: Auth.types.AuthContext, value: Any) -> bool | None:
    if not api_keys():
        return None
    namespace = tuple(value.get("namespace") or ())
    if not namespace or namespace[0] != ctx.user.identity:
        raise Auth.exceptions.HTTPException(
            status_code=403, detail=f"store namespaces of this client start with {ctx.user.identity!r}"
        )
    return None


@auth.on
async def refuse_the_rest(ctx: Auth.types.AuthContext, value: Any) -> bool | None:
    """Anything no handler above covers is refused while auth is on."""
    return None if not api_keys() else False
