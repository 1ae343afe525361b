"""Scripted model behaviour for whole-graph scenarios, shared by e2e tests, server tests and benchmarks.

The scripted model is not a stub that ignores its input: like a real model it follows the evidence in its
prompt — it answers "write code" until the history, learnings or learned strategies in the prompt tell it
that code failed and data must be asked for directly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from sympy import prime, primerange

from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

REPORT_PROMPT = "Summarise this document in German as a Word report"

PRIMES_PROMPT = "Calculate the first 1000 prime numbers"
FIRST_1000_PRIMES = list(primerange(2, int(prime(1000)) + 1))

PRIMES_INTENT = {
    "dataType": "numbers",
    "expectedFormat": "raw_data",
    "successCriteria": ["first 1000", "prime numbers"],
    "qualityRequirements": {"accuracy": 0.95, "completeness": 0.95},
    "language": "en",
}
CODE_PROMPT = "Write a Python program that prints the first 1000 prime numbers."
DATA_PROMPT = "List the first 1000 prime numbers directly as comma-separated numbers, no code."
CODE_ANSWER = (
    "```python\ndef primes(n):\n    found = []\n    k = 2\n    while len(found) < n:\n"
    "        if all(k % p for p in found):\n            found.append(k)\n        k += 1\n"
    "    return found\n\nprint(primes(1000))\n```"
)
DATA_ANSWER = "Here are the first 1000 prime numbers:\n\n" + ", ".join(map(str, FIRST_1000_PRIMES))

# Evidence in a Stage-1 prompt that asking for code failed or asking for data worked.
_LEARNED_MARKERS = ("delivered code", "worked: ai.process")


def knows_code_fails(request: RecordedRequest) -> bool:
    return any(marker in request.text for marker in _LEARNED_MARKERS)


def selection(request: RecordedRequest) -> dict[str, object]:
    direct = knows_code_fails(request)
    return {
        "action": "ai.process",
        "actionObjective": "Deliver the first 1000 prime numbers",
        "learnings": ["Asking for code delivered code, not numbers"] if direct else [],
        "requiredInputDocuments": [],
        "requiredConnection": None,
        "parametersContext": (
            "Ask for the numbers directly, as data, not code." if direct else "Use a Python program to compute them."
        ),
        # A field beyond the task: Stage 2 is asked (code alone fills only the task, nodes/parameters.filled_by_code).
        "parametersSchema": {
            "fields": [
                {"name": "aiPrompt", "type": "string", "required": True, "description": "the task"},
                {"name": "processingMode", "type": "string", "required": False, "description": "thoroughness"},
            ]
        },
    }


def parameters(request: RecordedRequest) -> dict[str, object]:
    direct = "directly" in request.text
    return {"schema": "parameters_v1", "parameters": {"aiPrompt": DATA_PROMPT if direct else CODE_PROMPT}}


def ai_process(request: RecordedRequest) -> str:
    return DATA_ANSWER if DATA_PROMPT in request.text else CODE_ANSWER


def script_primes(llm: ScriptedLLM, tool_answer: Callable[[RecordedRequest], str] = ai_process) -> ScriptedLLM:
    """The primes scenario of issue 2: code first, then data once the model has learned."""
    return (
        llm.on("Intent", json.dumps(PRIMES_INTENT))
        .on("ActionSelection", selection)
        .on("ParametersAnswer", parameters)
        .on("text", tool_answer)
    )


# --- A three-step run: a user's document → extract → German summary → Word report -----------------------------

NOTES = (
    "The city council approved the new cycling plan on Monday. It adds forty kilometres of protected bike lanes, "
    "lowers the speed limit near schools and funds three hundred new bicycle parking spaces by the end of next year."
)
GERMAN_SUMMARY = (
    "Der Stadtrat hat am Montag den neuen Radverkehrsplan beschlossen. Er schafft vierzig Kilometer geschützte "
    "Radwege, senkt die Geschwindigkeit in der Nähe von Schulen und finanziert bis Ende nächsten Jahres dreihundert "
    "neue Fahrradstellplätze für die Bürgerinnen und Bürger der Stadt."
)
_STEPS = {
    1: ("document.extract", ["docList:input"], []),
    2: ("ai.process", ["docList:round1_task1_action1_extract"], ["aiPrompt"]),
    3: ("document.generateReport", ["docList:round1_task1_action2_process"], ["title"]),
}
_PARAMETERS = {
    "document.extract": {},
    "ai.process": {"aiPrompt": "Fasse das Dokument auf Deutsch zusammen."},
    "document.generateReport": {"title": "Radverkehrsplan"},
}


def _report_selection(request: RecordedRequest) -> dict[str, Any]:
    step = int(re.search(r"This is step (\d+)", request.text).group(1))  # type: ignore[union-attr]
    action, documents, fields = _STEPS[step]
    return {
        "action": action,
        "actionObjective": f"step {step} towards the German Word report",
        "requiredInputDocuments": documents,
        "parametersContext": "German summary as a Word report",
        "parametersSchema": {"fields": [{"name": f, "type": "string", "required": True} for f in fields]},
    }


def _report_parameters(request: RecordedRequest) -> dict[str, Any]:
    action = re.search(r"SELECTED ACTION: (\S+)", request.text).group(1)  # type: ignore[union-attr]
    return {"schema": "parameters_v1", "parameters": _PARAMETERS[action]}


def script_report(llm: ScriptedLLM) -> ScriptedLLM:
    """Three actions, each taking the previous one's documents; only the final report is judged by the model."""
    intent = {
        "dataType": "report",
        "expectedFormat": "docx",
        "successCriteria": ["summarises the document", "written in German", "delivered as a Word document"],
        "language": "de",
    }
    llm.on("Intent", json.dumps(intent)).on("ActionSelection", _report_selection)
    llm.on("ParametersAnswer", _report_parameters).on("text", GERMAN_SUMMARY)
    return llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "issues": []})


def pending_questions(graph: Any, config: dict[str, Any]) -> list[Any]:
    """What an interrupted thread is waiting to be asked (the values of its pending interrupts)."""
    return [i.value for i in graph.get_state(config).interrupts]
