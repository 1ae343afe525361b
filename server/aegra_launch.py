"""Start one Aegra server for paor after the database is migrated, once, however many start together.

Aegra 0.11 migrates at start-up without a lock (`RUN_MIGRATIONS_ON_STARTUP`; `aegra_api.core.migrations` says it
takes an advisory lock, but its alembic env takes none), and every instance then runs LangGraph's checkpointer and
store set-up, also without one: two instances starting on a new database fail one of them (a duplicate type, a
duplicate migration row, a deadlock). So each instance is started through this launcher:

1. take a session-level advisory lock on the database, polled with `pg_try_advisory_lock` rather than waited for
   with `pg_advisory_lock`: a waiting statement holds a snapshot, and the migrations' `CREATE INDEX CONCURRENTLY`
   waits for every such snapshot (core/persistence.py does the same for paor's own set-up);
2. apply Aegra's migrations (`aegra db upgrade`), LangGraph's checkpointer and store set-up, and Aegra's
   registration of the configuration's graphs as the operator's assistants (each start inserts those it does not
   find: two instances on a new database both inserted `paor`'s, and one failed on the duplicate key);
3. release the lock and run uvicorn serving Aegra's app with `RUN_MIGRATIONS_ON_STARTUP=false` (its own set-up
   then finds everything done) in this process — not `aegra serve`, which runs uvicorn as a child: a `kill -9` of
   an instance must end its server, and `--workers N` runs N instances on one port (which end with it:
   server/supervised.py). In this process, not exec'd anew: the modules step 2 imported (Aegra's, LangGraph's,
   paor's graph) are not imported a second time, which made each start cost ~2 CPU-seconds more.

    python -m server.aegra_launch --host 127.0.0.1 --port 2026 --workers 1
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

import psycopg

from server.supervised import SUPERVISOR_PID

#: The advisory-lock key of the schema set-up (any fixed 64-bit number every instance agrees on).
LOCK_KEY = 0x7061_6F72_6165_6772  # "paoraegr"
WAIT_S = 600.0


def migrate() -> None:
    from aegra_api.core.migrations import run_migrations
    from aegra_api.settings import settings

    with psycopg.connect(settings.db.database_url_sync, autocommit=True) as conn:
        deadline = time.monotonic() + WAIT_S
        while not conn.execute("SELECT pg_try_advisory_lock(%s)", (LOCK_KEY,)).fetchone()[0]:  # type: ignore[index]
            if time.monotonic() > deadline:
                raise SystemExit(f"another instance held the schema lock for {WAIT_S:.0f} s")
            time.sleep(0.2)
        try:
            print(f"[aegra_launch {os.getpid()}] schema lock taken; migrating", file=sys.stderr, flush=True)
            run_migrations()

            async def langgraph_setup() -> None:  # what every Aegra start runs again, now a no-op
                from aegra_api.core.database import db_manager
                from aegra_api.services.langgraph_service import get_langgraph_service

                await db_manager.initialize()
                try:  # the operator's assistants: each start inserts those it does not find, without a lock
                    await get_langgraph_service().initialize()
                finally:
                    await db_manager.close()

            asyncio.run(langgraph_setup())
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (LOCK_KEY,))
    print(f"[aegra_launch {os.getpid()}] schema ready; starting the server", file=sys.stderr, flush=True)


def main(argv: list[str]) -> None:
    # Set before Aegra reads its settings: migrate() sets the schema up, once; uvicorn's workers end with this process.
    os.environ.update({"RUN_MIGRATIONS_ON_STARTUP": "false", SUPERVISOR_PID: str(os.getpid())})
    migrate()
    from uvicorn.main import main as uvicorn

    uvicorn(["aegra_api.main:app", *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
