"""The server's records of each thread's documents: written from node updates, vouched for before every node.

Over the real server (forged state writes, downloads) see tests/server/test_shared_server.py and
tests/server/test_documents_http.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from langgraph.runtime import ExecutionInfo, Runtime
from langgraph.types import Overwrite

from graph.context import Context
from graph.instrument import instrumented
from graph.schemas import ActionResult, DocumentRef, HistoryEntry, dump
from graph.services import Services
from server.policy import server_services
from server.records import RecordedDocuments, ThreadRecords, UnrecordedDocuments, documents_in, touches_documents
from tests.unit.core.factories import runtime, state

THREAD = "1f0c9a52-7a1e-4c36-9d1e-2f4b8c0d3e11"


def ref(label: str = "round1_task1_action1_process", name: str = "result.md", fill: str = "a") -> DocumentRef:
    return DocumentRef(label=label, name=name, mime="text/markdown", size=3, sha256=fill * 64)


INPUT, RESULT, REPORT = ref("input", "notes.txt", "1"), ref(fill="2"), ref("round1_task1_action2_report", "r.docx", "3")


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
    records.record(THREAD, [RESULT, INPUT, RESULT])
    records.record(THREAD, [rerun])

    assert records.recorded(THREAD, RESULT.label, RESULT.name) == [RESULT, rerun]
    assert records.find(THREAD, RESULT.label, RESULT.name) == rerun
    assert records.holds(THREAD, INPUT) and records.holds(THREAD, RESULT)
    assert not records.holds("another-thread", INPUT) and records.find("another-thread", "input", "notes.txt") is None
    assert not records.holds(THREAD, INPUT.model_copy(update={"sha256": "f" * 64}))
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert len(files) == 2 and all(f.startswith("threads/") for f in files)
    assert not any(part in "".join(files) for part in (THREAD, "notes", "result", "input"))


def test_a_state_naming_an_unrecorded_document_is_refused(tmp_path: Path) -> None:
    context = Context(store_dir=str(tmp_path))
    ThreadRecords(tmp_path).record(THREAD, [INPUT, RESULT])
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
    ("update", "touches"),
    [
        ({"deliverables": []}, True),
        ({"history": []}, True),
        ([["input_documents", []]], True),
        ((("result", None),), True),
        ({"language": "de"}, False),
        ([["prompt", "x"]], False),
        (None, False),
        ("deliverables", False),
    ],
)
def test_which_updates_touch_the_fields_that_carry_documents(update: Any, touches: bool) -> None:
    assert touches_documents(update) is touches


def _threaded(context: Context) -> Runtime[Context]:
    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="t", thread_id=THREAD)
    return Runtime(context=context, execution_info=info)


def test_the_server_graph_records_what_a_node_returns_and_vouches_for_what_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAOR_STORE_DIR", str(tmp_path))
    calls: list[str] = []

    def act(current: Any, rt: Runtime[Context], svc: Services) -> dict[str, Any]:
        calls.append("act")
        return {"result": dump(ActionResult(success=True, resultLabel=RESULT.label, documents=[RESULT]))}

    def finalize(current: Any, rt: Runtime[Context], svc: Services) -> dict[str, Any]:
        calls.append("finalize")
        return {"deliverables": (current.get("result") or {}).get("documents", [])}

    services = server_services()
    produced = instrumented("act", act, services)(state(), _threaded(Context()))
    assert ThreadRecords(tmp_path).holds(THREAD, RESULT)
    instrumented("finalize", finalize, services)(state(**produced), _threaded(Context()))

    forged = state(deliverables=[dump(ref("x", "stolen.txt", "5"))])
    with pytest.raises(UnrecordedDocuments, match=re.escape("x/stolen.txt")):
        instrumented("finalize", finalize, services)(forged, _threaded(Context()))
    assert calls == ["act", "finalize"], "the node never ran on the forged state"

    instrumented("finalize", finalize, services)(forged, runtime(Context()))  # no thread: nothing to vouch or keep
    assert calls[-1] == "finalize"
