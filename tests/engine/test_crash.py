"""The crash promise of `paor serve` (issue 44, item 3): `kill -9` of the instance running a run, mid-run, and the
run completes on another instance from its last checkpoint. Two instances on one PostgreSQL and one Redis, real
processes (tests/support/paor_serve.py), with Aegra's worker leases shortened so that the takeover takes seconds.

What makes it work: Aegra's lease reaper puts a run whose lease expired back in the queue, and the instance that
takes it executes it again with the same `run_id` and its original input (aegra_api.services.run_executor
`_resolve_input`). LangGraph takes an input run whose `run_id` is that of the thread's last checkpoint for a re-entry
and resumes from that checkpoint, ignoring the input (langgraph.pregel._loop `_first`, "Same run_id"); a `Command`
run always resumes. So a step finished before the kill is not done again and an approved action is not asked for
again; the model call in flight at the kill is made again, and with it the action whose call it was.

Two gaps were found here and closed: with LangGraph's default durability (`async`) a run went on while its
checkpoints were still being written, so a kill then repeated a finished action (aegra.json now sets `sync`, as
the CLI runs); and a re-executed run re-applied its plain `resume`, which answered the next question when the
instance died just after asking it (server/pinned_resume.py pins a resume to the interrupt it answers).

The model is the scripted loopback one of this process; one request is held until the test has killed the
instance that made it, so the kill lands while that call is in flight. A slow database is a table lock the test
takes when a given request arrives.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from nodes.takeover import TAKEN_OVER
from server.aegra_attempts import HANDED_BACK
from tests.support import deadlines
from tests.support.paor_serve import MISSING, Instance, Service, client, service, tail
from tests.support.scenarios import (
    CODE_PROMPT,
    DATA_ANSWER,
    DATA_PROMPT,
    PRIMES_PROMPT,
    knows_code_fails,
    script_primes,
)
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEY = "crash-key-alice-7f3a"
APPROVE = {"approve": "always"}
NUMBERS = DATA_ANSWER.splitlines()[0]  # the answer's start: the whole list is cut, and is the deliverable
#: Aegra's worker leases, shortened: 30 s renewed every 10 s, reaped every 15 s by default. A healthy instance
#: renews its lease five times before it expires, so a busy machine does not lose it; a killed one's is
#: re-queued at most 11 s after the kill.
LEASES = {"LEASE_DURATION_SECONDS": "10", "HEARTBEAT_INTERVAL_SECONDS": "2", "REAPER_INTERVAL_SECONDS": "1"}


@dataclass
class Held:
    """The first model request that `matches` is held until `release()`: the call in flight at the kill."""

    matches: Callable[[RecordedRequest], bool]
    arrived: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> bool:
        with self._lock:
            hold = self.matches(request) and not self.arrived.is_set()
            if hold:
                self.arrived.set()
        if hold:
            self.released.wait(deadlines.PROCESS_S)
        return hold

    def release(self) -> None:
        self.released.set()


def held_primes(llm: ScriptedLLM, *hooks: Callable[[RecordedRequest], object]) -> None:
    """The two-step primes scenario (step 1 asks for code and fails, step 2 for the numbers); each request passes
    `hooks` (a `Held`, a `TableLock`) in order before it is answered."""
    script_primes(llm)
    for route, answers in list(llm._queues.items()):
        llm._queues[route] = [hooked(hooks, answer) for answer in answers]


def hooked(hooks: tuple[Callable[[RecordedRequest], object], ...], answer: Any) -> Callable[[RecordedRequest], Any]:
    def answering(request: RecordedRequest) -> Any:
        for hook in hooks:
            hook(request)
        return answer(request) if callable(answer) else answer

    return answering


@dataclass
class TableLock:
    """`LOCK TABLE … IN EXCLUSIVE MODE` on the service's database, taken when a model request `when` arrives (before
    it is answered): writes to `tables` wait, reads do not, until `release()`. A slow database, made to order."""

    tables: str
    when: Callable[[RecordedRequest], bool]
    database: str = ""
    taken: threading.Event = field(default_factory=threading.Event)
    _connection: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> None:
        import psycopg

        with self._lock:
            if self.database and not self.taken.is_set() and self.when(request):
                self._connection = psycopg.connect(self.database)
                self._connection.execute(f"LOCK TABLE {self.tables} IN EXCLUSIVE MODE")
                self.taken.set()

    def waiting(self, like: str) -> list[str]:
        """The statements (`ILIKE like`) waiting on the lock."""
        import psycopg

        query = (
            "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' "
            "AND query ILIKE %s"
        )
        with psycopg.connect(self.database) as conn:
            return [str(row[0]) for row in conn.execute(query, (like,))]

    def drop_waiting(self, like: str) -> None:
        """End the statements (`ILIKE like`) waiting on the lock: those of a killed instance, which would otherwise
        be carried out when the lock goes, as if the instance had lived to send them."""
        import psycopg

        query = (
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND query ILIKE %s"
        )
        with psycopg.connect(self.database, autocommit=True) as conn:
            conn.execute(query, (like,))

    def release(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


def asked_for(llm: ScriptedLLM, route: str, prompt: str | None = None) -> int:
    """How many requests the model saw on `route` (whose messages hold `prompt`)."""
    return sum(prompt is None or prompt in r.text for r in llm.requests_for(route))


def step_two_selection(request: RecordedRequest) -> bool:
    """Step 2's Stage 1: its prompt tells that step 1's code answer failed."""
    return request.route == "ActionSelection" and knows_code_fails(request)


@contextlib.contextmanager
def two_instances(tmp_path: Path, llm: ScriptedLLM, **extra: str) -> Iterator[Service]:
    with service(tmp_path, llm.base_url, KEY, PAOR_MAX_STEPS="3", WORKER_COUNT="1", **LEASES, **extra) as running:
        running.start(2)
        yield running


def run_row(running: Service, run_id: str) -> tuple[str, str | None, int]:
    """The run's status, the worker holding its lease and how often the reaper gave it back, from Aegra's table."""
    import psycopg

    with psycopg.connect(running.database) as conn:
        row = conn.execute("SELECT status, claimed_by, execution_params FROM runs WHERE run_id = %s", (run_id,))
        status, claimed_by, params = row.fetchone() or ("missing", None, {})
    return str(status), claimed_by, int((params or {}).get("_retry_count", 0))


def handed_back(running: Service, run_id: str) -> int:
    """How often a graceful stop handed the run back (server/aegra_attempts.py counts it)."""
    import psycopg

    with psycopg.connect(running.database) as conn:
        row = conn.execute("SELECT execution_params FROM runs WHERE run_id = %s", (run_id,)).fetchone()
    return int(((row or [None])[0] or {}).get(HANDED_BACK, 0))


def holder_and_survivor(running: Service, run_id: str) -> tuple[Instance, Instance]:
    """The instance whose worker holds the run (Aegra names a worker `{host}-{pid}-worker-{n}`), and the other."""
    _, claimed_by, _ = run_row(running, run_id)
    assert claimed_by, f"no worker holds run {run_id}"
    first, second = running.instances
    if f"-{first.process.pid}-worker-" in claimed_by:
        return first, second
    assert f"-{second.process.pid}-worker-" in claimed_by, (claimed_by, first.process.pid, second.process.pid)
    return second, first


@dataclass
class Stream:
    """A client reading `GET /threads/{t}/runs/{r}/stream` on its own thread: the SSE events, in order."""

    events: list[tuple[str, Any]] = field(default_factory=list)
    error: str = ""
    thread: threading.Thread | None = None

    def read(self, instance: Instance, thread_id: str, run_id: str) -> None:
        def reading() -> None:
            event = ""
            try:
                with (
                    client(instance, KEY) as http,
                    http.stream("GET", f"/threads/{thread_id}/runs/{run_id}/stream") as response,
                ):
                    response.raise_for_status()
                    for line in response.iter_lines():
                        if line.startswith("event:"):
                            event = line.removeprefix("event:").strip()
                        elif line.startswith("data:"):
                            self.events.append((event, json.loads(line.removeprefix("data:").strip() or "null")))
            except (httpx.HTTPError, ValueError) as exc:
                self.error = f"{type(exc).__name__}: {exc}"

        self.thread = threading.Thread(target=reading, name="run-stream", daemon=True)
        self.thread.start()

    def names(self) -> list[str]:
        return [event for event, _ in self.events]

    def ended(self) -> bool:
        assert self.thread is not None
        self.thread.join(deadlines.HTTP_S)
        return not self.thread.is_alive()


def primes_run(instance: Instance) -> tuple[str, str]:
    """A primes run made on `instance`, on a new thread: (thread id, run id)."""
    with client(instance, KEY) as http:
        thread_id = http.post("/threads", json={}).json()["thread_id"]
        made = http.post(
            f"/threads/{thread_id}/runs", json={"assistant_id": "paor", "input": {"prompt": PRIMES_PROMPT}}
        )
    assert made.status_code == 200, made.text
    return thread_id, str(made.json()["run_id"])


def held_run_streamed(running: Service, held: Held) -> tuple[str, str, Instance, Instance, Stream]:
    """A primes run made on the first instance, once the model call `held` holds is in flight: its thread and run,
    the instance running it and the other, and a client's stream of the run from the other, past its first state."""
    thread_id, run_id = primes_run(running.instances[0])
    assert held.arrived.wait(deadlines.PROCESS_S), [tail(i) for i in running.instances]
    holder, survivor = holder_and_survivor(running, run_id)
    stream = Stream()
    stream.read(survivor, thread_id, run_id)
    assert deadlines.wait_until(lambda: "values" in stream.names()), (stream.events, stream.error)
    return thread_id, run_id, holder, survivor, stream


def kill_the_holder(running: Service, run_id: str, held: Held) -> Instance:
    """Once `held` is in flight, `kill -9` the instance making that call and let the call go; the survivor."""
    assert held.arrived.wait(deadlines.PROCESS_S), [tail(i) for i in running.instances]
    holder, survivor = holder_and_survivor(running, run_id)
    holder.kill()
    held.release()  # answered to a dead connection
    return survivor


def join(instance: Instance, thread_id: str, run_id: str) -> dict[str, Any]:
    with client(instance, KEY) as http:
        joined = http.get(f"/threads/{thread_id}/runs/{run_id}/join")
    assert joined.status_code == 200, joined.text
    out = joined.json()
    assert isinstance(out, dict) and "__error__" not in out, out
    return out


def pending_approvals(instance: Instance, thread_id: str) -> list[dict[str, Any]]:
    with client(instance, KEY) as http:
        state = http.get(f"/threads/{thread_id}/state")
    assert state.status_code == 200, state.text
    return [i["value"] for task in state.json()["tasks"] for i in task.get("interrupts") or []]


def test_a_run_whose_instance_is_killed_mid_step_completes_on_the_other_and_its_stream_goes_on(
    tmp_path: Path,
) -> None:
    """Killed while step 2's action waits for the model: the other instance takes the run from its last checkpoint
    (step 1 is not done again), makes that one call again, and a client streaming from it sees the run to its end."""
    held = Held(lambda request: request.route == "text" and DATA_PROMPT in request.text)
    with ScriptedLLM() as llm:
        held_primes(llm, held)
        try:
            with two_instances(tmp_path, llm) as running:
                thread_id, run_id, _, survivor, stream = held_run_streamed(running, held)
                before_kill = len(stream.events)

                assert kill_the_holder(running, run_id, held) is survivor
                out = join(survivor, thread_id, run_id)

                assert out["status"] == "completed", out
                assert out["answer"].startswith(NUMBERS), out["answer"][:200]
                assert [h["step"] for h in out["history"]] == [1, 2]
                status, _, retries = run_row(running, run_id)
                assert (status, retries) == ("success", 1), "the run was not taken over: it ran once"
                # Only the call in flight at the kill (step 2's action) was made again; nothing before it.
                assert asked_for(llm, "Intent") == 1
                assert asked_for(llm, "ActionSelection") == 2
                assert asked_for(llm, "ParametersAnswer") == 2
                assert asked_for(llm, "text", CODE_PROMPT) == 1, "step 1's action ran again"
                assert asked_for(llm, "text", DATA_PROMPT) == 2

                assert stream.ended(), f"the stream did not end: {stream.names()}"
                assert not stream.error, stream.error
                names = stream.names()
                assert "error" not in names and names[-1] == "end", names
                assert len(stream.events) > before_kill + 1, "nothing came after the kill"
                last_values = [data for event, data in stream.events if event == "values"][-1]
                assert last_values["status"] == "completed" and last_values["answer"] == out["answer"]
                # The stream says the run was taken over (issue 53, item 6): the interim chat message gets the line.
                after = [data for event, data in stream.events[before_kill:] if event == "values"]
                told = [m for data in after for m in data.get("messages") or [] if TAKEN_OVER["en"] in str(m)]
                assert told, "the stream never said the run was taken over"
                assert TAKEN_OVER["en"] not in out["answer"]
        finally:
            held.release()


def test_a_run_handed_back_at_a_graceful_stops_deadline_resumes_on_the_other_and_says_so(tmp_path: Path) -> None:
    """SIGTERM (a deploy, a scale-down) stops an instance gracefully: a run still going at its drain deadline (1 s
    here) is handed back to the queue, and the other instance resumes it from its last checkpoint and says it was
    taken over, as after a kill (Aegra's hand-back counted no attempt, so the run went on without a word)."""
    held = Held(lambda request: request.route == "text" and DATA_PROMPT in request.text)
    with ScriptedLLM() as llm:
        held_primes(llm, held)
        try:
            with two_instances(tmp_path, llm, WORKER_DRAIN_TIMEOUT="1") as running:
                thread_id, run_id, holder, survivor, stream = held_run_streamed(running, held)
                before_stop = len(stream.events)

                holder.process.send_signal(signal.SIGTERM)
                assert holder.process.wait(deadlines.PROCESS_S) is not None
                held.release()  # answered to a closed connection
                out = join(survivor, thread_id, run_id)

                assert out["status"] == "completed", out
                assert [h["step"] for h in out["history"]] == [1, 2]
                assert handed_back(running, run_id) == 1 and run_row(running, run_id)[2] == 0, "not the reaper's"
                assert asked_for(llm, "text", CODE_PROMPT) == 1, "step 1's action ran again"
                assert stream.ended() and not stream.error, (stream.names(), stream.error)
                after = [data for event, data in stream.events[before_stop:] if event == "values"]
                told = [m for data in after for m in data.get("messages") or [] if TAKEN_OVER["en"] in str(m)]
                assert told, "the stream never said the run was taken over"
        finally:
            held.release()


def approve_step_one(
    instance: Instance, llm: ScriptedLLM, before: Callable[[], None] = lambda: None
) -> tuple[str, str]:
    """A primes run with approve="always" on a new thread: it asks about step 1's action (code), which has not run;
    `before` is called, then the approval is sent as a run of its own. (thread id, the approving run's id)"""
    with client(instance, KEY) as http:
        thread_id = http.post("/threads", json={}).json()["thread_id"]
        asked = http.post(
            f"/threads/{thread_id}/runs/wait",
            json={"assistant_id": "paor", "input": {"prompt": PRIMES_PROMPT}, "context": APPROVE},
        )
        assert asked.status_code == 200, asked.text
        [question] = pending_approvals(instance, thread_id)
        assert question["kind"] == "approve" and question["parameters"]["aiPrompt"] == CODE_PROMPT
        assert asked_for(llm, "text") == 0, "the action ran before it was approved"
        before()
        approved = http.post(
            f"/threads/{thread_id}/runs",
            json={"assistant_id": "paor", "command": {"resume": {"decision": "approve"}}, "context": APPROVE},
        )
        assert approved.status_code == 200, approved.text
        return thread_id, str(approved.json()["run_id"])


@pytest.mark.parametrize(
    "killed_during",
    ["the approved action", "the next step's selection"],
)
def test_an_action_approved_before_the_kill_is_not_asked_for_again_after_the_takeover(
    tmp_path: Path, killed_during: str
) -> None:
    """approve="always": the client approves step 1's action (code), and the instance running it is killed while
    that action's model call is in flight, or after it, during step 2's selection. The other instance goes on
    without asking for step 1's action again: the next question is step 2's (the numbers)."""
    if killed_during == "the approved action":
        held = Held(lambda request: request.route == "text" and CODE_PROMPT in request.text)
    else:
        held = Held(step_two_selection)
    with ScriptedLLM() as llm:
        held_primes(llm, held)
        try:
            with two_instances(tmp_path, llm) as running:
                thread_id, run_id = approve_step_one(running.instances[0], llm)

                survivor = kill_the_holder(running, run_id, held)
                join(survivor, thread_id, run_id)

                status, _, retries = run_row(running, run_id)
                assert (status, retries) == ("interrupted", 1), "the run was not taken over: it ran once"
                [question] = pending_approvals(survivor, thread_id)
                assert question["parameters"]["aiPrompt"] == DATA_PROMPT, f"asked again for step 1's: {question}"
                in_flight = 1 if killed_during == "the approved action" else 0
                assert asked_for(llm, "text", CODE_PROMPT) == 1 + in_flight
                assert asked_for(llm, "ActionSelection") == 2 + (1 - in_flight)
                assert asked_for(llm, "text", DATA_PROMPT) == 0, "step 2's action ran before it was approved"

                with client(survivor, KEY) as http:
                    done = http.post(
                        f"/threads/{thread_id}/runs/wait",
                        json={
                            "assistant_id": "paor",
                            "command": {"resume": {"decision": "approve"}},
                            "context": APPROVE,
                        },
                    )
                assert done.status_code == 200, done.text
                assert done.json()["status"] == "completed", done.json()
                assert [h["step"] for h in done.json()["history"]] == [1, 2]
                assert asked_for(llm, "text", DATA_PROMPT) == 1
        finally:
            held.release()


#: How long step 1's checkpoints stay unwritable before the test lets them through: a run that goes on meanwhile
#: reaches step 2's selection in well under a second (80 ms measured), while one that waits never does.
LAG_S = 5.0


def test_a_finished_action_is_not_run_again_when_its_checkpoints_were_slow_to_write(tmp_path: Path) -> None:
    """The database stops taking checkpoints while step 1's action asks the model. A run that writes each checkpoint
    before its next node starts (the CLI's `durability="sync"`) waits there; one that writes them in the background
    goes on to step 2's selection with step 1 unsaved. The instance is killed at step 2's selection either way (its
    checkpoint writes dropped): the other instance must not run step 1's action again."""
    held = Held(step_two_selection)
    lock = TableLock(
        "checkpoints, checkpoint_blobs, checkpoint_writes",
        lambda request: request.route == "text" and CODE_PROMPT in request.text,
    )
    with ScriptedLLM() as llm:
        held_primes(llm, lock, held)
        try:
            with two_instances(tmp_path, llm) as running:
                lock.database = running.database
                thread_id, run_id = primes_run(running.instances[0])
                assert lock.taken.wait(deadlines.PROCESS_S), [tail(i) for i in running.instances]
                if not held.arrived.wait(LAG_S):
                    lock.release()  # the run waited for its checkpoints: let them through
                assert held.arrived.wait(deadlines.PROCESS_S), [tail(i) for i in running.instances]
                holder, survivor = holder_and_survivor(running, run_id)
                holder.kill()
                lock.drop_waiting("%INSERT INTO checkpoint%")
                lock.release()
                held.release()

                out = join(survivor, thread_id, run_id)
                assert out["status"] == "completed", out
                assert asked_for(llm, "text", CODE_PROMPT) == 1, "step 1's action ran again"
                assert asked_for(llm, "text", DATA_PROMPT) == 1
        finally:
            lock.release()
            held.release()


def test_an_action_is_not_run_unapproved_when_the_instance_dies_as_it_asks(tmp_path: Path) -> None:
    """approve="always": the client approves step 1's action; the run goes on to ask about step 2's action, and the
    instance dies after the question is saved, before the run is marked interrupted (its last write to Aegra's
    `runs` table is held, then dropped). The other instance re-executes the run: step 2's action must wait for its
    own approval, not take step 1's."""
    lock = TableLock("runs", lambda request: request.route == "ParametersAnswer" and "directly" in request.text)
    with ScriptedLLM() as llm:
        held_primes(llm, lock)
        try:
            with two_instances(tmp_path, llm) as running:
                watch = lambda: setattr(lock, "database", running.database)  # noqa: E731
                thread_id, run_id = approve_step_one(running.instances[0], llm, before=watch)
                assert lock.taken.wait(deadlines.PROCESS_S), [tail(i) for i in running.instances]
                holder, survivor = holder_and_survivor(running, run_id)
                finalizing = "UPDATE runs SET status=%"
                assert deadlines.wait_until(lambda: bool(lock.waiting(finalizing))), [tail(holder)]
                holder.kill()
                lock.drop_waiting("UPDATE runs SET %")
                lock.release()

                join(survivor, thread_id, run_id)
                status, _, retries = run_row(running, run_id)
                assert retries == 1, "the run was not taken over"
                assert asked_for(llm, "text", DATA_PROMPT) == 0, "step 2's action ran without its approval"
                [question] = pending_approvals(survivor, thread_id)
                assert question["parameters"]["aiPrompt"] == DATA_PROMPT
                assert status == "interrupted"
        finally:
            lock.release()
