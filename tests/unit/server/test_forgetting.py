"""Threads the server deleted without a request paor saw (Aegra's thread TTL sweeper, a stateless run's thread) lose
their documents and step history on the next sweep (server/forgetting.py); live threads keep theirs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from pathlib import Path

import pytest

from server import engine, forgetting
from server.records import ThreadRecords
from server.settings import server_store
from tests.unit.server.test_records import ref, stored

LIVE, SWEPT = "0b0c9a52-7a1e-4c36-9d1e-2f4b8c0d3e11", "5d7e1f3a-2b4c-4d6e-8f0a-1b2c3d4e5f60"
OWNER = "client-a1"


class SweptServer:
    """The server's view: only `LIVE` exists; which threads' step history it was asked to delete."""

    def __init__(self) -> None:
        self.histories_deleted: list[str] = []

    async def existing_threads(self, owner: str, thread_ids: Iterable[str]) -> set[str]:
        return {thread for thread in thread_ids if thread == LIVE}

    async def delete_history(self, thread: str) -> None:
        self.histories_deleted.append(thread)


def test_a_thread_the_server_deleted_on_its_own_loses_its_files_and_history_at_the_next_sweep(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PAOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PAOR_STORE_DIR", raising=False)
    root = server_store()
    kept, swept = ref(fill="4"), ref(fill="5")
    stored(root, kept, swept)
    records = ThreadRecords(root)
    records.record(OWNER, LIVE, [kept])
    records.record(OWNER, SWEPT, [swept])
    server = SweptServer()
    engine.use(server)  # type: ignore[arg-type]
    try:

        async def two_sweeps() -> None:
            task = asyncio.create_task(forgetting.sweeping(every_s=0.01))
            await asyncio.sleep(0.1)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

        asyncio.run(two_sweeps())
    finally:
        engine.use(None)
    assert records.threads(OWNER) == [LIVE]
    assert records.bytes_path(kept.sha256).is_file() and not records.bytes_path(swept.sha256).exists()
    assert server.histories_deleted == [SWEPT]
