"""Builders for hand-made state, protocol objects and a throw-away catalog action, shared by the core unit tests."""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from langchain_core.tools import BaseTool, StructuredTool
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from pydantic import BaseModel, Field

from core.context import Context
from core.errors import ToolFailed
from core.schemas import ActionSelection, DocumentRef, HistoryEntry, Intent, ParametersSchema, dump
from tools.base import NewDocument, ToolDeps, ToolOutput
from tools.catalog import CatalogEntry

PRIMES_REQUEST = "Calculate the first 1000 prime numbers"


def primes_intent(**overrides: Any) -> Intent:
    values: dict[str, Any] = {
        "dataType": "numbers",
        "expectedFormat": "raw_data",
        "successCriteria": ["first 1000", "prime numbers"],
        "language": "en",
        "itemCount": 1000,
        "numberProperty": "prime",
    }
    return Intent.model_validate({**values, **overrides})


def summary_intent(**overrides: Any) -> Intent:
    values: dict[str, Any] = {
        "dataType": "analysis",
        "expectedFormat": "markdown",
        "successCriteria": ["the summary covers the three PDFs"],
        "language": "en",
    }
    return Intent.model_validate({**values, **overrides})


def selection(**overrides: Any) -> ActionSelection:
    values: dict[str, Any] = {
        "action": "ai.process",
        "actionObjective": "Deliver the first 1000 prime numbers",
        "learnings": [],
        "requiredInputDocuments": [],
        "requiredConnection": None,
        "parametersContext": "Ask for the numbers directly, as data.",
        "parametersSchema": ParametersSchema.model_validate(
            {"fields": [{"name": "aiPrompt", "type": "string", "required": True, "description": "the task"}]}
        ),
    }
    return ActionSelection.model_validate({**values, **overrides})


def selection_payload(**overrides: Any) -> dict[str, Any]:
    """A Stage-1 answer as the model would send it (plain JSON)."""
    return {**dump(selection()), **overrides}


def parameters_answer(**parameters: Any) -> dict[str, Any]:
    return {"schema": "parameters_v1", "parameters": parameters}


def ref(label: str = "input", name: str = "doc.txt", mime: str = "text/plain", data: bytes = b"x") -> DocumentRef:
    return DocumentRef(label=label, name=name, mime=mime, size=len(data), sha256=hashlib.sha256(data).hexdigest())


def delivered(text: str, mime: str = "text/markdown", name: str = "result.md") -> tuple[DocumentRef, bytes]:
    """A text deliverable of the first step, as the content checks receive it."""
    data = text.encode()
    return ref(label="round1_task1_action1_process", name=name, mime=mime, data=data), data


def entry(round_: int = 1, step: int = 1, **overrides: Any) -> dict[str, Any]:
    return dump(HistoryEntry.model_validate({"round": round_, "step": step, **overrides}))


def state(intent: Intent | None = None, **overrides: Any) -> dict[str, Any]:
    """A working state in the middle of round 1, before the first step."""
    values: dict[str, Any] = {
        "prompt": PRIMES_REQUEST,
        "round": 1,
        "step": 0,
        "intent": dump(intent or primes_intent()),
        "input_documents": [],
        "history": [],
        "learnings": [],
        "hint": None,
        "telemetry": {},
    }
    return {**values, **overrides}


def runtime(context: Context, store: BaseStore | None = None, writer: Any = None) -> Runtime[Context]:
    kwargs: dict[str, Any] = {"context": context, "store": store if store is not None else InMemoryStore()}
    if writer is not None:
        kwargs["stream_writer"] = writer
    return Runtime(**kwargs)


# --- a throw-away catalog action, registered only for the test that asks for it --------------------------------


class EchoArgs(BaseModel):
    documentList: list[str] = Field(default_factory=list)
    text: str = "hello"
    fail: str | None = None


class LookupArgs(BaseModel):
    query: str
    language: str | None = None
    searchDepth: Literal["basic", "advanced"] | None = None
    timeRange: Literal["day", "week", "month", "year"] | None = None


def _echo_tool(deps: ToolDeps) -> BaseTool:
    def test_echo(**kwargs: Any) -> tuple[str, ToolOutput]:
        args = EchoArgs.model_validate(kwargs)
        if args.fail:
            raise ToolFailed(args.fail)
        doc = NewDocument.text("echo.txt", args.text, "text/plain")
        return "echoed", ToolOutput(documents=[doc], summary="echoed")

    return StructuredTool.from_function(
        func=test_echo,
        name="test_echo",
        description="Echo text back as a document.",
        args_schema=EchoArgs,
        response_format="content_and_artifact",
    )


def _lookup_tool(deps: ToolDeps) -> BaseTool:
    def test_lookup(**kwargs: Any) -> tuple[str, ToolOutput]:
        return "found", ToolOutput(documents=[NewDocument.text("hits.txt", "hits", "text/plain")])

    return StructuredTool.from_function(
        func=test_lookup,
        name="test_lookup",
        description="Look something up.",
        args_schema=LookupArgs,
        response_format="content_and_artifact",
    )


ECHO = CatalogEntry(
    display_name="test.echo",
    tool_name="test_echo",
    args_schema=EchoArgs,
    factory=_echo_tool,
    purpose="output",
    summary="echo text back",
)
LOOKUP = CatalogEntry(
    display_name="test.lookup",
    tool_name="test_lookup",
    args_schema=LookupArgs,
    factory=_lookup_tool,
    purpose="lookup",
    summary="look something up",
)
