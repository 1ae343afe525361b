"""Collaborators nodes need beyond state and context: the chat model and the document store."""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel

from graph.context import Context
from graph.llm import Models
from tools.documents import DocumentStore


@dataclass
class Services:
    """Injected once per compiled graph; `build_graph(llm=...)` puts a caller's model here."""

    models: Models = field(default_factory=Models)

    def llm(self, context: Context) -> BaseChatModel:
        return self.models.for_context(context)

    def documents(self, context: Context) -> DocumentStore:
        return DocumentStore(context.store_path)
