"""ai.process: the configured LLM over referenced documents, map-reduced when they exceed the context budget.

Images among the documents (a chat's attachments, stored only where the endpoint accepts images, see
nodes/attachments.py) go to the call that writes the answer as image content, after the text; document.extract
answering an aiPrompt does the same (`image_blocks`)."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import json_repair
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.content import ContentBlock, create_image_block, create_text_block
from langchain_core.tools import BaseTool
from langchain_text_splitters import RecursiveCharacterTextSplitter
from pydantic import BaseModel, Field

from core.errors import ToolFailed
from core.llm import call_model, length_limit, streamed
from core.schemas import DocumentRef
from core.tokens import ENCODING, fit
from prompts.render import ai_process_messages
from tools.base import NewDocument, ToolDeps, ToolOutput, artifact_tool
from tools.catalog import CatalogEntry, register

OutputFormat = Literal["md", "txt", "json", "csv"]
_MIMES = {"md": "text/markdown", "txt": "text/plain", "json": "application/json", "csv": "text/csv"}
_FENCED = re.compile(r"^\s*```[\w-]*\n(?P<body>.*?)\n```\s*$", re.DOTALL)


class AiProcessArgs(BaseModel):
    """Arguments of ai.process, named as in spec 4."""

    documentList: list[str] = Field(
        default_factory=list, description="docList:/docItem: references of the documents to work on."
    )
    aiPrompt: str = Field(min_length=1, description="The task, stated as what to deliver.")
    processingMode: Literal["basic", "advanced", "detailed"] = Field(
        "basic", description="How thorough the answer must be."
    )
    includeMetadata: bool = Field(False, description="Name the source documents in the answer.")
    customInstructions: str | None = Field(None, description="Extra instructions (tone, audience, length).")
    expectedDocumentFormats: list[OutputFormat] = Field(
        default_factory=lambda: list[OutputFormat](["md"]),
        description="Formats of the result documents; markdown narrative unless structured data is asked.",
    )


def process_texts(
    deps: ToolDeps,
    texts: Sequence[tuple[str, str]],
    ai_prompt: str,
    *,
    custom_instructions: str = "",
    output_format: str = "md",
    processing_mode: str = "basic",
    images: Sequence[ContentBlock] = (),
) -> str:
    """Run one task over (name, text) sources; sources over `chunk_tokens` are split, answered, then merged.
    `images` (content blocks) go to the call that writes the answer: the parts of a long text are answered
    without them."""
    budget = max(256, deps.context.chunk_tokens)
    sources = list(texts)
    if fit((text for _, text in sources), budget):
        return _ask(
            deps, ai_prompt, sources, custom_instructions, output_format, processing_mode, final=True, images=images
        )
    # tiktoken's own loading finds the encoding `fit` installed offline (core/tokens.py) when it counted above.
    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=ENCODING, chunk_size=budget, chunk_overlap=min(200, budget // 10)
    )
    partials: list[tuple[str, str]] = []
    for name, text in sources:
        chunks = splitter.split_text(text)
        for i, chunk in enumerate(chunks, 1):
            task = f"{ai_prompt}\n\n(This is part {i} of {len(chunks)} of {name}: answer for this part only.)"
            partials.append(
                (
                    f"{name} part {i}",
                    _ask(deps, task, [(name, chunk)], custom_instructions, "md", processing_mode),
                )
            )
    while not fit((text for _, text in partials), budget) and len(partials) > 1:
        partials = _merge_pairs(deps, ai_prompt, partials, custom_instructions, processing_mode)
    merge_task = f"{ai_prompt}\n\nCombine the partial answers below into one complete answer."
    return _ask(
        deps, merge_task, partials, custom_instructions, output_format, processing_mode, final=True, images=images
    )


def _merge_pairs(
    deps: ToolDeps, task: str, partials: list[tuple[str, str]], custom: str, mode: str
) -> list[tuple[str, str]]:
    merged = []
    for i in range(0, len(partials), 2):
        group = partials[i : i + 2]
        text = _ask(deps, f"{task}\n\nCombine these partial answers.", group, custom, "md", mode)
        merged.append((f"merged {i // 2 + 1}", text))
    return merged


def _ask(
    deps: ToolDeps,
    task: str,
    sources: Sequence[tuple[str, str]],
    custom: str,
    output_format: str,
    mode: str,
    *,
    final: bool = False,
    images: Sequence[ContentBlock] = (),
) -> str:
    """One model call; the `final` one writes the step's answer, which streams when the step asks for it (partial
    answers of long inputs never do)."""
    messages = ai_process_messages(
        task=task,
        sources=sources,
        language=deps.language,
        output_format=output_format,
        mode=mode,
        custom=custom,
        request=deps.request,
        criteria=deps.criteria,
        earlier=deps.earlier,
    )
    if images:
        messages[-1] = HumanMessage(content_blocks=[create_text_block(str(messages[-1].text)), *images])
    # The bound keeps a runaway (or a local model repeating itself) from generating until its timeout.
    limit = deps.context.answer_tokens
    llm = streamed(deps.llm) if final and deps.stream else deps.llm
    reply = call_model(llm, messages, **length_limit(llm, limit))
    text = str(reply.text)  # the text blocks of any content shape
    if not text.strip():
        raise ToolFailed("the model returned an empty answer")
    if reply.response_metadata.get("finish_reason") == "length":
        raise ToolFailed(f"the answer was cut off at {limit} tokens; ask for less, or in parts")
    if llm is not deps.llm and isinstance(reply, AIMessage):
        deps.streamed.append(reply)
    return text.strip()


#: The note a bare answer cut at its token bound carries (validate fails its `complete` check on it).
CUT_OFF = "the answer was cut off at"


def bare_answer(deps: ToolDeps, conversation: list[BaseMessage]) -> tuple[str, list[str]]:
    """The bare call (nodes/direct.py): exactly `conversation`, streamed. An answer cut at its bound is still the
    answer a bare agent would give, so it is kept, with a note, as an attempt a complete one can replace."""
    limit = deps.context.answer_tokens
    llm = streamed(deps.llm) if deps.stream else deps.llm
    reply = call_model(llm, conversation, **length_limit(llm, limit))
    text = str(reply.text).strip()
    if not text:
        raise ToolFailed("the model returned an empty answer")
    if llm is not deps.llm and isinstance(reply, AIMessage):
        deps.streamed.append(reply)
    cut = reply.response_metadata.get("finish_reason") == "length"
    return text, [f"{CUT_OFF} {limit} tokens"] if cut else []


def shape_output(text: str, output_format: str) -> str:
    """Make the answer a valid document of its format (models like to wrap JSON/CSV in code fences)."""
    match = _FENCED.match(text)
    body = match.group("body") if match and output_format in ("json", "csv", "md", "txt") else text
    if output_format == "json":
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            value = json_repair.loads(body)
            if value in ("", None):
                raise ToolFailed("the model's answer is not JSON although JSON was asked") from None
        return json.dumps(value, ensure_ascii=False, indent=2)
    if output_format == "csv":
        rows = list(csv.reader(io.StringIO(body)))
        if not rows:
            raise ToolFailed("the model's answer is not CSV although CSV was asked")
    return body


def _sources(
    deps: ToolDeps, references: list[str], include_metadata: bool
) -> tuple[list[tuple[str, str]], list[ContentBlock]]:
    """The referenced documents as (name, text) sources and image blocks."""
    texts: list[tuple[str, str]] = []
    images: list[ContentBlock] = []
    for ref, data in deps.read_documents(references):
        if is_image(ref.mime):
            images.extend(image_blocks(ref.name, ref.mime, data))
        elif not ref.is_text:
            raise ToolFailed(f"{ref.name} is {ref.mime}; extract it with document.extract before ai.process")
        else:
            text = data.decode("utf-8", errors="replace")
            if include_metadata:
                text = f"[source: {ref.item_reference}, {ref.mime}, {ref.size} bytes]\n{text}"
            texts.append((ref.name, text))
    return texts, images


def is_image(mime: str) -> bool:
    """Whether a document of this type goes to the model as image content (a text one goes as text)."""
    return mime.startswith("image/")


def image_blocks(name: str, mime: str, data: bytes) -> list[ContentBlock]:
    """An image as the model is shown it: its name, so the answer can refer to it, then the image itself."""
    encoded = base64.b64encode(data).decode()
    return [create_text_block(f"IMAGE {name}:"), create_image_block(base64=encoded, mime_type=mime)]


def images_shown(arguments: Mapping[str, Any], delivered: Sequence[DocumentRef]) -> list[str]:
    """The references whose images a finished ai.process step showed the model: all it read, once it answered."""
    return [str(reference) for reference in arguments.get("documentList") or []] if delivered else []


def make_ai_process_tool(deps: ToolDeps) -> BaseTool:
    def ai_process(**kwargs: object) -> tuple[str, ToolOutput]:
        args = AiProcessArgs.model_validate(kwargs)
        sources, images = _sources(deps, args.documentList, args.includeMetadata)
        if deps.conversation is not None and not sources and not images:
            text, notes = bare_answer(deps, deps.conversation)
            reply = NewDocument.text("result.md", text, _MIMES["md"])
            return f"1 document(s); {text[:200]}", ToolOutput(documents=[reply], summary=text[:200], notes=notes)
        documents = []
        for fmt in dict.fromkeys(args.expectedDocumentFormats or ["md"]):
            answer = process_texts(
                deps,
                sources,
                args.aiPrompt,
                custom_instructions=args.customInstructions or "",
                output_format=fmt,
                processing_mode=args.processingMode,
                images=images,
            )
            documents.append(NewDocument.text(f"result.{fmt}", shape_output(answer, fmt), _MIMES[fmt]))
        preview = documents[0].data.decode("utf-8", errors="replace")
        summary = f"{len(documents)} document(s); {preview[:200]}"
        return summary, ToolOutput(documents=documents, summary=summary)

    return artifact_tool(
        ai_process,
        name=ENTRY.tool_name,
        description="Use the language model to write, transform, analyse or compute over documents.",
        args_schema=AiProcessArgs,
    )


ENTRY = register(
    CatalogEntry(
        display_name="ai.process",
        tool_name="ai_process",
        args_schema=AiProcessArgs,
        factory=make_ai_process_tool,
        purpose="analysis",
        summary="LLM over documents: write, summarise, translate, compute, deliver data",
        instruction="aiPrompt",
    )
)
