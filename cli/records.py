"""What `paor history`, `paor strategies` and `paor endpoints` read: a thread's steps, the strategies learned, what
is remembered of each model endpoint; read through the persistence alone, without building the graph."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from cli.exits import bad_input_exits, stdout, styled
from core.errors import InvalidRequest

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore


def show_history(thread: str, db: str | None) -> None:
    """The steps of a thread, newest first, with their outcome and summary."""
    with bad_input_exits():
        from cli.view import print_history
        from core import history_store

        with _thread(thread, db) as (values, store):
            entries = history_store.complete(store, thread, values)  # state holds a window, the store every step
    console = stdout()
    print_history(console, thread, entries)
    for note in values.get("notes") or []:  # questions asked and answered, assumptions, unavailable actions
        console.print(styled(f"note: {note}"))


@contextmanager
def _thread(thread: str, db: str | None) -> Iterator[tuple[dict[str, Any], BaseStore]]:
    """The thread's state as its last checkpoint holds it, and the store beside it, read through the persistence
    alone: building the graph would import every node and tool for a read-only look."""
    from core.database import database_errors
    from core.persistence import open_persistence

    if not _database_exists(db):
        raise InvalidRequest(f"unknown thread {thread!r}")
    with database_errors(db), open_persistence(db) as (saver, store):
        saved = saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
        values = saved.checkpoint.get("channel_values") if saved else None
        if not values:
            raise InvalidRequest(f"unknown thread {thread!r}")
        yield dict(values), store


def show_strategies(pattern: str | None, db: str | None) -> None:
    """What paor has learned: per intent pattern, what worked and what to avoid."""
    from cli.view import print_strategies
    from core.database import database_errors
    from core.persistence import open_persistence
    from core.schemas import Strategy
    from nodes.direct_lessons import learned_notes
    from nodes.strategies import learned as learned_strategies

    learned: list[Strategy] = []
    notes: dict[str, str] = {}
    with bad_input_exits():
        if _database_exists(db):
            with database_errors(db), open_persistence(db) as (_, store):
                learned = learned_strategies(store)
                notes = learned_notes(store) if pattern is None else {}
    learned = [s for s in learned if pattern is None or pattern in s.pattern]
    learned.sort(key=lambda s: (s.successRate, s.attempts), reverse=True)
    if not learned and not notes:
        stdout().print(styled("no strategies learned yet" + (f" for {pattern!r}" if pattern else "")))
        return
    print_strategies(stdout(), learned)
    for language, note in notes.items():
        stdout().print(styled(f"direct answers in {language!r}: the first call adds {note!r}"))


def show_endpoints(reset: bool, endpoint: str | None, db: str | None) -> None:
    """What paor remembers of each model endpoint (structured-output methods refused or accepted, whether it takes
    images), shared by every run on this database, a server's included; `--reset` forgets it (a server re-reads
    it within a minute)."""
    from core.capabilities import Capabilities
    from core.database import database_errors
    from core.persistence import open_persistence

    console = stdout()
    with bad_input_exits():
        if not _database_exists(db):
            console.print(styled("nothing remembered of any endpoint yet"))
            return
        with database_errors(db), open_persistence(db) as (_, store):
            memory = Capabilities(store)
            known = {key: record for key, record in memory.records().items() if endpoint is None or endpoint in key}
            if reset:
                for key in known:
                    memory.reset(key)
    if not known:
        console.print(
            styled("nothing remembered of any endpoint yet" if endpoint is None else f"no endpoint {endpoint!r}")
        )
    for key, record in sorted(known.items()):
        strikes = ", ".join(f"{method} ×{count}" for method, count in sorted(record.get("strikes", {}).items()))
        seen = record.get("images")
        images = ("yes" if seen else "no") if isinstance(seen, bool) else "not asked"
        line = f"{key}: accepted {record.get('accepted') or '-'}; refused {strikes or '-'}; images {images}"
        console.print(styled(("forgotten: " if reset else "") + line))


def _database_exists(db: str | None) -> bool:
    """A PostgreSQL database always exists (setup creates the tables); an SQLite file only once written."""
    from core.database import database_url, is_postgres, sqlite_path

    return is_postgres(database_url(db)) or sqlite_path(db).exists()
