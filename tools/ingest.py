"""Bring the documents a user supplies (paths or URLs) into the document store, labelled `input`.

Files a user names are theirs to give, so they are not confined to the documents folder; they are only read,
never modified. URLs go through the same guarded fetcher as every web tool.
"""

from __future__ import annotations

from pathlib import Path

from graph.context import Context
from graph.errors import DocumentRejected
from graph.schemas import DocumentRef
from tools.documents import INPUT_LABEL, DocumentStore, unique_name

MAX_INPUT_BYTES = 100 * 1024 * 1024


def ingest_sources(sources: list[str], store: DocumentStore, context: Context) -> list[DocumentRef]:
    refs: list[DocumentRef] = []
    taken: set[str] = set()
    for source in sources:
        ref = _ingest_url(source, store, context) if _is_url(source) else _ingest_path(source, store)
        # two inputs with one file name (a/report.pdf, b/report.pdf) must both stay addressable
        refs.append(ref.model_copy(update={"name": unique_name(ref.name, taken)}))
    return refs


def _is_url(source: str) -> bool:
    return "://" in source


def check_sources(sources: list[str]) -> None:
    """Refuse missing input files before anything runs (the CLI calls this up front)."""
    for source in sources:
        if not _is_url(source):
            _local_file(source)


def _local_file(source: str) -> Path:
    path = Path(source).expanduser()
    if not path.is_file():
        raise DocumentRejected(f"input document {source!r} does not exist or is not a file")
    return path


def _ingest_path(source: str, store: DocumentStore) -> DocumentRef:
    path = _local_file(source)
    size = path.stat().st_size
    if size > MAX_INPUT_BYTES:
        raise DocumentRejected(f"input document {source!r} is {size} bytes; the limit is {MAX_INPUT_BYTES}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentRejected(f"input document {source!r} cannot be read: {exc.strerror}") from exc
    return store.put(data, label=INPUT_LABEL, name=path.name)


def _ingest_url(source: str, store: DocumentStore, context: Context) -> DocumentRef:
    from tools.web.fetch import GuardedFetcher  # the web tools are optional for path-only inputs

    page = GuardedFetcher(context).fetch(source)
    name = page.final_url.rstrip("/").rsplit("/", 1)[-1] or "page"
    mime = page.content_type.split(";")[0].strip() or None
    if mime == "text/html" and not name.endswith((".html", ".htm")):
        name += ".html"
    return store.put(page.content, label=INPUT_LABEL, name=name, mime=mime)
