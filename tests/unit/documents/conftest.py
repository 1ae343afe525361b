from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from core.context import Context
from core.schemas import DocumentRef
from tools.base import ToolDeps
from tools.documents import DocumentIndex, DocumentStore

MakeDeps = Callable[[list[DocumentRef]], ToolDeps]


@pytest.fixture
def store(tmp_path: Path) -> DocumentStore:
    return DocumentStore(tmp_path / "store")


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


@pytest.fixture
def make_deps(store: DocumentStore, docs_dir: Path) -> MakeDeps:
    """ToolDeps over the given stored refs, exactly as the act node builds them."""

    def build(refs: list[DocumentRef]) -> ToolDeps:
        return ToolDeps(
            llm=GenericFakeChatModel(messages=iter([])),
            store=store,
            context=Context(documents_dir=str(docs_dir)),
            index=DocumentIndex(refs),
        )

    return build


@pytest.fixture
def patch_process_texts(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[..., str]], None]:
    """Replace tools.ai_process.process_texts; stubs the module if the lead's version is not there yet."""

    def install(fake: Callable[..., str]) -> None:
        try:
            importlib.import_module("tools.ai_process")
        except ImportError:
            stub = types.ModuleType("tools.ai_process")
            monkeypatch.setitem(sys.modules, "tools.ai_process", stub)
            monkeypatch.setattr(sys.modules["tools"], "ai_process", stub, raising=False)
        monkeypatch.setattr("tools.ai_process.process_texts", fake, raising=False)

    return install
