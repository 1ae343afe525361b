"""`langgraph dev` with PAOR_DATABASE_URL: the langgraph.json factories put checkpoints and strategies in PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.persistence import open_persistence
from nodes.strategies import NAMESPACE
from tests.support import deadlines
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip("langgraph_sdk", reason="the server extra is not installed")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]")


def test_langgraph_dev_persists_to_postgres(scripted_llm: ScriptedLLM, pg_url: str, tmp_path: Path) -> None:
    script_primes(scripted_llm)
    env = scripted_env(scripted_llm.base_url, tmp_path / "home", PAOR_DATABASE_URL=pg_url)
    with langgraph_dev(tmp_path, env) as url:
        client = langgraph_sdk.get_sync_client(url=url, timeout=deadlines.HTTP_S)
        thread = client.threads.create()["thread_id"]
        out = client.runs.wait(thread, "paor", input={"prompt": PRIMES_PROMPT}, raise_error=True)
        assert isinstance(out, dict) and out["status"] == "completed", out
    assert not (tmp_path / "home" / "paor.sqlite").exists(), "nothing went to SQLite"
    with open_persistence(pg_url) as (saver, store):
        assert saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}) is not None
        assert store.search(NAMESPACE, limit=10), "the strategy learned by the server is in PostgreSQL"
