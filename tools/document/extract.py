"""`document.extract` (tool `document_extract`): documents → one markdown document each, plus an optional
answer to `aiPrompt` over their text and the images among them (the model is shown those as ai.process shows them;
an image is stored as an input only where the endpoint accepts images, nodes/attachments.py). Importing this module
registers the action in the catalog.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from langchain_core.messages.content import ContentBlock
from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from core.errors import DocumentRejected, ServiceUnavailable, ToolFailed
from core.schemas import DocumentRef
from tools.base import NewDocument, ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry, register
from tools.document.detect import SUPPORTED_TYPES
from tools.document.inputs import iter_inputs
from tools.document.parsing import read_document, tool_deadline
from tools.documents import unique_name

TOOL_NAME = "document_extract"
DISPLAY_NAME = "document.extract"
ANALYSIS_NAME = "analysis.md"
PREVIEW_CHARS = 1500

log = logging.getLogger(__name__)


class DocumentExtractArgs(BaseModel):
    """Arguments of document.extract; names follow spec 4."""

    documentList: list[str] = Field(
        default_factory=list,
        description=(
            "Documents to read: docList:<label> or docItem:<label>/<name> references from the documents "
            "index, or file paths inside the documents folder."
        ),
    )
    aiPrompt: str | None = Field(
        None,
        description=(
            "Optional question or instruction answered from the extracted text (e.g. 'list every invoice "
            f"total'); the answer is added as {ANALYSIS_NAME}. Leave empty to only extract."
        ),
    )


DESCRIPTION = (
    f"Extract the text of documents ({SUPPORTED_TYPES}) as markdown, one <name>.md per document, with "
    "headings, tables, sheets, slides and pages kept in order. Optionally answers aiPrompt over the "
    "extracted text, showing the model the images among the documents too. Documents that cannot be read "
    "(encrypted, corrupt, unsupported) are listed in notes."
)


def run_extract(deps: ToolDeps, document_list: list[str], ai_prompt: str | None) -> tuple[str, ToolOutput]:
    """Extract every readable document, each in a child process stopped at the tool's deadline; the images go to
    the aiPrompt's answer. Fail only when nothing could be read."""
    from tools.ai_process import image_blocks, is_image  # lazy, as in `_answer`

    if not document_list:
        raise ToolFailed("documentList is empty: name docList:/docItem: references or file paths to extract")
    deadline = tool_deadline(deps.context.tool_timeout_s)
    question = (ai_prompt or "").strip()
    notes: list[str] = []
    documents: list[NewDocument] = []
    texts: list[tuple[str, str]] = []
    images: list[ContentBlock] = []
    described: list[str] = []
    taken = {ANALYSIS_NAME}  # the answer's name, whatever the documents are called (`images_shown` looks for it)
    for item in iter_inputs(deps, document_list):
        if isinstance(item, str):
            notes.append(item)
            continue
        if is_image(item.mime):  # no text to extract: the model sees it where there is a question to answer
            images.extend(image_blocks(item.name, item.mime, item.data))
            described.append(f"{item.name} → " + ("shown to the model" if question else "not read: no aiPrompt"))
            if not question:
                notes.append(f"{item.name} is an image: only the model reads it (give an aiPrompt, or use ai.process)")
            continue
        try:
            extracted = read_document(item.data, item.name, item.mime, timeout_s=deadline - time.monotonic())
        except DocumentRejected as exc:
            notes.append(str(exc))
            continue
        notes.extend(extracted.notes)
        output_name = unique_name(f"{PurePath(item.name).stem or 'document'}.md", taken)
        documents.append(NewDocument.text(output_name, extracted.text))
        texts.append((item.name, extracted.text))
        described.append(f"{item.name} → {output_name} ({extracted.describe()})")
    if not documents and not (images and question):
        raise ToolFailed("no document could be read: " + ("; ".join(notes) or "documentList named none"))
    summary = f"Extracted {len(documents)} document{'s' if len(documents) != 1 else ''}: " + "; ".join(described)
    preview = documents[0] if documents else None
    if question:
        answer = _answer(deps, texts, question, notes, images)
        if answer is not None:
            preview = NewDocument.text(ANALYSIS_NAME, answer)
            documents.append(preview)
            summary += f"; aiPrompt answered in {preview.name}"
    if preview is None:  # only images, and the model could not answer over them
        raise ToolFailed("no document could be read: " + "; ".join(notes))
    output = ToolOutput(documents=documents, summary=summary, notes=notes)
    return _content(summary, notes, preview), output


def images_shown(arguments: Mapping[str, Any], delivered: Sequence[DocumentRef]) -> list[str]:
    """The references whose images a finished step showed the model: all it read, where it answered its aiPrompt."""
    answered = any(ref.name == ANALYSIS_NAME for ref in delivered)
    return [str(reference) for reference in arguments.get("documentList") or []] if answered else []


def _answer(
    deps: ToolDeps, texts: list[tuple[str, str]], ai_prompt: str, notes: list[str], images: Sequence[ContentBlock]
) -> str | None:
    """The model's answer to aiPrompt; a failure becomes a note so the extraction itself is not lost."""
    from tools import ai_process  # lazy: ai_process pulls in the model stack

    try:
        answer = ai_process.process_texts(deps, texts, ai_prompt, images=images)
    except ServiceUnavailable:
        raise  # the model is away: the step stops and resumes here, its extraction made again then
    except Exception as exc:  # the model's own failure: keep the extracted documents, report why
        log.warning("document.extract: aiPrompt failed: %s", exc)
        notes.append(f"aiPrompt could not be answered: {exc or type(exc).__name__}")
        return None
    if not answer or not answer.strip():
        notes.append("aiPrompt produced an empty answer")
        return None
    return answer


def _content(summary: str, notes: list[str], preview: NewDocument) -> str:
    """Short text for the calling agent: what was produced, what failed, and a bounded excerpt."""
    text = summary + "."
    if notes:
        text += "\nNotes: " + "; ".join(notes)
    excerpt = preview.data.decode("utf-8", errors="replace")
    cut = len(excerpt) > PREVIEW_CHARS
    text += f"\n\nPreview of {preview.name}:\n{excerpt[:PREVIEW_CHARS].rstrip()}" + ("\n[…]" if cut else "")
    return text


def make_document_extract_tool(deps: ToolDeps) -> BaseTool:
    def document_extract(documentList: list[str] | None = None, aiPrompt: str | None = None) -> tuple[str, ToolOutput]:
        return run_extract(deps, list(documentList or []), aiPrompt)

    return artifact_tool(document_extract, name=TOOL_NAME, description=DESCRIPTION, args_schema=DocumentExtractArgs)


ENTRY = register(
    CatalogEntry(
        display_name=DISPLAY_NAME,
        tool_name=TOOL_NAME,
        args_schema=DocumentExtractArgs,
        factory=make_document_extract_tool,
        purpose="analysis",
        summary="read PDF/DOCX/XLSX/PPTX/HTML/CSV/text documents as markdown; optionally answer aiPrompt (images too)",
        instruction="aiPrompt",
        requires_documents=True,
    )
)
