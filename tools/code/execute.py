"""`code.execute` (tool `code_execute`): run a model-written Python program in the sandbox and deliver what it
printed and the files it wrote — the data, never the program. Importing this module registers the action where
`isolation` finds network isolation or the operator opted in to running without it; elsewhere it is listed as
unavailable, with the reason.
"""

from __future__ import annotations

import mimetypes

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from core.errors import ToolFailed
from tools.base import NewDocument, ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry, mark_unavailable, register
from tools.code.available import detect, unavailable_reason
from tools.code.gate import ALLOWED_MODULES
from tools.code.limits import Limits
from tools.code.runner import RunResult, run_program

STDOUT_NAME = "stdout.txt"
MAX_CODE_CHARS = 20_000


class CodeExecuteArgs(BaseModel):
    """Arguments of code.execute: the program, and the documents it may read by name."""

    code: str = Field(
        min_length=1,
        max_length=MAX_CODE_CHARS,
        description=(
            "A complete Python 3 program that computes the answer and PRINTS the data itself (or writes result "
            "files such as result.csv into the current folder). Input documents are files in the current folder, "
            f"by their names. Allowed imports: {', '.join(sorted(ALLOWED_MODULES))}. No network, no os/sys."
        ),
    )
    documentList: list[str] = Field(
        default_factory=list, description="docList:/docItem: references of documents to copy into the folder."
    )


DESCRIPTION = (
    "Run a Python program in an isolated sandbox (no network, no environment, a temporary folder, time and "
    "memory limits) and deliver its printed output and written files as documents: exact computed data "
    "(primes, sums, statistics over CSV, dates, conversions)."
)


def limits_for(deps: ToolDeps) -> Limits:
    """The context's time and memory, within the tool deadline so the sandbox is killed before the step is."""
    wall = max(1.0, min(deps.context.code_time_s, deps.context.tool_timeout_s - 1))
    return Limits(cpu_s=max(1, int(wall)), wall_s=wall, memory_mb=deps.context.code_memory_mb)


def documents_of(result: RunResult) -> list[NewDocument]:
    documents = [NewDocument(name=STDOUT_NAME, mime="text/plain", data=result.stdout)] if result.stdout.strip() else []
    for name, data in result.files:
        mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
        documents.append(NewDocument(name=name, mime=mime, data=data))
    return documents


def make_code_execute_tool(deps: ToolDeps) -> BaseTool:
    def code_execute(**kwargs: object) -> tuple[str, ToolOutput]:
        args = CodeExecuteArgs.model_validate(kwargs)
        inputs = [(ref.name, data) for ref, data in deps.read_documents(args.documentList)]
        result = run_program(args.code, inputs, limits_for(deps), kind=detect().kind)
        if not result.ok:
            raise ToolFailed(f"the program failed: {result.reason}")
        documents = documents_of(result)
        if not documents:
            raise ToolFailed("the program printed nothing and wrote no files: it must print the result data")
        notes = list(result.notes)
        if result.stderr.strip():
            notes.append(f"stderr: {result.stderr.strip()[-300:]}")
        names = ", ".join(d.name for d in documents)
        preview = documents[0].data[:200].decode("utf-8", errors="replace")
        summary = f"the program delivered {names}; {preview}"
        return summary, ToolOutput(documents=documents, summary=summary, notes=notes)

    return artifact_tool(code_execute, name=ENTRY.tool_name, description=DESCRIPTION, args_schema=CodeExecuteArgs)


ENTRY = CatalogEntry(
    display_name="code.execute",
    tool_name="code_execute",
    args_schema=CodeExecuteArgs,
    factory=make_code_execute_tool,
    purpose="analysis",
    summary="run a Python program in a sandbox; its printed output and files are the data delivered",
    side_effects=True,
)


def publish() -> None:
    """List code.execute, or withdraw it with the reason where programs cannot be isolated (and no opt-in)."""
    reason = unavailable_reason()
    if reason is None:
        register(ENTRY)
    else:
        mark_unavailable(ENTRY.display_name, reason)


publish()
