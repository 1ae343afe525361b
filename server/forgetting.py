"""What a deleted thread leaves behind is deleted too: the client's records of its documents (and every stored file
no other record or upload names), the uploads made of its chat attachments, and its step history in the server's
store, so none of its links opens and a thread made again under its id starts clean.

A deletion through the API is seen by server/traffic.py, which forgets at once. Threads the server deletes without
a request paor sees — Aegra's thread TTL sweeper, a stateless run's thread, threads deleted with their assistant —
are found by `sweep`: when a client's documents fill their quota (server/quotas.py), and every `SWEEP_S` on each
instance (`sweeping`, started in the lifespan).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from server import engine
from server.records import ThreadRecords
from server.settings import server_store
from server.uploads import delete_thread_uploads

#: Seconds between sweeps of every client's records for threads the server no longer has.
SWEEP_S = 300.0
log = logging.getLogger("paor.server")


async def forget(owner: str, threads: list[str]) -> list[str]:
    """Forget those of `owner`'s threads the server no longer has; the ones forgotten."""
    alive = await engine.current().existing_threads(owner, threads)
    records, root = ThreadRecords(server_store()), server_store()
    gone = [thread for thread in threads if thread not in alive]
    for thread in gone:
        await asyncio.to_thread(records.forget, owner, thread)
        await asyncio.to_thread(delete_thread_uploads, root, owner, thread)
        await engine.current().delete_history(thread)
    return gone


async def sweep(owner: str) -> int:
    """Forget the records of `owner`'s threads that no longer exist; the number forgotten."""
    known = await asyncio.to_thread(ThreadRecords(server_store()).threads, owner)
    return len(await forget(owner, known)) if known else 0


async def sweeping(every_s: float = SWEEP_S) -> None:
    """Sweep every client's records, every `every_s` seconds, until cancelled."""
    while True:
        await asyncio.sleep(every_s)
        with contextlib.suppress(Exception):  # a database away for a moment: the next sweep tries again
            for owner in await asyncio.to_thread(ThreadRecords(server_store()).owners):
                if forgotten := await sweep(owner):
                    log.info("forgot %d deleted threads of %s", forgotten, owner)
