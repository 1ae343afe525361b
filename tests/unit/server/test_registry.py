"""The in-memory runtime's registry on disk (server/registry.py): a creation writes what it created and nothing
else, a kill loses none of it, and finished runs keep no input."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from server.registry import Journal, trim_finished_runs


class Registry(dict[str, Any]):
    """The shape of langgraph_runtime_inmem's GlobalStore: lists of records, written whole by `sync`."""

    def __init__(self, filename: Path) -> None:
        super().__init__(threads=[], runs=[], assistants=[], assistant_versions=[], crons=[])
        self.filename = str(filename)

    def sync(self) -> None:
        Path(self.filename).write_bytes(pickle.dumps(dict(self)))

    @classmethod
    def load(cls, filename: Path) -> Registry:
        registry = cls(filename)
        if filename.exists():
            registry.update(pickle.loads(filename.read_bytes()))
        return registry


def _run(run_id: str, status: str = "pending", size: int = 10) -> dict[str, Any]:
    return {"run_id": run_id, "thread_id": "t", "status": status, "kwargs": {"input": {"prompt": "x" * size}}}


def test_a_creation_writes_what_it_created_whatever_the_registry_holds(tmp_path: Path) -> None:
    """Issue 45: the registry was written whole after every creation, so one client's 49 runs of 9 MB made every
    other client's POST /threads take half a second."""
    registry = Registry(tmp_path / "ops.pckl")
    registry["runs"] = [_run(f"big-{n}", "success", size=1_000_000) for n in range(20)]
    journal = Journal(registry)
    journal.replay()  # at start: all of it is in the snapshot

    registry["threads"].append({"thread_id": "alice-1", "metadata": {"owner": "alice"}})
    assert journal.record_new() == 1
    assert journal.path.stat().st_size < 1_000, "the new thread only, not 20 MB of another client's runs"
    assert journal.record_new() == 0


def test_what_a_kill_interrupted_is_there_after_the_restart(tmp_path: Path) -> None:
    file = tmp_path / "ops.pckl"
    registry = Registry(file)
    registry["threads"].append({"thread_id": "before", "metadata": {}})
    registry.sync()
    journal = Journal(registry)
    journal.replay()
    registry["threads"].append({"thread_id": "after", "metadata": {}})
    registry["runs"].append(_run("r1"))
    journal.record_new()  # then kill -9: no full write

    restarted = Registry.load(file)
    assert Journal(restarted).replay() == 2
    assert [t["thread_id"] for t in restarted["threads"]] == ["before", "after"]
    assert [r["run_id"] for r in restarted["runs"]] == ["r1"]


def test_a_full_write_trims_finished_runs_and_retires_the_journal(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "ops.pckl")
    journal = Journal(registry)
    journal.replay()
    registry["runs"] += [_run("done", "success"), _run("waiting", "pending"), _run("failed", "error")]
    journal.record_new()
    journal.compacting(registry.sync)()

    assert not journal.path.exists() and not journal.old.exists()
    saved = Registry.load(Path(registry.filename))
    kept = {run["run_id"]: run["kwargs"]["input"] for run in saved["runs"]}
    assert kept == {"done": None, "waiting": {"prompt": "x" * 10}, "failed": None}
    assert trim_finished_runs(registry) == 0, "trimmed once"


def test_a_journal_cut_short_by_a_kill_restores_the_records_before_the_cut(tmp_path: Path) -> None:
    registry = Registry(tmp_path / "ops.pckl")
    journal = Journal(registry)
    journal.replay()
    registry["threads"].append({"thread_id": "whole", "metadata": {}})
    journal.record_new()
    registry["threads"].append({"thread_id": "cut", "metadata": {}})
    journal.record_new()
    data = journal.path.read_bytes()
    journal.path.write_bytes(data[:-5])

    restarted = Registry.load(Path(registry.filename))
    assert Journal(restarted).replay() == 1
    assert [t["thread_id"] for t in restarted["threads"]] == ["whole"]
