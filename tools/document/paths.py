"""Confine file paths named by the model (or a tool's input) to the documents folder.

Two checks, both needed: the lexical one catches `..` and foreign absolute paths before touching the file
system (so probing outside reveals nothing), the strict resolve catches symlinks whose target escapes.
"""

from __future__ import annotations

import os
from pathlib import Path

from core.errors import DocumentRejected


def resolve_in_documents_dir(path: str, documents_dir: Path) -> Path:
    """The real path of an existing file inside `documents_dir`, or DocumentRejected saying why not."""
    raw = path.strip()
    if not raw or "\x00" in raw:
        raise DocumentRejected(f"invalid document path {path!r}")
    try:
        base = documents_dir.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise DocumentRejected(f"documents folder {documents_dir} does not exist") from exc
    candidate = Path(raw)
    if not candidate.is_absolute():
        candidate = base / candidate
    lexical = Path(os.path.normpath(candidate))
    if not any(lexical.is_relative_to(root) for root in {base, Path(os.path.abspath(documents_dir))}):
        raise DocumentRejected(f"{path!r} is outside the documents folder {base}; only its files can be read")
    try:
        resolved = candidate.resolve(strict=True)
    except FileNotFoundError as exc:
        raise DocumentRejected(f"{path!r} does not exist in the documents folder {base}") from exc
    except (OSError, RuntimeError) as exc:  # symlink loops, permission errors
        raise DocumentRejected(f"{path!r} cannot be opened: {exc}") from exc
    if not resolved.is_relative_to(base):
        raise DocumentRejected(f"{path!r} links to a file outside the documents folder {base}; refused")
    if not resolved.is_file():
        raise DocumentRejected(f"{path!r} is not a file")
    return resolved
