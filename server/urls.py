"""The paths of paor's own routes, shared by the routes themselves and the graph that links deliverables."""

from __future__ import annotations

from urllib.parse import quote

from graph.schemas import DocumentRef

UPLOAD_PATH = "/paor/documents"
DELIVERABLES_PATH = "/paor/threads/{thread_id}/deliverables"
DOCUMENT_PATH = "/paor/threads/{thread_id}/documents/{label}/{name}"


def document_url(thread_id: str, ref: DocumentRef) -> str:
    """Where a server client downloads one of the thread's documents (relative to the server)."""
    return DOCUMENT_PATH.format(
        thread_id=quote(thread_id, safe=""), label=quote(ref.label, safe=""), name=quote(ref.name, safe="")
    )
