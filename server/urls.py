"""The paths and links of paor's own routes, shared by the routes themselves and the graph that links deliverables.

A deliverable link in a chat message is clicked, not fetched with headers: it is absolute (the server's public URL,
`PAOR_SERVER_PUBLIC_URL`, else the base URL the client used) and, while `PAOR_SERVER_API_KEY` is set, signed and
expiring as S3 presigned URLs are: `?owner=CLIENT&expires=UNIX&signature=HEX`, an HMAC-SHA256 over the owner, the
thread, the generation of the owner's records of that thread (server/records.py), the label, the name and the
expiry with a server secret (`PAOR_SERVER_LINK_SECRET`, else one derived from the client keys, so replacing the keys
retires every link). The link alone opens that one document until it expires or the thread is deleted (its records
and their generation go with it), nothing else; `signed_document` is the check the server runs before it serves a
request that carries no key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from urllib.parse import quote, urlencode

from graph.schemas import DocumentRef
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
    expires = int(time.time() if now is None else now) + link_ttl_s()
    signature = _sign(secret, owner, thread_id, generation, ref.label, ref.name, expires)
    return f"{url}?{urlencode({OWNER: owner, EXPIRES: str(expires), SIGNATURE: signature})}"


def signed_document(
    thread_id: str, label: str, name: str, query: Mapping[str, str], *, now: float | None = None
) -> str | None:
    """The owner whose unexpired signature for exactly this document `query` carries (path parts already
    unquoted), while the owner's records of the thread are the ones the link was made for; None otherwise."""
    secret = _secret()
    owner, expires, signature = query.get(OWNER, ""), query.get(EXPIRES, ""), query.get(SIGNATURE, "")
    if secret is None or not owner or not expires.isdigit() or not signature:
        return None
    if int(expires) < (time.time() if now is None else now):
        return None
    generation = ThreadRecords(server_store()).generation(owner, thread_id)
    if generation is None:  # the thread was deleted: its links with it
        return None
    expected = _sign(secret, owner, thread_id, generation, label, name, int(expires))
    return owner if hmac.compare_digest(expected.encode(), signature.encode()) else None


def signed_link(path: str, query: Mapping[str, str], *, now: float | None = None) -> tuple[str, str, str, str] | None:
    """(owner, thread, label, name) when `path` (as ASGI decodes it) is a document route and `query` signs it;
    else None. The check a request without a key passes through: the auth handler, the key gate and the route call
    it."""
    parts = path.split("/")
    # "", "paor", "threads", thread, "documents", label, name
    if len(parts) != 7 or parts[:3] != ["", "paor", "threads"] or parts[4] != "documents":
        return None
    thread_id, label, name = parts[3], parts[5], parts[6]
    owner = signed_document(thread_id, label, name, query, now=now)
    return (owner, thread_id, label, name) if owner else None


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


def _sign(secret: bytes, owner: str, thread_id: str, generation: str, label: str, name: str, expires: int) -> str:
    message = json.dumps([owner, thread_id, generation, label, name, expires], separators=(",", ":")).encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()
