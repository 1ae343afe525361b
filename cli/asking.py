"""The terminal side of paor's interrupts: say what a run asks, and ask the user on a TTY (rich prompts).

The payloads are those of nodes/approval.py (`kind: approve`) and nodes/clarify.py (`kind: clarify`).
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.prompt import Prompt
from rich.text import Text


def one_line(question: Any) -> str:
    """The question in one line (for a non-interactive caller)."""
    if not isinstance(question, dict):
        return f"waiting for an answer: {question}"
    if question.get("kind") == "clarify":
        suggestions = "; ".join(question.get("suggestions") or [])
        return f"question: {question.get('question')}" + (f" (e.g. {suggestions})" if suggestions else "")
    shown = json.dumps(question.get("parameters") or {}, ensure_ascii=False)
    refused = f" [{question['error']}]" if question.get("error") else ""
    return f"approve {question.get('action')} {shown}?{refused}"


def ask(question: Any, console: Console) -> Any:
    """Ask on the terminal; returns the resume value."""
    if isinstance(question, dict) and question.get("kind") == "clarify":
        return _clarify(question, console)
    if isinstance(question, dict) and question.get("kind") == "approve":
        return _approve(question, console)
    return Prompt.ask(Text(one_line(question)), console=console)


def _clarify(question: dict[str, Any], console: Console) -> str:
    console.print(Text(str(question.get("question")), style="bold"))
    suggestions = list(question.get("suggestions") or [])
    for number, suggestion in enumerate(suggestions, 1):
        console.print(Text(f"  {number}. {suggestion}"))
    answer = Prompt.ask("answer (text or number)", console=console).strip()
    if answer.isdigit() and 1 <= int(answer) <= len(suggestions):
        return suggestions[int(answer) - 1]
    return answer


def _approve(question: dict[str, Any], console: Console) -> dict[str, Any]:
    console.print(Text(f"{question.get('action')}: {question.get('objective')}", style="bold"))
    console.print(Text(json.dumps(question.get("parameters") or {}, ensure_ascii=False, indent=2)))
    if question.get("error"):
        console.print(Text(str(question["error"]), style="red"))
    decision = Prompt.ask("approve, edit or reject?", choices=["approve", "edit", "reject"], console=console)
    if decision == "reject":
        return {"decision": "reject", "reason": Prompt.ask("reason", default="", console=console)}
    if decision == "approve":
        return {"decision": "approve"}
    while True:
        raw = Prompt.ask("parameters to change (JSON object)", console=console)
        try:
            edited = json.loads(raw)
        except ValueError as exc:
            console.print(Text(f"not JSON: {exc}", style="red"))
            continue
        if isinstance(edited, dict):
            return {"decision": "edit", "parameters": edited}
        console.print(Text('a JSON object is needed, e.g. {"query": "…"}', style="red"))
