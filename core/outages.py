"""Faults of the world told apart from answers: a service that is away, slow past its timeout, overloaded after the
client's retries, or refusing paor's credentials is an outage (`ServiceUnavailable`), never a wrong answer.

Before, the model endpoint being down reached act's catch-all as a failed action: validate judged it, learn kept
"avoid ai.process → Connection error" for every later run of that kind, and refine tried again and gave up with
"the answer failed a check". An outage now stops the step at once with one line naming the service, what happened
and what to do; nothing is judged or learned, and the thread resumes at that step once the service is back.

Exceptions are recognised by their cause chain and their type names, so the model's client (openai over httpx2), a
tool's (requests, httpx) and LangChain's provider-neutral errors are read alike without importing any of them.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from core.errors import ModelUnavailable, ServiceUnavailable

#: HTTP statuses that say "not now": once the client's own retries are spent, an outage.
BUSY_STATUSES = frozenset({408, 429, 502, 503, 504})
CREDENTIAL_STATUSES = frozenset({401, 403})
_TIMEOUTS = frozenset(
    {
        "APITimeoutError",
        "TimeoutException",
        "ReadTimeout",
        "ConnectTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "Timeout",
        "ReadTimeoutError",
        "ConnectTimeoutError",
        "ModelTimeoutError",
        "TimeoutError",  # tavily-python's own, not the builtin
    }
)
_CONNECTIONS = frozenset(
    {
        "APIConnectionError",
        "ConnectError",
        "ConnectionError",
        "RemoteProtocolError",
        "ReadError",
        "WriteError",
        "NetworkError",
        "ProtocolError",
        "NewConnectionError",
        "MaxRetryError",
        "ModelConnectionError",
    }
)
_CREDENTIALS = frozenset({"AuthenticationError", "PermissionDeniedError", "ModelAuthenticationError"})
OPENAI_URL = "https://api.openai.com/v1"


def causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what caused it, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 32:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def status_of(exc: BaseException) -> int | None:
    """The HTTP status a service answered with, where the exception carries one."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


@dataclass(frozen=True)
class Fault:
    """What a service did wrong: `what` happened, whether it is `temporary` (not: credentials refused), and whether
    it is `away` (nothing answers there: a refused connection, a name that does not resolve), which asking again at
    once cannot change."""

    what: str
    temporary: bool = True
    away: bool = False


def fault(exc: BaseException) -> Fault | None:
    """The service's fault `exc` is; None when it is not one (the request or the answer itself, or paor's own)."""
    reached = False
    for cause in causes(exc):
        name = type(cause).__name__
        if isinstance(cause, ServiceUnavailable):
            return Fault(cause.what, cause.temporary)
        status = status_of(cause)
        if status in CREDENTIAL_STATUSES or name in _CREDENTIALS:
            return Fault(f"refused paor's credentials (HTTP {status or 401})", temporary=False)
        if status is not None and (status in BUSY_STATUSES or status >= 500):
            return Fault(f"answered HTTP {status} after the client's retries")
        if isinstance(cause, ConnectionRefusedError):
            return Fault("refused the connection (nothing is listening there)", away=True)
        if isinstance(cause, socket.gaierror):
            return Fault("could not be found (its host name does not resolve)", away=True)
        if isinstance(cause, ConnectionResetError | BrokenPipeError):
            return Fault("dropped the connection")
        if isinstance(cause, TimeoutError) or name in _TIMEOUTS:
            return Fault("did not answer in time")
        reached = reached or name in _CONNECTIONS
    return Fault("could not be reached") if reached else None


def without_credentials(url: str) -> str:
    """`url` without its user, password and query (a key may ride in either)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def host_of(url: str) -> str:
    return urlsplit(url).hostname or url


def model_service(llm: Any) -> str:
    """The model endpoint as the operator knows it: its URL without credentials."""
    base = getattr(llm, "openai_api_base", None)
    if base or type(llm).__name__ == "ChatOpenAI":
        return f"the model endpoint {without_credentials(str(base or OPENAI_URL))}"
    return f"the model ({type(llm).__name__})"


def model_outage(exc: BaseException, llm: Any) -> ModelUnavailable | None:
    """The outage of the model endpoint `exc` is, or None."""
    found = _outage(exc, ModelUnavailable, model_service(llm), "the model endpoint", _model_hint)
    return found if isinstance(found, ModelUnavailable) else None


def as_model_outage(exc: BaseException, llm: Any) -> ModelUnavailable:
    """`exc`, known to be the endpoint's fault (a connection error, a refused key), as `ModelUnavailable`."""
    return model_outage(exc, llm) or ModelUnavailable(
        model_service(llm), f"failed ({type(exc).__name__})", "try again once it answers", kind="the model endpoint"
    )


def tool_outage(exc: BaseException, service: str, kind: str) -> ServiceUnavailable | None:
    """The outage of a tool's `service` ("web search (Tavily at api.tavily.com)"; `kind` without the host, for a
    chat) that `exc` is, or None."""
    return _outage(exc, ServiceUnavailable, service, kind, _tool_hint)


def _outage(
    exc: BaseException, kind_of: type[ServiceUnavailable], service: str, kind: str, hint: Callable[[Fault], str]
) -> ServiceUnavailable | None:
    for cause in causes(exc):
        if isinstance(cause, kind_of):
            return cause
    found = fault(exc)
    if found is None:
        return None
    return kind_of(service, found.what, hint(found), kind=kind, temporary=found.temporary)


def _model_hint(found: Fault) -> str:
    if not found.temporary:
        return "check OPENAI_API_KEY and the model (PAOR_MODEL)"
    return "start it, or set OPENAI_BASE_URL to one that runs" if found.away else "try again once it answers"


def _tool_hint(found: Fault) -> str:
    return "try again once it answers" if found.temporary else "check its key"
