"""Scripted model behaviour for whole-graph scenarios, shared by e2e tests, server tests and benchmarks.

The scripted model is not a stub that ignores its input: like a real model it follows the evidence in its
prompt — it answers "write code" until the history, learnings or learned strategies in the prompt tell it
that code failed and data must be asked for directly.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sympy import prime, primerange

from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

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
        "parametersSchema": {
            "fields": [{"name": "aiPrompt", "type": "string", "required": True, "description": "the task"}]
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
