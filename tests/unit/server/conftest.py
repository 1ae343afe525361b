"""Fixtures of the server's unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server import engine, quotas
from server.engine_langgraph import LangGraphDev


@pytest.fixture(autouse=True)
def dev_engine() -> Iterator[None]:
    """`langgraph dev`'s engine as a test's, which touches no runtime (server/app.py builds the one
    langgraph-api serves with); a test may install another; none after the test."""
    engine.use(LangGraphDev())
    yield
    engine.use(None)


@pytest.fixture
def no_document_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs are checked without reading the document store (its quota is another test's)."""

    async def no_documents(owner: str, adding: int, *, starting_run: bool = False) -> None:
        return None

    monkeypatch.setattr(quotas, "documents_refusal", no_documents)
