"""code.execute end to end: the scripted model writes programs, the real sandbox runs them, the graph delivers
their output — and hostile programs end as failed steps with their reason, nothing escaping."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from core.context import Context
from core.schemas import DocumentRef, HistoryEntry, Strategy
from core.state import InputState
from graph.builder import build_graph
from nodes.strategies import KEY, NAMESPACE
from tests.support import deadlines
from tests.support.code_scenarios import PRIMES_PROGRAM, script_code
from tests.support.isolation import needs_isolation
from tests.support.loopback import LoopbackServer
from tests.support.scenarios import FIRST_1000_PRIMES, PRIMES_PROMPT
from tests.support.scripted_llm import ScriptedLLM
from tools.documents import DocumentStore

pytestmark = needs_isolation()

SUM_INTENT = {
    "dataType": "numbers",
    "expectedFormat": "raw_data",
    "successCriteria": ["the total of the amount column of sales.csv"],
    "language": "en",
}
#: The time limits of the run whose program loops forever.
LOOP_TIME_S = 3.0
SALES = "region,amount\nnorth,120.50\nsouth,80.25\neast,99.25\n"
SUM_PROGRAM = (
    "import csv\n"
    "from decimal import Decimal\n"
    "rows = list(csv.DictReader(open('sales.csv', newline='')))\n"
    "print(sum(Decimal(row['amount']) for row in rows))\n"
)


@pytest.fixture
def code_context(context: Context) -> Context:
    """Tight memory; time only bounds a hang (a loaded machine may take seconds to start the sandbox and Python,
    and a program must not be killed for that before it hits the limit a test is about)."""
    return replace(
        context,
        code_time_s=deadlines.PROCESS_S,
        tool_timeout_s=deadlines.PROCESS_S + 1,
        code_memory_mb=512,
        max_steps=1,
    )


def _run(context: Context, checkpointer: Any, store: Any, prompt: str, documents: list[str] | None = None) -> Any:
    graph = build_graph(checkpointer=checkpointer, store=store)
    request = InputState(prompt=prompt, documents=documents or [])
    return graph.invoke(request, {"configurable": {"thread_id": prompt[:40]}}, context=context)


def _only_step(out: dict[str, Any]) -> HistoryEntry:
    history = [HistoryEntry.model_validate(h) for h in out["history"]]
    assert [h.action for h in history] == ["code.execute"]
    return history[0]


def test_primes_are_computed_by_a_program_and_delivered_exactly(
    scripted_llm: ScriptedLLM, context: Context, checkpointer: Any, store: Any
) -> None:
    script_code(scripted_llm, PRIMES_PROGRAM)
    out = _run(
        replace(context, code_time_s=deadlines.PROCESS_S, tool_timeout_s=deadlines.PROCESS_S + 1),
        checkpointer,
        store,
        PRIMES_PROMPT,
    )

    assert out["status"] == "completed", out["stop_reason"]
    step = _only_step(out)
    assert step.outcome == "met" and step.resultLabel == "round1_task1_action1_execute"
    deliverable = DocumentRef.model_validate(out["deliverables"][0])
    assert deliverable.name == "stdout.txt"
    text = DocumentStore(context.store_path).read_text(deliverable)
    assert [int(n) for n in text.split(",")] == FIRST_1000_PRIMES
    assert "primerange" not in text  # the data, not the program
    assert scripted_llm.requests_for("text") == []  # no model typed a single prime
    stage1 = scripted_llm.requests_for("ActionSelection")[0].text
    assert "code.execute(code,documentList)" in stage1 and "code.execute when listed" in stage1
    learned = Strategy.model_validate(store.get((*NAMESPACE, "numbers-raw_data-prime"), KEY).value)
    assert learned.successfulAction == "code.execute" and learned.successes == 1


def test_a_csv_input_is_summed_by_a_program(
    scripted_llm: ScriptedLLM, code_context: Context, checkpointer: Any, store: Any, tmp_path: Path
) -> None:
    sales = tmp_path / "sales.csv"
    sales.write_text(SALES, encoding="utf-8")
    script_code(
        scripted_llm,
        SUM_PROGRAM,
        intent=SUM_INTENT,
        objective="Sum the amounts",
        documents=["docList:input"],
        schema=False,  # Stage 2 gets the tool's own args schema
    )
    out = _run(code_context, checkpointer, store, "What is the total amount in sales.csv?", documents=[str(sales)])

    assert out["status"] == "completed", out["stop_reason"]
    step = _only_step(out)
    assert step.parameters["documentList"] == ["docList:input"]
    schema = scripted_llm.requests_for("ParametersAnswer")[0].text.split("PARAMETERS SCHEMA:")[1]
    assert "code" in schema and "Allowed imports" in schema and "documentList" not in schema  # the tool's own
    deliverable = DocumentRef.model_validate(out["deliverables"][0])
    assert DocumentStore(code_context.store_path).read_text(deliverable).strip() == "300.00"
    assert sales.read_text(encoding="utf-8") == SALES


def test_a_program_that_prints_code_fails_the_data_not_code_check(
    scripted_llm: ScriptedLLM, code_context: Context, checkpointer: Any, store: Any
) -> None:
    printer = "print('def primes(n):')\nprint('    return [p for p in range(n)]')\nprint('print(primes(10))')\n"
    script_code(scripted_llm, printer)
    out = _run(code_context, checkpointer, store, PRIMES_PROMPT)

    step = _only_step(out)
    assert out["status"] != "completed" and not step.success
    assert any("delivered code" in finding for finding in step.findings), step.findings


def test_a_program_that_prints_nothing_is_a_failed_step(
    scripted_llm: ScriptedLLM, code_context: Context, checkpointer: Any, store: Any
) -> None:
    script_code(scripted_llm, "total = sum(range(10))\n")
    step = _only_step(_run(code_context, checkpointer, store, PRIMES_PROMPT))
    assert not step.success and "printed nothing" in " ".join(step.findings)


HOSTILE = {
    "read a file outside the folder": ("print(open({secret!r}).read())", "only files in the working folder"),
    "read the API key": ("import os\nprint(os.environ['OPENAI_API_KEY'])", "import of os is not allowed"),
    "connect to a loopback server": (
        "import socket\nsocket.create_connection(('127.0.0.1', {port})).sendall(b'leak')",
        "import of socket is not allowed",
    ),
    "fork bomb": ("import os\nwhile True:\n    os.fork()", "import of os is not allowed"),
    "infinite loop": ("while True:\n    pass", "limit"),
    "allocate 8 GB": ("block = bytearray(8 * 1024**3)\nprint(len(block))", "memory limit"),
    "write a 1 GB file": (
        "with open('big.bin', 'wb') as f:\n    for _ in range(1024):\n        f.write(b'x' * 1024 * 1024)",
        "file-size limit",
    ),
    "__import__": ("__import__('os').system('id')", '"__import__" is an invalid variable name'),
    "importlib": ("import importlib\nimportlib.import_module('subprocess')", "import of importlib is not allowed"),
    "builtins": ("import builtins\nbuiltins.__dict__['__import__']('ctypes')", "import of builtins is not allowed"),
    "ctypes": ("import ctypes\nctypes.CDLL(None).system(b'id')", "import of ctypes is not allowed"),
    "a module through an allowed one": ("import fractions\nfractions.sys.modules['os']", "module sys is not allowed"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_program_is_a_failed_step_with_its_reason_and_nothing_escapes(
    name: str,
    scripted_llm: ScriptedLLM,
    code_context: Context,
    checkpointer: Any,
    store: Any,
    tmp_path: Path,
    loopback_server: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    canary = "sk-canary-e2e-5150"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret", encoding="utf-8")
    template, reason = HOSTILE[name]
    script_code(scripted_llm, template.format(secret=str(secret), port=loopback_server.port))
    if name == "infinite loop":  # the time limits are what stops it: either one's reason says "limit"
        code_context = replace(code_context, code_time_s=LOOP_TIME_S)

    out = _run(code_context, checkpointer, store, PRIMES_PROMPT)

    step = _only_step(out)
    assert not step.success and out["status"] != "completed"
    assert any(reason in finding for finding in step.findings), step.findings
    assert loopback_server.connections == 0
    everything = json.dumps(out, default=str)
    assert canary not in everything and "top secret" not in everything
    assert not [d for d in out.get("deliverables", []) if d["name"] == "big.bin"]
