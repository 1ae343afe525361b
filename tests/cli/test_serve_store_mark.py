"""`paor serve`'s mark of the shared documents folder (cli/serve.py `folder_mark`): instances starting together on a
new folder must agree on one mark. Each once wrote its own, all but the one Redis names were refused, and the
folder's mark, no longer Redis's, refused every later start too (seen in CI: two instances started at once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.serve import STORE_MARK, folder_mark


def test_an_instance_that_found_no_mark_adopts_the_one_written_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / STORE_MARK).write_text("mark-of-the-instance-that-came-first", encoding="utf-8")
    monkeypatch.setattr(Path, "is_file", lambda self: False)  # it looked before the other instance wrote
    assert folder_mark(tmp_path) == "mark-of-the-instance-that-came-first"
    assert (tmp_path / STORE_MARK).read_text(encoding="utf-8") == "mark-of-the-instance-that-came-first"
    assert sorted(path.name for path in tmp_path.iterdir()) == [STORE_MARK]  # no draft left behind


def test_a_new_folder_gets_one_mark_that_every_later_start_reads(tmp_path: Path) -> None:
    folder = tmp_path / "documents"
    first = folder_mark(folder)
    assert len(first) == 32 and folder_mark(folder) == first
    assert sorted(path.name for path in folder.iterdir()) == [STORE_MARK]
