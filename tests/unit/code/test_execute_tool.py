"""The code_execute tool as a plain LangChain tool: inputs by name in, printed output and written files out."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from core.context import Context
from core.errors import ToolFailed
from tests.support.isolation import needs_isolation
from tools.base import ToolDeps, ToolOutput
from tools.code.execute import ENTRY, limits_for
from tools.documents import DocumentIndex, DocumentStore


def _deps(tmp_path: Path, inputs: dict[str, str], **context: float) -> ToolDeps:
    store = DocumentStore(tmp_path / "store")
    refs = [store.put_text(text, label="input", name=name, mime="text/csv") for name, text in inputs.items()]
    return ToolDeps(
        llm=GenericFakeChatModel(messages=iter([])),
        store=store,
        context=Context(**context),  # type: ignore[arg-type]
        index=DocumentIndex(refs),
    )


def _call(deps: ToolDeps, **args: object) -> ToolOutput:
    message = ENTRY.factory(deps).invoke({"type": "tool_call", "name": "code_execute", "args": args, "id": "t"})
    assert isinstance(message.artifact, ToolOutput), message.content
    return message.artifact


@needs_isolation()
def test_written_files_become_documents_beside_stdout(tmp_path: Path) -> None:
    deps = _deps(tmp_path, {"scores.csv": "name,score\nada,3\nbob,5\n"})
    program = (
        "import csv, json, statistics\n"
        "rows = list(csv.DictReader(open('scores.csv')))\n"
        "scores = [int(r['score']) for r in rows]\n"
        "with open('stats.json', 'w') as f:\n"
        "    json.dump({'mean': statistics.mean(scores), 'n': len(scores)}, f)\n"
        "print(sum(scores))\n"
    )
    output = _call(deps, code=program, documentList=["docList:input"])

    by_name = {doc.name: doc for doc in output.documents}
    assert list(by_name) == ["stdout.txt", "stats.json"]  # the unchanged input copy is not an output
    assert by_name["stdout.txt"].data == b"8\n" and by_name["stdout.txt"].mime == "text/plain"
    assert by_name["stats.json"].data == b'{"mean": 4, "n": 2}' and by_name["stats.json"].mime == "application/json"


@needs_isolation()
def test_a_failing_program_raises_tool_failed_with_its_reason(tmp_path: Path) -> None:
    tool = ENTRY.factory(_deps(tmp_path, {}))
    with pytest.raises(ToolFailed, match="the program failed: ZeroDivisionError: division by zero"):
        tool.invoke({"code": "print(1 / 0)"})


def test_limits_follow_the_context_and_stay_inside_the_tool_deadline(tmp_path: Path) -> None:
    limits = limits_for(_deps(tmp_path, {}, code_time_s=600.0, tool_timeout_s=120.0, code_memory_mb=300))
    assert limits.wall_s == 119.0 and limits.cpu_s == 119 and limits.memory_mb == 300
