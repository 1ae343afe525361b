"""SQLite learning stores whose transactions take the write lock up front.

LangGraph's SQLite stores open each batch with a deferred `BEGIN`. A batch that reads and then writes (learning
does `get` then `put`) must upgrade its lock, and SQLite refuses that upgrade at once — "database is locked",
without waiting for the busy timeout — when the checkpointer, on its own connection, committed in between. Under
concurrent runs that failed most learn steps. `BEGIN IMMEDIATE` takes the write lock first and waits instead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import aiosqlite
from langgraph.store.sqlite import SqliteStore
from langgraph.store.sqlite.aio import AsyncSqliteStore


class ImmediateSqliteStore(SqliteStore):
    @contextmanager
    def _cursor(self, *, transaction: bool = True) -> Iterator[sqlite3.Cursor]:
        if not self.is_setup:
            self.setup()
        with self.lock:
            if transaction:
                self.conn.execute("BEGIN IMMEDIATE")
            cur = self.conn.cursor()
            try:
                yield cur
            finally:
                if transaction:
                    self.conn.execute("COMMIT")
                cur.close()


class ImmediateAsyncSqliteStore(AsyncSqliteStore):
    @asynccontextmanager
    async def _cursor(self, *, transaction: bool = True) -> AsyncIterator[aiosqlite.Cursor]:
        if not self.is_setup:
            await self.setup()
        async with self.lock:
            if transaction:
                await self.conn.execute("BEGIN IMMEDIATE")
            async with self.conn.cursor() as cur:
                try:
                    yield cur
                finally:
                    if transaction:
                        await self.conn.execute("COMMIT")
