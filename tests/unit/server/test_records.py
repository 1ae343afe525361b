"""The server's records of each thread's documents: written from node updates, vouched for before every node.

Over the real server (forged state writes, downloads) see tests/server/test_shared_server.py and
tests/server/test_documents_http.py.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from langgraph.runtime import ExecutionInfo, Runtime
from langgraph.types import Overwrite

from core.context import Context
from core.schemas import ActionResult, DocumentRef, HistoryEntry, dump
from graph.instrument import instrumented
from nodes.services import Services
from server.keys import ANONYMOUS
from server.policy import server_services
from server.records import RecordedDocuments, ThreadRecords, UnrecordedDocuments, documents_in, writes_working_state
from tests.unit.core.factories import runtime, state

THREAD = "1f0c9a52-7a1e-4c36-9d1e-2f4b8c0d3e11"


OWNER, OTHER = "client-a1", "client-b2"


def ref(label: str = "round1_task1_action1_process", name: str = "result.md", fill: str = "a") -> DocumentRef:
    return DocumentRef(label=label, name=name, mime="text/markdown", size=3, sha256=fill * 64)


INPUT, RESULT, REPORT = ref("input", "notes.txt", "1"), ref(fill="2"), ref("round1_task1_action2_report", "r.docx", "3")


def stored(root: Path, *refs: DocumentRef) -> None:
    """The bytes of `refs` in the store at `root`, as the graph's tools put them there before a record."""
    for each in refs:
        path = root / each.sha256[:2] / each.sha256[2:4] / each.sha256
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"abc")


def test_documents_in_finds_every_field_that_carries_documents() -> None:
    entry = HistoryEntry(round=1, step=1, documents=[RESULT])
    values = {
        "input_documents": [dump(INPUT)],
        "result": dump(ActionResult(success=True, resultLabel=REPORT.label, documents=[REPORT])),
        "history": Overwrite([{"round": 1, "step": 0}, dump(entry)]),  # an older entry's head carries none
        "deliverables": [{**dump(RESULT), "url": "/paor/threads/t/documents/x/result.md"}],
        "answer": "text",
    }
    assert documents_in(values) == [INPUT, RESULT, REPORT, RESULT]
    assert documents_in({"result": None, "history": [], "deliverables": []}) == []


def test_records_keep_every_version_newest_last_under_hashed_file_names(tmp_path: Path) -> None:
    records = ThreadRecords(tmp_path)
    rerun = ref(fill="9")  # the same label and name, produced again by a re-run step
    stored(tmp_path, RESULT, INPUT, rerun)
    records.record(OWNER, THREAD, [RESULT, INPUT, RESULT])
    records.record(OWNER, THREAD, [rerun])

    assert records.recorded(OWNER, THREAD, RESULT.label, RESULT.name) == [RESULT, rerun]
    assert records.find(OWNER, THREAD, RESULT.label, RESULT.name) == rerun
    assert records.holds(OWNER, THREAD, INPUT) and records.holds(OWNER, THREAD, RESULT)
    assert not records.holds(OWNER, "another-thread", INPUT)
    assert records.find(OWNER, "another-thread", "input", "notes.txt") is None
    assert not records.holds(OWNER, THREAD, INPUT.model_copy(update={"sha256": "f" * 64}))
    assert not records.holds(OTHER, THREAD, INPUT), "keyed by owner: the same thread id of another client is empty"
    files = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "owners").rglob("*") if p.is_file())
    assert len(files) == 3 and all(f.startswith("owners/") for f in files)  # two records and the thread's file
    assert not any(part in "".join(files) for part in (THREAD, OWNER, "notes", "result", "input"))


def test_forgetting_a_thread_deletes_its_records_and_the_files_nothing_else_names(tmp_path: Path) -> None:
    records = ThreadRecords(tmp_path)
    stored(tmp_path, INPUT, RESULT, REPORT)
    records.record(OWNER, THREAD, [INPUT, RESULT])
    records.record(OWNER, "another-thread", [RESULT])
    records.record(OTHER, THREAD, [REPORT])
    generation = records.generation(OWNER, THREAD)

    assert records.forget(OWNER, THREAD) == 1, "INPUT only: RESULT is another thread's too"
    assert records.documents(OWNER, THREAD) == [] and records.generation(OWNER, THREAD) is None
    assert not records.bytes_path(INPUT.sha256).exists() and records.bytes_path(RESULT.sha256).exists()
    assert records.holds(OTHER, THREAD, REPORT), "the other client's records of the same id stay"
    assert records.threads(OWNER) == ["another-thread"]

    stored(tmp_path, INPUT)
    records.record(OWNER, THREAD, [INPUT])  # the id made again: a fresh start, a new generation
    assert records.documents(OWNER, THREAD) == [INPUT] and records.generation(OWNER, THREAD) != generation
    assert records.forget(OWNER, "another-thread") == 1 and not records.bytes_path(RESULT.sha256).exists()


def test_parallel_records_of_one_thread_lose_none(tmp_path: Path) -> None:
    """Twenty writers at once, each adding a version under the same label and name: every one is kept."""
    versions = [RESULT.model_copy(update={"sha256": f"{n:064x}"}) for n in range(20)]
    stored(tmp_path, *versions)
    with ThreadPoolExecutor(max_workers=20) as pool:
        list(pool.map(lambda each: ThreadRecords(tmp_path).record(OWNER, THREAD, [each]), versions))
    kept = ThreadRecords(tmp_path).recorded(OWNER, THREAD, RESULT.label, RESULT.name)
    assert sorted(each.sha256 for each in kept) == sorted(each.sha256 for each in versions)


def test_a_state_naming_an_unrecorded_document_is_refused(tmp_path: Path) -> None:
    context = Context(store_dir=str(tmp_path))
    stored(tmp_path, INPUT, RESULT)
    ThreadRecords(tmp_path).record(ANONYMOUS, THREAD, [INPUT, RESULT])
    vouched = RecordedDocuments()
    vouched.vouch(THREAD, {"input_documents": [dump(INPUT)], "deliverables": [dump(RESULT)]}, context)

    others = ref("input", "quarterly.txt", "7")  # another client's upload, named by its hash
    swapped = RESULT.model_copy(update={"sha256": "7" * 64})  # a recorded name over another document
    forged = {"input_documents": [dump(INPUT), dump(others)], "deliverables": [dump(swapped)]}
    named = re.escape("input/quarterly.txt, round1_task1_action1_process/result.md")
    with pytest.raises(UnrecordedDocuments, match=named):
        vouched.vouch(THREAD, forged, context)
    with pytest.raises(UnrecordedDocuments):
        vouched.vouch("another-thread", {"input_documents": [dump(INPUT)]}, context)


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ({"update": {"deliverables": []}}, True),
        ({"update": {"history": []}}, True),
        ({"update": [["input_documents", []]]}, True),
        ({"update": (("result", None),)}, True),
        ({"update": {"selection": {"action": "code.execute"}}}, True),  # an action the operator may not allow
        ({"update": {"ahead": {"step": 2, "selection": {}}}}, True),
        ({"update": {"prompt": "x", "step": 0}}, True),
        ({"update": [{"ahead": {}}]}, True),  # not pairs: LangGraph writes it as the whole state
        ({"update": "deliverables"}, True),
        ({"goto": "finalize"}, True),
        ({"goto": [{"node": "act", "input": {"selection": {}}}]}, True),  # a Send: act on a state the client wrote
        ({"update": {"language": "de"}}, False),
        ({"update": [["prompt", "x"]]}, False),
        ({"update": {"documents": ["upload:abc"], "messages": []}}, False),
        ({"resume": {"decision": "approve"}}, False),
        ({}, False),
    ],
)
def test_a_run_command_may_update_the_input_only(command: dict[str, Any], writes: bool) -> None:
    assert writes_working_state(command) is writes


def _threaded(context: Context) -> Runtime[Context]:
    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="t", thread_id=THREAD)
    return Runtime(context=context, execution_info=info)


def test_the_server_graph_records_what_a_node_returns_and_vouches_for_what_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAOR_STORE_DIR", str(tmp_path))
    root = tmp_path / "server"  # the server's own folder of the operator's store
    stored(root, RESULT)
    calls: list[str] = []

    def act(current: Any, rt: Runtime[Context], svc: Services) -> dict[str, Any]:
        calls.append("act")
        return {"result": dump(ActionResult(success=True, resultLabel=RESULT.label, documents=[RESULT]))}

    def finalize(current: Any, rt: Runtime[Context], svc: Services) -> dict[str, Any]:
        calls.append("finalize")
        return {"deliverables": (current.get("result") or {}).get("documents", [])}

    services = server_services()
    produced = instrumented("act", act, services)(state(), _threaded(Context()))
    assert ThreadRecords(root).holds(ANONYMOUS, THREAD, RESULT)
    instrumented("finalize", finalize, services)(state(**produced), _threaded(Context()))

    forged = state(deliverables=[dump(ref("x", "stolen.txt", "5"))])
    with pytest.raises(UnrecordedDocuments, match=re.escape("x/stolen.txt")):
        instrumented("finalize", finalize, services)(forged, _threaded(Context()))
    assert calls == ["act", "finalize"], "the node never ran on the forged state"

    instrumented("finalize", finalize, services)(forged, runtime(Context()))  # no thread: nothing to vouch or keep
    assert calls[-1] == "finalize"
