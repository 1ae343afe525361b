"""What a run started through the LangGraph server may name as input, and which settings only the operator sets.

A server client is remote: the host's files are not theirs to give. Its input documents are upload references,
http(s) URLs (fetched through the guard like every web tool), or files inside the folder the operator opened with
PAOR_SERVER_DOCUMENTS_DIR (unset: no paths at all). The policy is fixed when the server's graph is built, so no
run configuration can widen it; for the same reason the context fields that decide where files are read, stored
or fetched from, and where the model key goes, are the operator's environment, whatever a client sends, and every
resource limit a client sends is capped by the operator's setting (`CAPPED_LIMITS`): lowered, never raised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from langgraph.config import get_config

from core.context import Context
from core.errors import DocumentRejected, InputRefused
from core.schemas import DocumentRef
from nodes.services import Services
from server.records import RecordedDocuments
from server.settings import DOCUMENTS_DIR_ENV, documents_dir, server_store
from server.uploads import UPLOAD_PREFIX, find_upload
from server.urls import LINK_HEADERS, UPLOAD_PATH, base_url, document_url
from tools.document.paths import resolve_in_documents_dir
from tools.documents import DocumentStore
from tools.extra.actions import ExtraActions
from tools.ingest import Admitted, FetchUrl, ReadFile, Stored, is_url

RULE = f"a server run takes upload references (POST {UPLOAD_PATH}), http(s) URLs, or files inside {DOCUMENTS_DIR_ENV}"


@dataclass(frozen=True)
class ServerInputs:
    """The server's input policy; `documents_dir` None means no path is accepted."""

    documents_dir: Path | None = None

    @classmethod
    def from_env(cls) -> ServerInputs:
        return cls(documents_dir())

    def admit(self, source: str, store: DocumentStore) -> Admitted:
        if source.startswith(UPLOAD_PREFIX):
            return Stored(find_upload(source, store))
        if is_url(source):
            if source.split("://", 1)[0].lower() not in ("http", "https"):
                raise InputRefused(f"input document {source!r} refused: {RULE}; other URL schemes are not")
            return FetchUrl(source)
        if self.documents_dir is None:
            raise InputRefused(f"input document {source!r} refused: {RULE}, and {DOCUMENTS_DIR_ENV} is not set")
        try:
            return ReadFile(resolve_in_documents_dir(source, self.documents_dir), source)
        except DocumentRejected as exc:
            raise InputRefused(f"input document {source!r} refused: {RULE} ({exc})") from None


#: Resource limits of a run: a client may lower each, never raise it above the operator's setting (env or default).
CAPPED_LIMITS = (
    "max_steps",
    "max_retries",
    "request_timeout_s",
    "token_budget",
    "time_budget_s",
    "tool_timeout_s",
    "max_document_mb",
    "chunk_tokens",
    "answer_tokens",
    "code_time_s",
    "code_memory_mb",
)


def operator_context(context: Context) -> Context:
    """A server run's Context: the client's, within what the operator decides.

    Where tools read files (the operator's folder), where documents are stored (the server's own folder of the
    operator's store), what may be fetched beyond the public internet and which endpoint gets the server's
    OPENAI_API_KEY are the operator's settings, whatever the client sent (a client-chosen `base_url` would receive
    the key). Every resource limit is capped by the operator's value; the actions a client may allow are a subset
    of the operator's, and a client may switch learning off but not on."""
    operator = Context()
    folder = documents_dir()
    capped: dict[str, Any] = {name: _capped(getattr(context, name), getattr(operator, name)) for name in CAPPED_LIMITS}
    return replace(
        context,
        documents_dir=str(folder) if folder else "",
        store_dir=str(server_store()),  # the server's own folder of the operator's store (server/settings.py)
        fetch_allowlist=operator.fetch_allowlist,
        base_url=operator.base_url,
        allowed_methods=_narrowed(context.allowed_methods, operator.allowed_methods),
        learning=bool(context.learning) and operator.learning,
        **capped,
    )


def run_links(thread_id: str, ref: DocumentRef) -> str:
    """A deliverable's link as a server run writes it: absolute from the base URL of the client's run request
    (its `host` and forwarding headers reach the run's configuration, langgraph.json `http.configurable_headers`),
    unless the operator set PAOR_SERVER_PUBLIC_URL; signed while auth is on (server/urls.py)."""
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # outside a run
        configurable = {}
    headers = {k: str(v) for k, v in configurable.items() if k in LINK_HEADERS}
    return document_url(thread_id, ref, base=base_url(headers))


def _capped(asked: object, cap: int | float) -> int | float:
    """The smaller of the client's value and the operator's; the operator's when the client's is not a number or is
    negative (a negative memory limit reaches setrlimit as RLIM_INFINITY: no limit at all)."""
    try:
        value = float(asked)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return cap
    if not math.isfinite(value) or value >= cap or value < 0:
        return cap
    return type(cap)(value)


def _narrowed(asked: str, allowed: str) -> str:
    """The actions a client allows within the operator's allow-list ("" allows every action)."""
    operator = [name.strip() for name in allowed.split(",") if name.strip()]
    if not operator:
        return asked
    client = [name.strip() for name in str(asked or "").split(",") if name.strip()]
    return ",".join([name for name in client if name in operator] or operator)


def server_services() -> Services:
    """The collaborators of the graph the LangGraph server loads. Its MCP servers are the operator's
    (PAOR_MCP_CONFIG): no run configuration or input names one."""
    return Services(
        inputs=ServerInputs.from_env(),
        pin=operator_context,
        tool_paths=documents_dir() is not None,
        links=run_links,
        actions=ExtraActions.build(),
        records=RecordedDocuments(),
        failure_messages=True,
    )
