"""Which client a presented `x-api-key` belongs to: one decision for LangGraph's auth handler and the key gate.

Identities are derived from the key by hashing, so no key is ever stored in metadata or logs. Every configured key
is compared, each in constant time, so neither a near miss nor which key matched shows in the answer's timing.
"""

from __future__ import annotations

import hashlib
import hmac

from server.settings import API_KEY_ENV, api_keys

HEADER = "x-api-key"
REFUSAL = f"missing or wrong {HEADER} ({API_KEY_ENV} is set)"
#: The one owner of everything while no key is set (an open server: every client is the same one).
ANONYMOUS = "anonymous"


def identity_of(key: str) -> str:
    return "client-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def client_of(presented: str | bytes | None) -> str | None:
    """The identity of the client whose key was presented; None for no key or a wrong one."""
    if isinstance(presented, bytes):
        presented = presented.decode("utf-8", errors="replace")
    given = (presented or "").strip().encode("utf-8")
    found = None
    for key in api_keys():
        if hmac.compare_digest(given, key.encode("utf-8")) and given:
            found = identity_of(key)
    return found


def owner_of(presented: str | bytes | None) -> str | None:
    """Who owns what a request creates: the client of the presented key, ANONYMOUS while no key is set, None for
    a missing or wrong key while keys are set."""
    return client_of(presented) if api_keys() else ANONYMOUS
