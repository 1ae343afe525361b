"""What a tool's `documentList` names, loaded: docList:/docItem: references from the thread's store, or file
paths confined to the documents folder. One bad entry becomes a note, never the failure of the whole call.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from dataclasses import dataclass

from core.errors import DocumentRejected, UnknownDocumentReference
from tools.base import ToolDeps
from tools.document import limits
from tools.document.paths import resolve_in_documents_dir

_REFERENCE_PREFIXES = ("docList:", "docItem:")


@dataclass(frozen=True)
class InputDocument:
    source: str
    name: str
    mime: str
    data: bytes


def iter_inputs(deps: ToolDeps, document_list: list[str]) -> Iterator[InputDocument | str]:
    """The documents in the order named; an entry that cannot be loaded yields a note (str) in its place."""
    seen: set[str] = set()
    for entry in (item.strip() for item in document_list):
        if not entry:
            continue
        try:
            if entry.startswith(_REFERENCE_PREFIXES):
                loaded = _load_references(deps, entry)
            elif "://" in entry:
                raise DocumentRejected(f"{entry} is a URL, not a document: fetch it with web.scrape first")
            else:
                loaded = [_load_path(deps, entry)]
        except (DocumentRejected, UnknownDocumentReference) as exc:
            yield str(exc)
            continue
        for document in loaded:
            if document.source not in seen:
                seen.add(document.source)
                yield document


def _load_references(deps: ToolDeps, reference: str) -> list[InputDocument]:
    return [
        InputDocument(source=ref.item_reference, name=ref.name, mime=ref.mime, data=data)
        for ref, data in deps.read_documents([reference])
    ]


def _load_path(deps: ToolDeps, path: str) -> InputDocument:
    if not deps.paths:
        raise DocumentRejected(
            f"{path} is a file path, and this server reads no files by path: name documents by docList:/docItem: "
            "reference"
        )
    resolved = resolve_in_documents_dir(path, deps.context.documents_path)
    try:
        size = resolved.stat().st_size
        if size > limits.MAX_INPUT_BYTES:
            raise DocumentRejected(
                f"{path} is {size} bytes, over the {limits.MAX_INPUT_BYTES} byte limit for documents"
            )
        data = resolved.read_bytes()
    except OSError as exc:
        raise DocumentRejected(f"{path} cannot be read: {exc.strerror or exc}") from exc
    mime = mimetypes.guess_type(resolved.name)[0] or ""
    return InputDocument(source=str(resolved), name=resolved.name, mime=mime, data=data)
