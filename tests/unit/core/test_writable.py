"""Whether paor can write where it is told to, asked before anything is written: PAOR_HOME, the database, the
output folder. A database in a folder paor cannot write is named so, also through the Python API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from core.errors import ConfigurationError
from core.persistence import open_sqlite
from core.writable import database_problem, folder_problem

MakeReadOnly = Callable[[Path], None]


def test_a_folder_that_exists_or_can_be_created_has_no_problem(tmp_path: Path) -> None:
    assert folder_problem(tmp_path) is None
    assert folder_problem(tmp_path / "new" / "deeper") is None
    assert not (tmp_path / "new").exists()  # asking creates nothing


def test_a_file_in_the_way_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")

    assert folder_problem(blocker) == "is a file, not a folder"
    assert folder_problem(blocker / "a" / "b") == f"cannot be created: {blocker} is a file"
    assert database_problem(blocker / "paor.sqlite") == (
        f"cannot be written: its folder {blocker} is a file, not a folder"
    )


def test_a_folder_nobody_may_write_is_not_writable(tmp_path: Path, make_read_only: MakeReadOnly) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    make_read_only(locked)

    assert folder_problem(locked) == "is not writable (permission denied)"
    assert folder_problem(locked / "sub") == f"cannot be created: {locked} is not writable (permission denied)"


def test_a_read_only_journal_file_makes_the_database_read_only(tmp_path: Path, make_read_only: MakeReadOnly) -> None:
    database = tmp_path / "paor.sqlite"
    database.write_bytes(b"")
    journal = tmp_path / "paor.sqlite-wal"
    journal.write_bytes(b"")
    make_read_only(journal)

    assert database_problem(database) == "is read-only (permission denied: paor.sqlite-wal)"


def test_open_sqlite_in_a_read_only_folder_says_so_not_that_the_file_is_unusable(
    tmp_path: Path, make_read_only: MakeReadOnly
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    with open_sqlite(folder / "paor.sqlite"):
        pass
    make_read_only(folder)

    with (
        pytest.raises(ConfigurationError, match=f"its folder {folder} is not writable") as refused,
        open_sqlite(folder / "paor.sqlite"),
    ):
        pass
    assert "not a usable SQLite database" not in str(refused.value)
