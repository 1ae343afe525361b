"""Bring the documents a caller supplies into the document store, labelled `input`.

Which sources a caller may name depends on who the caller is, so an `InputPolicy` admits every source first
and only then is anything read or stored. `LocalInputs` is the CLI's and `build_graph()`'s: the files a local
user names are theirs to give, so they are not confined to the documents folder (they are only read, never
modified). The LangGraph server's graph gets a stricter policy (`server.policy.ServerInputs`). URLs go through
the same guarded fetcher as every web tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from core.context import Context
from core.errors import DocumentRejected
from core.schemas import DocumentRef
from tools.document.detect import MIME_OF_KIND, sniff_kind
from tools.documents import INPUT_LABEL, DocumentStore, safe_file_name, unique_name

#: How a server upload's reference begins (server/uploads.py makes them; a chat attachment the server took out of
#: its run request names one).
UPLOAD_PREFIX = "upload:"
MAX_INPUT_BYTES = 100 * 1024 * 1024


@dataclass(frozen=True)
class FetchUrl:
    """Fetch this URL through the guarded fetcher."""

    url: str


@dataclass(frozen=True)
class ReadFile:
    """Read this file (already vetted by the policy)."""

    path: Path
    source: str


@dataclass(frozen=True)
class Stored:
    """The document is in the store already (an upload)."""

    ref: DocumentRef


Admitted = FetchUrl | ReadFile | Stored


class InputPolicy(Protocol):
    """Decides, before anything is read, what a source names; `DocumentRejected` names the rule it breaks."""

    def admit(self, source: str, store: DocumentStore) -> Admitted: ...


class LocalInputs:
    """A local user's own files (any path) and URLs."""

    def admit(self, source: str, store: DocumentStore | None = None) -> Admitted:
        if is_url(source):
            return FetchUrl(source)
        path = Path(source).expanduser()
        if not path.is_file():
            raise DocumentRejected(f"input document {source!r} does not exist or is not a file")
        return ReadFile(path, source)


def is_url(source: str) -> bool:
    return "://" in source


def check_sources(sources: list[str]) -> None:
    """Refuse missing input files before anything runs (the CLI calls this up front)."""
    for source in sources:
        LocalInputs().admit(source)


def ingest_sources(
    sources: list[str], store: DocumentStore, context: Context, policy: InputPolicy | None = None
) -> list[DocumentRef]:
    policy = policy or LocalInputs()
    admitted = [policy.admit(source, store) for source in sources]  # all of them, before anything is read
    refs: list[DocumentRef] = []
    taken: set[str] = set()
    for item in admitted:
        ref = _ingest(item, store, context)
        # two inputs with one file name (a/report.pdf, b/report.pdf) must both stay addressable
        refs.append(ref.model_copy(update={"name": unique_name(ref.name, taken)}))
    return refs


def store_checked(data: bytes, name: str, store: DocumentStore) -> DocumentRef:
    """Store a sent document (an upload, a chat attachment) as an input under a sanitised name and the type its
    content shows; DocumentRejected for an empty or unreadable one. Its size is checked by the caller, before the
    bytes are all read."""
    clean = safe_file_name(name)
    if not data:
        raise DocumentRejected(f"{clean} is empty")
    mime = MIME_OF_KIND[sniff_kind(data, clean)]
    return store.put(data, label=INPUT_LABEL, name=clean, mime=mime)


def _ingest(admitted: Admitted, store: DocumentStore, context: Context) -> DocumentRef:
    if isinstance(admitted, Stored):
        return admitted.ref
    if isinstance(admitted, FetchUrl):
        return _ingest_url(admitted.url, store, context)
    return _ingest_path(admitted, store)


def _ingest_path(file: ReadFile, store: DocumentStore) -> DocumentRef:
    try:
        size = file.path.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise DocumentRejected(f"input document {file.source!r} is {size} bytes; the limit is {MAX_INPUT_BYTES}")
        data = file.path.read_bytes()
    except OSError as exc:
        raise DocumentRejected(f"input document {file.source!r} cannot be read: {exc.strerror}") from exc
    return store.put(data, label=INPUT_LABEL, name=file.path.name)


def _ingest_url(source: str, store: DocumentStore, context: Context) -> DocumentRef:
    from tools.web.fetch import GuardedFetcher  # the web tools are optional for path-only inputs

    page = GuardedFetcher(context).fetch(source)
    name = page.final_url.rstrip("/").rsplit("/", 1)[-1] or "page"
    mime = page.content_type.split(";")[0].strip() or None
    if mime == "text/html" and not name.endswith((".html", ".htm")):
        name += ".html"
    return store.put(page.content, label=INPUT_LABEL, name=name, mime=mime)
