"""Fixtures of the core unit tests: a clean structured-output cache, services over the scripted model, test actions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from core.capabilities import forget_all
from core.context import Context
from core.llm import Models
from nodes.reading.hints import translation_of
from nodes.reading.kinds import known_answer
from nodes.reading.lexicon import months, weekdays
from nodes.reading.numbers import expected_number
from nodes.services import Services
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import ECHO, LOOKUP
from tools import catalog as catalog_module


@pytest.fixture(autouse=True)
def fresh_method_cache() -> Iterator[None]:
    """`ask_json` remembers per endpoint which structured-output method worked; no test may inherit that."""
    forget_all()
    yield
    forget_all()


@pytest.fixture(autouse=True)
def read_afresh() -> None:
    """Each test reads its requests anew: the readers cache their results, and a result cached by an earlier test
    would hide the code under test from it (mutation testing then runs the wrong tests for a mutant)."""
    for cached in (known_answer, expected_number, translation_of, weekdays, months):
        cached.cache_clear()


@pytest.fixture
def services(scripted_llm: ScriptedLLM) -> Services:
    return Services(Models(injected=scripted_llm.model()))


@pytest.fixture
def test_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register test.echo and test.lookup next to the built-in actions, for this test only."""
    catalog_module.catalog()
    monkeypatch.setitem(catalog_module._REGISTRY, ECHO.display_name, ECHO)
    monkeypatch.setitem(catalog_module._REGISTRY, LOOKUP.display_name, LOOKUP)


@pytest.fixture
def llama_llm() -> Iterator[ScriptedLLM]:
    """A server like llama.cpp: HTTP 500 to response_format json_schema, so answers come by function calling."""
    with ScriptedLLM(reject_response_formats={"json_schema"}) as llm:
        yield llm


@pytest.fixture
def llama_services(llama_llm: ScriptedLLM) -> Services:
    return Services(Models(injected=llama_llm.model()))


@pytest.fixture
def offline_context(tmp_path: Path) -> Context:
    """For nodes that never call a model: no loopback server, just an isolated document store."""
    return Context(model="offline", base_url="http://127.0.0.1:9/v1", store_dir=str(tmp_path / "store"))


@pytest.fixture
def offline_services() -> Services:
    """Services whose model would fail if a node called it (the fake has no answers)."""
    return Services(Models(injected=GenericFakeChatModel(messages=iter([]))))
