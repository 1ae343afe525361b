"""Content-addressed document store and the docList:/docItem: index over it.

State and checkpoints hold only `DocumentRef`s; the bytes live here once per distinct content, so a checkpoint
stays the same size whether an action produced 1 KB or 100 MB.
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path, PurePath

from core.errors import DocumentRejected, UnknownDocumentReference
from core.schemas import DocumentRef

INPUT_LABEL = "input"


class DocumentStore:
    """Stores bytes under their SHA-256; writing the same content twice costs nothing."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def put(self, data: bytes, *, label: str, name: str, mime: str | None = None) -> DocumentRef:
        digest = hashlib.sha256(data).hexdigest()
        path = self._path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        mime = mime or mimetypes.guess_type(name)[0] or "application/octet-stream"
        return DocumentRef(label=label, name=safe_file_name(name), mime=mime, size=len(data), sha256=digest)

    def put_text(self, text: str, *, label: str, name: str, mime: str = "text/markdown") -> DocumentRef:
        return self.put(text.encode("utf-8"), label=label, name=name, mime=mime)

    def read_bytes(self, ref: DocumentRef) -> bytes:
        path = self._path(ref.sha256)
        try:
            return path.read_bytes()
        except FileNotFoundError as exc:
            raise DocumentRejected(f"document {ref.name} ({ref.sha256[:12]}) is missing from {self.root}") from exc

    def read_text(self, ref: DocumentRef) -> str:
        return self.read_bytes(ref).decode("utf-8", errors="replace")

    def path_of(self, ref: DocumentRef) -> Path:
        return self._path(ref.sha256)

    def _path(self, digest: str) -> Path:
        return self.root / digest[:2] / digest[2:4] / digest


def safe_file_name(name: str) -> str:
    """A name free of path parts, control and reserved characters, so writing it cannot escape a folder."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = re.sub(r"[\x00-\x1f\x7f:*?\"<>|]", "_", base).strip().lstrip(".")
    return base or "document"


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, or `stem-2.ext`, `stem-3.ext`…: the document index keys on names, so outputs must differ."""
    path = PurePath(name)
    candidate, counter = name, 1
    while candidate in taken:
        counter += 1
        candidate = f"{path.stem}-{counter}{path.suffix}"
    taken.add(candidate)
    return candidate


class DocumentIndex:
    """The documents of one thread, addressable as `docList:<label>` or `docItem:<label>/<name>`."""

    def __init__(self, refs: Iterable[DocumentRef]) -> None:
        self._by_label: dict[str, list[DocumentRef]] = {}
        for ref in refs:
            bucket = self._by_label.setdefault(ref.label, [])
            if all(r.name != ref.name for r in bucket):
                bucket.append(ref)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_label.values())

    def resolve(self, reference: str) -> list[DocumentRef]:
        kind, _, target = reference.partition(":")
        if kind == "docList" and target in self._by_label:
            return list(self._by_label[target])
        if kind == "docItem":
            label, _, name = target.partition("/")
            for ref in self._by_label.get(label, []):
                if ref.name == name:
                    return [ref]
        known = ", ".join(self.references()) or "none"
        raise UnknownDocumentReference(f"no document matches {reference!r}; known references: {known}")

    def resolve_all(self, references: Iterable[str]) -> list[DocumentRef]:
        seen: dict[str, DocumentRef] = {}
        for reference in references:
            for ref in self.resolve(reference):
                seen.setdefault(ref.item_reference, ref)
        return list(seen.values())

    def references(self) -> list[str]:
        return [f"docList:{label}" for label in self._by_label]

    def choices(self) -> list[str]:
        """Every reference Stage 1 may name, newest lists first: each docList, then each docItem."""
        labels = list(reversed(self._by_label))
        lists = [f"docList:{label}" for label in labels]
        return lists + [ref.item_reference for label in labels for ref in self._by_label[label]]

    def listed(self, max_lists: int) -> list[str]:
        """The labels `render(max_lists=…)` lists: the user's inputs, then the newest results."""
        newest_first = list(reversed(self._by_label))
        return sorted(newest_first, key=lambda label: label != INPUT_LABEL)[:max_lists]

    def render(self, max_items_per_list: int = 5, max_lists: int = 6) -> str:
        """Compact listing for the Stage-1 prompt: labels, names, types and sizes — never content.

        Newest lists first; the user's inputs are always listed; older results are counted, not listed, so the
        prompt does not grow with the number of steps. A list of one document is that document (its docList
        reference resolves to it), so it takes one line."""
        if not self._by_label:
            return "(no documents yet)"
        labels = list(reversed(self._by_label))
        shown = self.listed(max_lists)
        lines = []
        for label in shown:
            refs = self._by_label[label]
            if len(refs) == 1:  # the list is its one document: one line, no docItem reference repeating the label
                lines.append(f"- docList:{label}: {refs[0].name} [{refs[0].mime}, {refs[0].size} bytes]")
                continue
            lines.append(f"- docList:{label} ({len(refs)} documents)")
            for ref in refs[:max_items_per_list]:
                lines.append(f"  - {ref.item_reference} [{ref.mime}, {ref.size} bytes]")
            if len(refs) > max_items_per_list:
                lines.append(f"  - … {len(refs) - max_items_per_list} more")
        if len(labels) > len(shown):
            lines.append(f"- … {len(labels) - len(shown)} older lists (labels in HISTORY)")
        return "\n".join(lines)
