"""Collaborators nodes need beyond state and context: the chat model, the document store and the trust zone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel

from graph.context import Context
from graph.llm import Models
from graph.schemas import DocumentRef
from tools.documents import DocumentStore
from tools.extra.actions import ExtraActions
from tools.ingest import InputPolicy, LocalInputs

#: (thread id, document) → where a server client downloads it.
DocumentLinks = Callable[[str, DocumentRef], str]


@dataclass
class Services:
    """Injected once per compiled graph; `build_graph(llm=...)` puts a caller's model here.

    The trust zone is fixed here, when the graph is built, never by run configuration: `inputs` decides which
    input documents a caller may name, `pin` turns the caller's Context into the one the run gets (the server
    keeps what only its operator decides), `tool_paths` says whether tools may read files by path at all
    (inside `documents_dir`), and `links` (server only) gives deliverables a download URL. `actions` are the
    graph's own tools (LangChain tools, MCP servers), declared by the caller or, on the server, the operator.
    `failure_messages` (server only): a model endpoint that fails mid-round ends the round with an AI message and
    fails the run with `ModelUnavailable` (nodes/failure.py); elsewhere the client's own error surfaces and the
    thread resumes where it stopped.
    """

    models: Models = field(default_factory=Models)
    inputs: InputPolicy = field(default_factory=LocalInputs)
    pin: Callable[[Context], Context] | None = None
    tool_paths: bool = True
    links: DocumentLinks | None = None
    actions: ExtraActions | None = None
    failure_messages: bool = False

    def llm(self, context: Context) -> BaseChatModel:
        return self.models.for_context(context)

    def documents(self, context: Context) -> DocumentStore:
        return DocumentStore(context.store_path)
