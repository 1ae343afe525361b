"""Fixtures of the server's unit tests."""

from __future__ import annotations

import pytest

from server import quotas


@pytest.fixture
def no_document_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs are checked without reading the document store (its quota is another test's)."""

    async def no_documents(owner: str, adding: int, *, starting_run: bool = False) -> None:
        return None

    monkeypatch.setattr(quotas, "documents_refusal", no_documents)
