"""Scripted model behaviour for runs that pick a brought tool (an MCP tool or a LangChain tool)."""

from __future__ import annotations

import json
from typing import Any

from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

TIME_PROMPT = "What time is it in Tokyo right now?"
TIME_ACTION = "mcp.time.get_current_time"
ANSWER_INTENT = {
    "dataType": "answer",
    "expectedFormat": "markdown",
    "successCriteria": ["states the current time in Tokyo"],
    "language": "en",
}


def selection(action: str, objective: str, fields: dict[str, str]) -> dict[str, Any]:
    return {
        "action": action,
        "actionObjective": objective,
        "learnings": [],
        "requiredInputDocuments": [],
        "requiredConnection": None,
        "parametersContext": objective,
        "parametersSchema": {
            "fields": [
                {"name": name, "type": "string", "required": True, "description": text} for name, text in fields.items()
            ]
        },
    }


ACCEPTED = {"criteriaMet": [True], "qualityScore": 0.95, "issues": [], "decision": "stop"}
REFUSED = {"criteriaMet": [False], "qualityScore": 0.2, "issues": ["not yet"], "decision": "continue"}


def script_tool_run(
    llm: ScriptedLLM,
    action: str,
    parameters: dict[str, Any],
    *,
    objective: str = "Answer the request",
    judgement: dict[str, Any] = ACCEPTED,
) -> ScriptedLLM:
    """Stage 1 picks `action`, Stage 2 answers `parameters`, the judge answers `judgement` (accepts)."""
    fields = {name: f"the {name}" for name in parameters}
    return (
        llm.on("Intent", json.dumps(ANSWER_INTENT))
        .on("ActionSelection", selection(action, objective, fields))
        .on("ParametersAnswer", {"schema": "parameters_v1", "parameters": parameters})
        .on("ContentJudgement", judgement)
    )


def script_time(llm: ScriptedLLM) -> ScriptedLLM:
    return script_tool_run(llm, TIME_ACTION, {"timezone": "Asia/Tokyo"}, objective="Get the current time in Tokyo")


def offered_actions(request: RecordedRequest) -> list[str]:
    """The actions a Stage-1 request offered (the catalog lines of its prompt)."""
    text = request.text.split("AVAILABLE ACTIONS:", 1)[1].split("AVAILABLE DOCUMENTS", 1)[0]
    return [line[2:].split("(", 1)[0] for line in text.splitlines() if line.startswith("- ")]
