"""Renderers: protocol objects in, chat messages out. Nodes never assemble prompt text themselves."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from itertools import pairwise

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from core.schemas import (
    Intent,
    Observation,
    ParameterField,
    Strategy,
)
from core.tokens import count_tokens
from prompts.templates import clip, fill, normalised, untrusted

SHOWN_LEARNINGS = 4  # Stage 1 shows the newest learnings only


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render_intent(intent: Intent, leave_out: frozenset[str] = frozenset()) -> str:
    """The intent as later prompts see it: only what was found (no nulls), compact, without `leave_out`'s fields."""
    return _json(intent.model_dump(mode="json", exclude_none=True, exclude=set(leave_out)))


#: Stage 1 chooses an action: the quality thresholds are the judge's to apply, not a choice's input.
SELECTION_LEAVES_OUT = frozenset({"qualityRequirements"})


def intent_messages(request: str, hints: dict[str, object], documents: str, earlier: str = "") -> list[BaseMessage]:
    """The analysis of a request; a follow-up ("Now only the first 10") is read against the turns before it."""
    user = fill("intent_user", request=request, hints=_json(hints), documents=documents)
    if earlier:
        user += f"\n\nEARLIER IN THIS CONVERSATION (newest first; the request may refer to it):\n{earlier}"
    return [SystemMessage(content=fill("intent")), HumanMessage(content=user)]


_LESSON = re.compile(r"Step (\d+): (.*)", re.DOTALL)


def merged_lessons(learnings: Sequence[str]) -> list[str]:
    """Steps that taught the same lesson share one line ("Steps 7–10: …"): a repeated approach costs one line of
    the prompt, not one per step, and reads as the repetition it is."""
    merged: list[tuple[list[str], str]] = []
    for item in learnings:
        match = _LESSON.fullmatch(item)
        if match is None:
            merged.append(([], item))
        elif merged and merged[-1][0] and merged[-1][1] == match[2]:
            merged[-1][0].append(match[1])
        else:
            merged.append(([match[1]], match[2]))
    return [f"{_steps(steps)}: {text}" if steps else text for steps, text in merged]


def _steps(numbers: list[str]) -> str:
    if len(numbers) == 1:
        return f"Step {numbers[0]}"
    consecutive = all(int(b) == int(a) + 1 for a, b in pairwise(numbers))
    return f"Steps {numbers[0]}–{numbers[-1]}" if consecutive else "Steps " + ", ".join(numbers)


def render_strategies(strategies: Sequence[Strategy]) -> str:
    lines = []
    for s in strategies:
        line = f"- pattern {s.pattern}: success rate {s.successRate:.0%} over {s.attempts} attempts"
        if s.successfulAction:
            line += f"; worked: {s.successfulAction} — {clip(s.promptStyle or '', 200)}"
        if s.avoid:
            line += f"; avoid: {clip(' | '.join(s.avoid), 300)}"
        lines.append(line)
    return "\n".join(lines)


#: The Stage-1 section of the actions the user rejected: their words, not paor's advice.
REJECTED_SECTION = "REJECTED BY THE USER IN THIS ROUND (the user's own words; these actions are not offered again)"


def render_rejections(rejections: Mapping[str, str]) -> str:
    return "\n".join(
        f"- {action}: {json.dumps(clip(reason, 300), ensure_ascii=False)}" for action, reason in rejections.items()
    )


def selection_messages(
    *,
    request: str,
    intent: Intent,
    strategies: Sequence[Strategy],
    catalog: str,
    documents: str,
    learnings: Sequence[str],
    hint: str | None,
    history: str,
    step: int,
    max_steps: int,
    rejections: Mapping[str, str] | None = None,
) -> list[BaseMessage]:
    """Stable first, changing last: the instructions, the request, the intent and the catalog are the same in every
    step of a round, so an endpoint's prompt cache (OpenAI's, llama.cpp's) reuses them; what a step changes
    (documents, learnings, history, the user's rejections, the hint) follows, and a section with nothing to say is
    left out. `rejections`: the actions the user rejected in this round with their reasons, in the user's words and
    apart from paor's own hint (the catalog no longer offers them)."""
    sections = (
        ("LEARNED STRATEGIES (from earlier runs)", render_strategies(strategies)),
        ("AVAILABLE DOCUMENTS", documents),
        (
            "CURRENT LEARNINGS",
            "\n".join(f"- {clip(item, 160)}" for item in merged_lessons(learnings[-SHOWN_LEARNINGS:])),
        ),
        ("HISTORY (newest first)", history),
        (REJECTED_SECTION, render_rejections(rejections or {})),
        ("REFINEMENT HINT", hint or ""),
    )
    progress = "".join(f"\n{title}:\n{body}\n" for title, body in sections if body)
    user = fill(
        "select_user",
        request=request,
        intent=render_intent(intent, SELECTION_LEAVES_OUT),
        catalog=catalog,
        progress=progress,
        step=step,
        max_steps=max_steps,
    )
    system = fill("select")
    return [SystemMessage(content=system), HumanMessage(content=user)]


def render_schema(fields: Sequence[ParameterField]) -> str:
    return (
        "\n".join(f"- {f.name} ({f.type}, {'required' if f.required else 'optional'}): {f.description}" for f in fields)
        or "(no parameters)"
    )


def parameters_messages(
    *, action: str, objective: str, context: str, fields: Sequence[ParameterField]
) -> list[BaseMessage]:
    """Stage 2 sees exactly these four things — no documents, history or connections (spec 1)."""
    user = fill(
        "parameters_user",
        action=action,
        objective=objective,
        context=context or "(none)",
        schema=render_schema(fields),
    )
    return [SystemMessage(content=fill("parameters")), HumanMessage(content=user)]


def judge_messages(
    *,
    request: str,
    intent: Intent,
    checked: Sequence[str],
    criteria: Sequence[str],
    observation: Observation,
    progress: str,
) -> list[BaseMessage]:
    previews = "\n".join(untrusted(p.snippet, p.name) for p in observation.previews) or "(no content)"
    user = fill(
        "judge_user",
        request=request,
        intent=render_intent(intent),
        checked="\n".join(f"- {c}" for c in checked) or "(nothing)",
        criteria="\n".join(f"{i}. {c}" for i, c in enumerate(criteria, 1)),
        previews=previews,
        progress=progress,
    )
    return [SystemMessage(content=fill("judge")), HumanMessage(content=user)]


_FORMAT_RULES = {
    "md": "markdown narrative (plain prose, lists and tables as needed)",
    "txt": "plain text",
    "json": "one valid JSON value only, no prose, no code fences",
    "csv": "CSV only (header row first), no prose, no code fences",
}
_MODE_RULES = {
    "basic": "Be concise.",
    "advanced": "Be thorough and precise.",
    "detailed": "Be exhaustive: cover every relevant detail of the sources.",
}


def ai_process_messages(
    *,
    task: str,
    sources: Sequence[tuple[str, str]],
    language: str,
    output_format: str,
    mode: str,
    custom: str,
    request: str = "",
    criteria: Sequence[str] = (),
    earlier: str = "",
) -> list[BaseMessage]:
    """Static system text first (byte-identical across a run's calls, so prompt caches reuse it), then the user's
    request, the conversation before it (`earlier`, from `render_conversation`: "shorter please" needs the answer
    it follows) and the criteria, then this step's task (left out when it only repeats the request), then the
    sources."""
    system = fill(
        "ai_process",
        language=language,
        format_rule=_FORMAT_RULES.get(output_format, _FORMAT_RULES["md"]),
        mode_rule=_MODE_RULES.get(mode, _MODE_RULES["basic"]),
        custom=f"Additional instructions: {custom}" if custom else "",
    )
    parts = []
    if request.strip():
        parts.append(f"USER REQUEST:\n{request.strip()}")
        if earlier:
            parts.append(f"EARLIER IN THIS CONVERSATION (newest first):\n{earlier}")
        if criteria:
            parts.append("SUCCESS CRITERIA:\n" + "\n".join(f"- {c}" for c in criteria))
    if not request.strip() or normalised(task) != normalised(request):
        parts.append(f"TASK:\n{task}")
    material = "\n\n".join(untrusted(text, name) for name, text in sources)
    if material:
        parts.append(f"SOURCES:\n{material}")
    return [SystemMessage(content=system), HumanMessage(content="\n\n".join(parts))]


#: Earlier turns an answering call shows whole (newest first); older ones are cut to a line each.
CONVERSATION_TOKENS = 1500
_OLDER_TURN_CHARS = 160
_MAX_TURNS = 20


def render_conversation(turns: Sequence[BaseMessage]) -> str:
    """The thread's earlier turns for a prompt of paor's, newest first: whole while they fit CONVERSATION_TOKENS,
    then each older one summarised as its first line (at most 20 turns); empty for a thread's first round."""
    lines, budget = [], CONVERSATION_TOKENS
    for message in list(reversed(turns))[:_MAX_TURNS]:
        who = "user" if isinstance(message, HumanMessage) else "assistant"
        text = str(message.text).strip()
        budget -= count_tokens(text) if budget >= 0 else 0  # spent: the rest is cut, whatever its length
        lines.append(f"{who}: {text if budget >= 0 else clip(' '.join(text.split()), _OLDER_TURN_CHARS)}")
    return "\n".join(lines)


def bare_messages(turns: Sequence[BaseMessage], text: str, system_prompt: str = "") -> list[BaseMessage]:
    """The call a bare chat agent makes: the operator's system prompt if there is one, the conversation's earlier
    turns as they are, and the user's words (`text`); no header, instruction or criterion of paor's."""
    system: list[BaseMessage] = [SystemMessage(content=system_prompt)] if system_prompt.strip() else []
    return [*system, *turns, HumanMessage(content=text)]


def plan_messages(
    *, request: str, intent: Intent, methods: dict[str, object], documents: str, round_: int, max_steps: int
) -> list[BaseMessage]:
    """The legacy bulk-planning prompt: the verbose catalog with every parameter schema (spec 2, Actionplan)."""
    system = fill("plan", round=round_, max_steps=max_steps)
    user = fill(
        "plan_user",
        request=request,
        intent=render_intent(intent),
        methods=json.dumps(methods, ensure_ascii=False, indent=1),
        documents=documents,
    )
    return [SystemMessage(content=system), HumanMessage(content=user)]
