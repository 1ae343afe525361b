"""Which of a round's input documents its steps read.

A round whose request brings documents (attached to its message, listed in `documents` for the first time, or
named in its words) is about them: an answer made without them is no answer to it, however fluent (a small model's
`ai.process` with an empty documentList once ended "all success criteria met"). So validate fails a step's check
while one of them is unread, Stage 1's choice names them where the model named no document, and the answer names
each one no step read."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from core.errors import UnknownDocumentReference
from core.schemas import DocumentRef, HistoryEntry
from core.state import State
from tools import ai_process
from tools.document import extract
from tools.documents import DocumentIndex

#: The actions that show the model the images among the documents they read, each with the references it showed:
#: an image counts as read only where the model saw it (an extraction without aiPrompt does not show it).
_SHOWS_IMAGES: Mapping[str, Callable[[Mapping[str, Any], Sequence[DocumentRef]], list[str]]] = {
    ai_process.ENTRY.display_name: ai_process.images_shown,
    extract.DISPLAY_NAME: extract.images_shown,
}


def to_read(state: State, inputs: Sequence[DocumentRef], request: str) -> list[str]:
    """The item references of the inputs a new round must read: those the previous round did not have (the
    `documents` a caller gave stay in a thread's state for its later rounds) and those the request names."""
    earlier = {(raw.get("name"), raw.get("sha256")) for raw in state.get("input_documents") or []}
    folded = request.casefold()
    return [
        ref.item_reference for ref in inputs if (ref.name, ref.sha256) not in earlier or ref.name.casefold() in folded
    ]


def unread(state: State, steps: Iterable[HistoryEntry]) -> list[DocumentRef]:
    """The inputs this round must read that none of `steps` read. A step read the documents its documentList named
    when it delivered something, an image only when the model was shown it. A round checkpointed before paor kept
    `inputs_to_read` must read all its inputs."""
    inputs = [DocumentRef.model_validate(raw) for raw in state.get("input_documents") or []]
    wanted = state.get("inputs_to_read")
    needed = [ref for ref in inputs if wanted is None or ref.item_reference in wanted]
    if not needed:
        return []
    read = _read_by(steps, DocumentIndex(inputs))
    return [ref for ref in needed if ref.item_reference not in read]


def _read_by(steps: Iterable[HistoryEntry], index: DocumentIndex) -> set[str]:
    """The item references among `index` (the round's inputs: a reference to a result names none) that `steps`
    read."""
    read: set[str] = set()
    for step in steps:
        if not step.documents:
            continue
        named = [str(reference) for reference in step.parameters.get("documentList") or []]
        shows = _SHOWS_IMAGES.get(step.action or "")
        shown = set(shows(step.parameters, step.documents)) if shows else set()
        for reference in named:
            try:
                refs = index.resolve(reference)
            except UnknownDocumentReference:
                continue
            read.update(r.item_reference for r in refs if not ai_process.is_image(r.mime) or reference in shown)
    return read
