"""The paths and links of paor's own routes, shared by the routes themselves and the graph that links deliverables.

A deliverable link in a chat message is clicked, not fetched with headers: it is absolute (the server's public URL,
`PAOR_SERVER_PUBLIC_URL`, else the base URL the client used) and, while `PAOR_SERVER_API_KEY` is set, signed:
`?owner=CLIENT&signature=HEX`, an HMAC-SHA256 over the owner, the thread, the generation of the owner's records of
that thread (server/records.py), the label, the name and the expiry (none by default) with a server secret
(`PAOR_SERVER_LINK_SECRET`, else one derived from the client keys, so replacing the keys retires every link).

A link is bound to its thread, not to a clock, because a link frozen in a stored chat message cannot be renewed by
whoever clicks it: it opens that one document, nothing else, as long as the owner's records of the thread exist.
Deleting the thread drops them and their generation, which revokes every link to it. An operator who wants links
to age sets `PAOR_SERVER_LINK_TTL_S`; such a link carries `&expires=UNIX` (as every link issued before links
stopped expiring does), signed with the rest, and opens nothing after it.

A request that presents a link (`signed_link`) passes the key gate and the auth handler; the route verifies it
(`verify_link`) and answers one that fails with a page saying why and how to get a fresh one, never the document.
"""

from __future__ import annotations

import contextvars
import enum
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from urllib.parse import quote, urlencode

from core.schemas import DocumentRef
from server.records import ThreadRecords, run_owner
from server.settings import api_keys, link_secret, link_ttl_s, public_url, server_store

UPLOAD_PATH = "/paor/documents"
UPLOADED_PATH = "/paor/documents/{reference}"
DELIVERABLES_PATH = "/paor/threads/{thread_id}/deliverables"
DOCUMENT_PATH = "/paor/threads/{thread_id}/documents/{label}/{name}"
OWNER = "owner"
EXPIRES = "expires"
SIGNATURE = "signature"
_DERIVED = b"paor download links"


class Refusal(enum.Enum):
    """Why a link opens nothing: the page the route answers says so."""

    EXPIRED = "expired"  # this server signed it for this document, and its expiry has passed
    REVOKED = "revoked"  # its thread's records are gone, or this server never signed it for this document


def document_url(
    thread_id: str, ref: DocumentRef, *, base: str = "", now: float | None = None, owner: str | None = None
) -> str:
    """Where a server client downloads one of the thread's documents: `base` + path, signed while auth is on for
    `owner` (by default the client whose run this is, server/records.py `run_owner`)."""
    path = DOCUMENT_PATH.format(
        thread_id=quote(thread_id, safe=""), label=quote(ref.label, safe=""), name=quote(ref.name, safe="")
    )
    url = (public_url() or base.rstrip("/")) + path
    secret = _secret()
    if secret is None:
        return url
    owner = owner or run_owner()
    generation = ThreadRecords(server_store()).generation(owner, thread_id, create=True) or ""
    ttl = link_ttl_s()
    expires = None if ttl is None else int(time.time() if now is None else now) + ttl
    signature = _sign(secret, owner, thread_id, generation, ref.label, ref.name, expires)
    expiry = {} if expires is None else {EXPIRES: str(expires)}
    return f"{url}?{urlencode({OWNER: owner, **expiry, SIGNATURE: signature})}"


def is_link(query: Mapping[str, str]) -> bool:
    """Whether a request presents a deliverable link (an owner and a signature), valid or not."""
    return OWNER in query and SIGNATURE in query


def verify_link(
    thread_id: str, label: str, name: str, query: Mapping[str, str], *, now: float | None = None
) -> str | Refusal:
    """The owner whose link for exactly this document `query` carries (path parts already unquoted), while the
    owner's records of the thread are the ones it was signed for and its expiry, if it has one, has not passed;
    else why it opens nothing. The signature is checked first: only a link this server signed is called expired."""
    secret = _secret()
    owner, signature, expires = query.get(OWNER, ""), query.get(SIGNATURE, ""), query.get(EXPIRES)
    if secret is None or not owner or not signature or (expires is not None and not expires.isdecimal()):
        return Refusal.REVOKED
    generation = ThreadRecords(server_store()).generation(owner, thread_id)
    if generation is None:  # the thread was deleted: its links with it
        return Refusal.REVOKED
    expiry = None if expires is None else int(expires)
    expected = _sign(secret, owner, thread_id, generation, label, name, expiry)
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        return Refusal.REVOKED
    if expiry is not None and expiry < (time.time() if now is None else now):
        return Refusal.EXPIRED
    return owner


def signed_link(path: str, query: Mapping[str, str]) -> tuple[str, str, str, str] | None:
    """(owner, thread, label, name) when `path` (as ASGI decodes it) is a document route and `query` presents a
    link for it, not yet verified; else None. The key gate and the auth handler let such a request through without
    a key, so that the route, which verifies it (`verify_link`), can answer a dead link with a page saying why."""
    parts = path.split("/")
    # "", "paor", "threads", thread, "documents", label, name
    if len(parts) != 7 or parts[:3] != ["", "paor", "threads"] or parts[4] != "documents" or not is_link(query):
        return None
    return query[OWNER], parts[3], parts[5], parts[6]


#: The headers a run's links are built from (server/policy.py `run_links`).
LINK_HEADERS = ("host", "x-forwarded-host", "x-forwarded-proto")
#: Those headers of the request being served: a server that passes no headers to its runs (Aegra) has them put in
#: the run's configuration where it prepares the run (server/aegra_runs.py), as langgraph.json's
#: `configurable_headers` has `langgraph dev` do.
REQUEST_HEADERS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "paor_request_headers", default=None
)


def base_url(headers: Mapping[str, str]) -> str:
    """The base URL a client used, from its request headers (`host`, or a proxy's `x-forwarded-host` and
    `x-forwarded-proto`); empty without a host. A client that sends another host only misdirects its own links."""
    host = (headers.get("x-forwarded-host") or headers.get("host") or "").split(",")[0].strip()
    if not host or any(c in host for c in "/\\@ "):
        return ""
    scheme = (headers.get("x-forwarded-proto") or "http").split(",")[0].strip().lower()
    return f"{scheme if scheme in ('http', 'https') else 'http'}://{host}"


def _secret() -> bytes | None:
    """None while auth is off: every route is open then, and a link needs no signature."""
    keys = api_keys()
    if not keys:
        return None
    given = link_secret()
    if given:
        return given.encode()
    return hmac.new(_DERIVED, "\n".join(sorted(keys)).encode(), hashlib.sha256).digest()


def _sign(
    secret: bytes, owner: str, thread_id: str, generation: str, label: str, name: str, expires: int | None
) -> str:
    """None signs as JSON null: adding an expiry to a lasting link, or dropping one from an expiring link, breaks it."""
    message = json.dumps([owner, thread_id, generation, label, name, expires], separators=(",", ":")).encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()
