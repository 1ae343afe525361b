"""Shared fixtures: an isolated PAOR_HOME, the scripted loopback model, SQLite persistence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.sqlite import SqliteStore

from graph.context import Context
from tests.support.loopback import LoopbackServer
from tests.support.scripted_llm import ScriptedLLM

_ENV_TO_CLEAR = ("OPENAI_BASE_URL", "PAOR_MODEL", "PAOR_MAX_STEPS", "PAOR_BASE_URL", "TAVILY_API_KEY")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own PAOR_HOME and no inherited model/endpoint settings."""
    home = tmp_path / "paor-home"
    monkeypatch.setenv("PAOR_HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    for name in _ENV_TO_CLEAR:
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as llm:
        yield llm


@pytest.fixture
def context(scripted_llm: ScriptedLLM, tmp_path: Path) -> Context:
    """A Context that talks to the scripted server through the real ChatOpenAI client."""
    return Context(
        model="scripted",
        base_url=scripted_llm.base_url,
        max_retries=0,
        store_dir=str(tmp_path / "store"),
        documents_dir=str(tmp_path / "docs"),
    )


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "paor.sqlite"


@pytest.fixture
def checkpointer(sqlite_path: Path) -> Iterator[SqliteSaver]:
    with SqliteSaver.from_conn_string(str(sqlite_path)) as saver:
        yield saver


@pytest.fixture
def store(sqlite_path: Path) -> Iterator[SqliteStore]:
    with SqliteStore.from_conn_string(str(sqlite_path)) as sqlite_store:
        sqlite_store.setup()
        yield sqlite_store


@pytest.fixture
def loopback_server() -> Iterator[LoopbackServer]:
    """A loopback TCP server that records connections (sandboxed programs must reach none)."""
    server = LoopbackServer()
    yield server
    server.close()
