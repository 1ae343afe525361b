"""What every paor tool receives and returns.

Tools are LangChain tools with `response_format="content_and_artifact"`: the content is a short text any LangChain
agent can read, the artifact is a `ToolOutput` whose new documents the `act` node stores under the step's result
label. Tools read input documents through `ToolDeps` and never see graph state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ConfigDict, Field

from core.context import Context
from core.schemas import DocumentRef
from tools.documents import DocumentIndex, DocumentStore


class NewDocument(BaseModel):
    """A document a tool produced; `act` stores it and keeps only its reference."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    mime: str
    data: bytes

    @classmethod
    def text(cls, name: str, text: str, mime: str = "text/markdown") -> NewDocument:
        return cls(name=name, mime=mime, data=text.encode("utf-8"))


class ToolOutput(BaseModel):
    documents: list[NewDocument] = Field(default_factory=list)
    summary: str = ""
    notes: list[str] = Field(default_factory=list)


@dataclass
class ToolDeps:
    """Collaborators a tool may use: the model, the document store and this thread's documents."""

    llm: BaseChatModel
    store: DocumentStore
    context: Context = field(default_factory=Context)
    index: DocumentIndex = field(default_factory=lambda: DocumentIndex([]))
    language: str = "en"
    #: The user's own request and the intent's success criteria: every call that writes a deliverable carries
    #: them next to the step's instructions, so a step whose instructions lost the question still answers it.
    request: str = ""
    criteria: list[str] = field(default_factory=list)
    #: The conversation before the request (prompts.render.render_conversation): a follow-up needs what it follows.
    earlier: str = ""
    #: The answer this step writes is shown to a chat as it is written (the direct answer, nodes/direct.py);
    #: drafts of loop steps are not.
    stream: bool = False
    #: The messages of a bare call (nodes/direct.py): when set, ai.process over no documents sends exactly these,
    #: as a bare chat agent would, instead of its own prompt.
    conversation: list[BaseMessage] | None = None
    #: The replies that were streamed, for `act` to keep under the stream's id (one chat message, not two).
    streamed: list[AIMessage] = field(default_factory=list)
    #: Whether tools may read files by path (inside `context.documents_dir`); off on a LangGraph server whose
    #: operator opened no folder (PAOR_SERVER_DOCUMENTS_DIR).
    paths: bool = True

    def read_documents(self, references: list[str]) -> list[tuple[DocumentRef, bytes]]:
        return [(ref, self.store.read_bytes(ref)) for ref in self.index.resolve_all(references)]


def artifact_tool(
    func: Callable[..., tuple[str, ToolOutput]], *, name: str, description: str, args_schema: type[BaseModel]
) -> BaseTool:
    """A LangChain tool answering (short text any agent can read, `ToolOutput` artifact that `act` stores)."""
    return StructuredTool.from_function(
        func=func,
        name=name,
        description=description,
        args_schema=args_schema,
        response_format="content_and_artifact",
    )
