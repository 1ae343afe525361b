"""Collaborators nodes need beyond state and context: the chat model, the document store and the trust zone."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel

from core.context import Context
from core.llm import Models
from core.schemas import DocumentRef
from tools.documents import DocumentStore
from tools.extra.actions import ExtraActions
from tools.ingest import InputPolicy, LocalInputs

#: (thread id, document) → where a server client downloads it.
DocumentLinks = Callable[[str, DocumentRef], str]


class DocumentRecords(Protocol):
    """The server's own record of the documents each thread produced or received (server/records.py)."""

    def vouch(self, thread_id: str, state: Mapping[str, Any], context: Context) -> None:
        """Refuse a state that names a document this thread never produced or received."""

    def record(self, thread_id: str, update: Mapping[str, Any], context: Context) -> None:
        """Keep the documents a node's update carries as this thread's."""


@dataclass
class Services:
    """Injected once per compiled graph; `build_graph(llm=...)` puts a caller's model here.

    The trust zone is fixed here, when the graph is built, never by run configuration: `inputs` decides which
    input documents a caller may name, `pin` turns the caller's Context into the one the run gets (the server
    keeps what only its operator decides), `tool_paths` says whether tools may read files by path at all
    (inside `documents_dir`), `links` (server only) gives deliverables a download URL, and `records` (server only)
    keeps which documents each thread produced or received, the only ones it may read and download. `actions` are
    the graph's own tools (LangChain tools, MCP servers), declared by the caller or, on the server, the operator.
    `failure_messages` (server only): an outage (the model endpoint or a tool's service away, busy or refusing the
    key) stops the round with an AI message and fails the run with `ServiceUnavailable`, and a later run goes on
    where it stopped (nodes/failure.py); elsewhere the typed error surfaces and the thread resumes where it stopped.
    """

    models: Models = field(default_factory=Models)
    inputs: InputPolicy = field(default_factory=LocalInputs)
    pin: Callable[[Context], Context] | None = None
    tool_paths: bool = True
    links: DocumentLinks | None = None
    actions: ExtraActions | None = None
    records: DocumentRecords | None = None
    failure_messages: bool = False

    def llm(self, context: Context) -> BaseChatModel:
        return self.models.for_context(context)

    def documents(self, context: Context) -> DocumentStore:
        return DocumentStore(context.store_path)
