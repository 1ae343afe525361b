"""Scripted model behaviour for `code.execute` runs: Stage 1 picks code.execute, Stage 2 writes the program."""

from __future__ import annotations

import json
from typing import Any

from tests.support.scenarios import PRIMES_INTENT
from tests.support.scripted_llm import ScriptedLLM

PRIMES_PROGRAM = (
    "from sympy import prime, primerange\n"
    "primes = list(primerange(2, prime(1000) + 1))\n"
    "print(', '.join(str(p) for p in primes))\n"
)
CODE_FIELD = {"name": "code", "type": "string", "required": True, "description": "the Python program"}


def code_selection(objective: str, documents: list[str] | None = None, *, schema: bool = True) -> dict[str, Any]:
    """Stage 1 choosing code.execute; without `schema`, Stage 2 sees the tool's own args schema."""
    return {
        "action": "code.execute",
        "actionObjective": objective,
        "learnings": [],
        "requiredInputDocuments": documents or [],
        "requiredConnection": None,
        "parametersContext": "Compute the answer with a program that prints the data.",
        "parametersSchema": {"fields": [CODE_FIELD] if schema else []},
    }


def script_code(
    llm: ScriptedLLM,
    program: str,
    *,
    intent: dict[str, Any] | None = None,
    objective: str = "Compute and print the first 1000 prime numbers",
    documents: list[str] | None = None,
    schema: bool = True,
) -> ScriptedLLM:
    """One program per step: Stage 2 always answers `program`."""
    return (
        llm.on("Intent", json.dumps(intent or PRIMES_INTENT))
        .on("ActionSelection", code_selection(objective, documents, schema=schema))
        .on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {"code": program}})
        .on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "issues": []})
    )
