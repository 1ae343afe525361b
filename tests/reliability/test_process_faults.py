"""Process faults: SIGKILL at any moment, concurrent writers on one SQLite file, corrupt or foreign files."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from core.context import Context
from core.errors import ConfigurationError
from core.persistence import open_sqlite
from graph.builder import build_graph
from tests.reliability.conftest import script_direct, sha256_of
from tests.support import deadlines, scenarios
from tests.support.scenarios import CODE_PROMPT, DATA_PROMPT, PRIMES_PROMPT
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

ROOT = Path(__file__).resolve().parents[2]

# The child runs one thread to the end and prints its outcome; the parent may SIGKILL it at any moment. Variables
# make it kill itself at one exact point instead (see `kill_env`), optionally on a slow disk.
_CHILD = textwrap.dedent(
    """
    import collections, json, os, signal, sys, time
    import graph.builder as builder
    import core.persistence as persistence
    from langgraph.checkpoint.sqlite import SqliteSaver
    from core.context import Context

    db, base_url, store_dir, thread, prompt = sys.argv[1:6]
    env = os.environ.get

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    if env("PAOR_TEST_SLOW_WRITES"):
        # A slow disk: every checkpoint and task write takes this long before it starts.
        delay = float(env("PAOR_TEST_SLOW_WRITES"))
        for name in ("put", "put_writes"):
            def slow(self, *args, _real=getattr(SqliteSaver, name), **kwargs):
                time.sleep(delay)
                return _real(self, *args, **kwargs)
            setattr(SqliteSaver, name, slow)

    # Which nodes have started and finished, in order; "validate:1" names the first start of validate.
    started, finished = collections.Counter(), []
    real_instrumented = builder.instrumented

    def instrumented(name, fn, services):
        node = real_instrumented(name, fn, services)
        def watched(state, runtime):
            started[name] += 1
            if env("PAOR_TEST_KILL_AT_NODE") == f"{name}:{started[name]}":
                die()  # the previous node has ended, this one has not begun
            update = node(state, runtime)
            finished.append(f"{name}:{started[name]}")
            return update
        watched.__name__ = name
        return watched

    builder.instrumented = instrumented

    class Cursor:
        def __init__(self, cur):
            self._cur = cur
        def __getattr__(self, name):
            return getattr(self._cur, name)
        def execute(self, query, *args):
            result = self._cur.execute(query, *args)
            after = env("PAOR_TEST_KILL_IN_CHECKPOINT_AFTER")
            if "INTO checkpoints" in query and after and finished and finished[-1] == after:
                die()  # the checkpoint row is written but its transaction is not committed
            return result
        def executemany(self, query, rows):
            # Die after the first row of a multi-row `writes` insert of the node named in the variable: exactly
            # what a SIGKILL between two rows of SqliteSaver.put_writes' executemany would leave on disk.
            node = env("PAOR_TEST_KILL_IN_WRITES")
            rows = list(rows)
            channels = [row[6] for row in rows] if "INTO writes" in query else []
            if node and len(rows) > 1 and f"branch:to:{node}" not in channels and NODE_MARK[node] in channels:
                self._cur.execute(query, rows[0])
                die()
            return self._cur.executemany(query, rows)

    class Connection:
        def __init__(self, conn):
            self._conn = conn
        def __getattr__(self, name):
            return getattr(self._conn, name)
        def cursor(self, *args):
            return Cursor(self._conn.cursor(*args))

    NODE_MARK = {"learn": "history", "act": "result"}
    real_connect = persistence._connect
    persistence._connect = lambda path, *a, **k: Connection(real_connect(path, *a, **k))

    context = Context(model="scripted", base_url=base_url, max_retries=0, store_dir=store_dir)
    with persistence.open_sqlite(db) as (saver, store):
        graph = builder.build_graph(checkpointer=saver, store=store)
        out = graph.invoke({"prompt": prompt}, {"configurable": {"thread_id": thread}}, context=context)
    print(json.dumps({"status": out.get("status"), "steps": len(out.get("history", []))}))
    """
)


def spawn(db: Path, llm: ScriptedLLM, store_dir: Path, thread: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(db), llm.base_url, str(store_dir), thread, PRIMES_PROMPT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )


def resume(db: Path, context: Context, thread: str) -> dict[str, Any]:
    with open_sqlite(db) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        config = {"configurable": {"thread_id": thread}}
        assert graph.get_state(config).values, "the killed run left no checkpoint"
        return graph.invoke(None, config, context=context)


def integrity(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


# --- SIGKILL at the k-th model request, then resume in-process ---------------------------------------------------


# The primes scenario asks: 1 Intent, 2 ActionSelection, 3 ParametersAnswer, 4 text (code), 5 ActionSelection,
# 6 ParametersAnswer, 7 text (data); refine asks no model.
@pytest.mark.parametrize("kill_at", [1, 4, 5, 7])
def test_sigkill_at_any_request_resumes_to_completion_without_repeating_finished_actions(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path, kill_at: int
) -> None:
    child: list[subprocess.Popen[str]] = []
    seen = {"n": 0, "killed_route": ""}
    lock = threading.Lock()

    def killing(route_answer: Any) -> Any:
        def answer(request: RecordedRequest) -> Any:
            with lock:
                seen["n"] += 1
                if seen["n"] == kill_at and child:
                    os.kill(child[0].pid, signal.SIGKILL)  # dies while this request is in flight
                    seen["killed_route"] = request.route
            return route_answer(request) if callable(route_answer) else route_answer

        return answer

    scenarios.script_primes(scripted_llm)
    for route, queue in list(scripted_llm._queues.items()):
        scripted_llm._queues[route] = [killing(response) for response in queue]

    db = tmp_path / "kill.sqlite"
    child.append(spawn(db, scripted_llm, context.store_path, "kill"))
    child[0].communicate(timeout=deadlines.PROCESS_S)
    assert child[0].returncode == -signal.SIGKILL, f"never killed (requests seen: {seen['n']})"
    before = [r.text for r in scripted_llm.requests_for("text")]

    out = resume(db, context, "kill")

    assert out["status"] == "completed"
    assert [h["step"] for h in out["history"]] == [1, 2]
    after = [r.text for r in scripted_llm.requests_for("text")][len(before) :]
    code_calls = sum(CODE_PROMPT in t for t in before + after)
    data_calls = sum(DATA_PROMPT in t for t in before + after)
    # Each action ran once; only the action whose call was in flight when the process died runs again.
    repeated = 1 if seen["killed_route"] == "text" else 0
    assert code_calls + data_calls == 2 + repeated
    assert code_calls >= 1 and data_calls >= 1
    assert integrity(db) == "ok"


def actions_run(llm: ScriptedLLM) -> list[str]:
    """The tool actions the scripted model executed, in order: 'code' (step 1) and 'data' (step 2)."""
    texts = [r.text for r in llm.requests_for("text")]
    return ["code" if CODE_PROMPT in t else "data" if DATA_PROMPT in t else "other" for t in texts]


def kill_and_resume(llm: ScriptedLLM, context: Context, db: Path, **env: str) -> dict[str, Any]:
    """Run the primes scenario in a child that kills itself where `env` says, then resume it in this process."""
    scenarios.script_primes(llm)
    proc = spawn(db, llm, context.store_path, "killed", **env)
    _, stderr = proc.communicate(timeout=deadlines.PROCESS_S)
    assert proc.returncode == -signal.SIGKILL, f"the kill point was never reached: {stderr[-2000:]}"
    out = resume(db, context, "killed")
    assert out["status"] == "completed", out.get("stop_reason")
    assert [h["step"] for h in out["history"]] == [1, 2]
    assert integrity(db) == "ok"
    return out


# Where a node has ended and the next has not begun: right after step 1's action, between the two steps, right
# after step 2's action. On a slow disk, so that a checkpoint written in the background (durability="async")
# is still unwritten when the next node starts — the kill then shows what the shipped durability prevents.
@pytest.mark.parametrize("next_node", ["validate:1", "select:2", "validate:2"])
def test_sigkill_between_two_nodes_resumes_without_repeating_a_finished_action(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path, next_node: str
) -> None:
    env = {"PAOR_TEST_KILL_AT_NODE": next_node, "PAOR_TEST_SLOW_WRITES": "0.1"}
    kill_and_resume(scripted_llm, context, tmp_path / "boundary.sqlite", **env)
    assert actions_run(scripted_llm) == ["code", "data"]  # each action ran exactly once


def test_sigkill_inside_a_checkpoint_write_resumes_without_repeating_a_finished_action(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path
) -> None:
    # The checkpoint after step 1's validation is half-written (row inserted, transaction open) when the process dies.
    kill_and_resume(scripted_llm, context, tmp_path / "torn.sqlite", PAOR_TEST_KILL_IN_CHECKPOINT_AFTER="validate:1")
    assert actions_run(scripted_llm) == ["code", "data"]


def test_sigkill_between_the_rows_of_a_task_write_resumes_to_completion(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path
) -> None:
    kill_and_resume(scripted_llm, context, tmp_path / "partial.sqlite", PAOR_TEST_KILL_IN_WRITES="learn")
    assert actions_run(scripted_llm) == ["code", "data"]


# --- concurrent writers -----------------------------------------------------------------------------------------


def test_two_processes_writing_one_sqlite_file_concurrently_both_complete(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path
) -> None:
    script_direct(scripted_llm)
    db = tmp_path / "shared.sqlite"
    procs = [spawn(db, scripted_llm, context.store_path, f"writer-{i}") for i in range(3)]
    outputs = [p.communicate(timeout=deadlines.PROCESS_S) for p in procs]
    for proc, (stdout, stderr) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, stderr[-2000:]
        assert json.loads(stdout.strip().splitlines()[-1]) == {"status": "completed", "steps": 1}
    assert integrity(db) == "ok"
    with open_sqlite(db) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        for i in range(3):
            state = graph.get_state({"configurable": {"thread_id": f"writer-{i}"}})
            assert state.next == () and state.values["status"] == "completed"


OPENER = textwrap.dedent(
    """
    import pathlib, sys, time
    from core.persistence import open_sqlite
    folder, go = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    for i in range(int(sys.argv[3])):
        with open_sqlite(folder / f"new-{i}.sqlite"):
            pass
    """
)


def test_processes_opening_a_new_file_at_the_same_moment_all_set_it_up(tmp_path: Path) -> None:
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, str(tmp_path), str(go), "12"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    go.touch()
    for proc in procs:
        _, stderr = proc.communicate(timeout=deadlines.PROCESS_S)
        assert proc.returncode == 0, stderr[-2000:]
    assert all(integrity(tmp_path / f"new-{i}.sqlite") == "ok" for i in range(12))


def test_a_process_and_in_process_threads_share_the_file_while_it_runs(
    scripted_llm: ScriptedLLM, context: Context, tmp_path: Path
) -> None:
    script_direct(scripted_llm)
    db = tmp_path / "mixed.sqlite"
    proc = spawn(db, scripted_llm, context.store_path, "outside")
    with open_sqlite(db) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        results: dict[str, Any] = {}

        def work(thread: str) -> None:
            results[thread] = graph.invoke(
                {"prompt": PRIMES_PROMPT}, {"configurable": {"thread_id": thread}}, context=context
            )

        threads = [threading.Thread(target=work, args=(f"inside-{i}",)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(deadlines.PROCESS_S)
    _, stderr = proc.communicate(timeout=deadlines.PROCESS_S)
    assert proc.returncode == 0, stderr[-2000:]
    assert {k: v["status"] for k, v in results.items()} == {f"inside-{i}": "completed" for i in range(3)}
    assert integrity(db) == "ok"


# --- files that are not paor's database -------------------------------------------------------------------------


def _foreign_sqlite(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        conn.execute("INSERT INTO invoices (total) VALUES (12.5)")
    conn.close()


@pytest.mark.parametrize(
    "content",
    [
        os.urandom(4096),
        b"SQLite format 3\x00" + os.urandom(4080),
        b"SQLite format 3\x00" + b"\x10\x00\x01\x01" + b"\x00" * 92 + os.urandom(4000),
        b"SQLite format 3\x00" + b"\x10\x00\x02\x02" + os.urandom(4076),  # a header that says WAL
        b"%PDF-1.7\n" + b"x" * 500,
    ],
    ids=["random", "sqlite-header-then-garbage", "sqlite-header-bad-pages", "sqlite-header-says-wal", "pdf"],
)
def test_a_corrupt_database_file_is_a_clear_error_and_stays_byte_identical(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "corrupt.sqlite"
    db.write_bytes(content)
    before = sha256_of(db)
    with pytest.raises(ConfigurationError, match="SQLite"), open_sqlite(db):
        pass
    assert sha256_of(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corrupt.sqlite"]  # no -wal/-shm left behind


def test_cli_names_the_unusable_database_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from cli.app import app

    db = tmp_path / "garbage.sqlite"
    db.write_bytes(os.urandom(2048))
    before = sha256_of(db)
    monkeypatch.setenv("PAOR_DB", str(db))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.chdir(tmp_path)
    for args in (["run", "hello"], ["history", "t"], ["resume", "t"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "is not an SQLite database" in result.stderr and "Traceback" not in result.output
    assert sha256_of(db) == before


def test_another_applications_sqlite_database_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "accounting.sqlite"
    _foreign_sqlite(db)
    before = sha256_of(db)
    with pytest.raises(ConfigurationError), open_sqlite(db):
        pass
    assert sha256_of(db) == before


def test_a_database_paor_created_earlier_is_reopened(tmp_path: Path) -> None:
    db = tmp_path / "own.sqlite"
    with open_sqlite(db):
        pass
    with open_sqlite(db) as (saver, _):
        assert list(saver.list(None)) == []
