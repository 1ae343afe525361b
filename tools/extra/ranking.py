"""With many brought tools, Stage 1 is offered the relevant ones: paor's own actions always, brought ones by rank.

Like langgraph-bigtool's tool retrieval, but lexical (no embedding model needed, deterministic): BM25 over each
brought tool's name, summary and parameter names, queried with the request and the refinement hint of this step.
Up to `OFFERED` brought tools are offered — all of them when there are no more than that — plus every brought
tool that a learned strategy of this kind of request names, so learning keeps working however many tools exist.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from tools.catalog import CatalogEntry

OFFERED = 8
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
_STOPWORD_TEXT = (
    "a an and are as at be by do for from get give how i in is it me my of on or please show tell that the this "
    "to us was what when where which who with you your"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    """Lower-case word stems of names and prose: `get_current_time` → get, current, time; `gitLog` → git, log."""
    stems = []
    for word in _WORD.findall(text):
        word = word.lower()
        if word in _STOPWORDS:
            continue
        stems.append(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return stems


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
    """The entries that share a word with `query`, most relevant first (ties keep the catalog's order)."""
    from rank_bm25 import BM25Okapi  # numpy behind it: imported only when there are many tools

    corpus = [words(f"{e.display_name} {e.summary} {' '.join(e.parameter_names)}") for e in entries]
    asked = words(query)
    if not asked or not any(corpus):
        return []
    scores = BM25Okapi([doc or ["-"] for doc in corpus]).get_scores(asked)
    order = sorted(range(len(entries)), key=lambda i: -scores[i])
    return [entries[i] for i in order if scores[i] > 0]
