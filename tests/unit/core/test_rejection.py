"""A rejected action, node by node: refine goes on only where another allowed action can do the job, select no
longer offers it, Stage 1 reads the user's reason apart from paor's hint, the CLI's progress line says
"rejected: …" (tests/e2e/test_rejection.py runs it whole)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from cli.view import progress_line
from core.context import Context
from core.errors import SelectionRejected
from core.schemas import (
    REJECTED_BY_USER,
    ActionResult,
    ContentValidation,
    Intent,
    Observation,
    RefinementDecision,
    dump,
)
from graph.builder import after_refine
from nodes.refine import refine
from nodes.select import choose, parse_selection
from nodes.services import Services
from prompts.render import REJECTED_SECTION
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import entry, runtime, selection, selection_payload, state
from tools.catalog import allowed_entries
from tools.documents import DocumentIndex

REASON = "not like this"


def _rejected_step(step: int = 1, action: str = "ai.process", **overrides: Any) -> dict[str, Any]:
    """The state refine sees after the user rejected `action` at `step` (learn has recorded the entry)."""
    label = f"round1_task1_action{step}_process"
    error = f"{REJECTED_BY_USER}{REASON}"
    validation = ContentValidation(
        overallSuccess=False,
        dataTypeMatch=False,
        formatMatch=False,
        qualityScore=0,
        issues=[error],
        checksFailed=["action"],  # as validate writes it for a result that failed
    )
    earlier = [entry(step=s, action="web.search", outcome="progress") for s in range(1, step)]
    return state(
        step=step,
        selection=dump(selection(action=action)),
        result=dump(ActionResult(success=False, resultLabel=label, error=error, rejected=REASON)),
        observation=dump(Observation(success=False, resultLabel=label, documentsCount=0)),
        validation=dump(validation),
        history=[*earlier, entry(step=step, action=action, rejected=REASON, summary=f"rejected: {REASON}")],
        **overrides,
    )


def _refine(current: dict[str, Any], context: Context, services: Services) -> tuple[RefinementDecision, dict[str, Any]]:
    update = refine(current, runtime(context), services)  # type: ignore[arg-type]
    return RefinementDecision.model_validate(update["decision"]), {**current, **update}


def test_a_rejected_loop_step_goes_on_to_another_allowed_action_without_paors_hint(
    services: Services, context: Context
) -> None:
    decision, after = _refine(_rejected_step(hint="an old hint"), context, services)

    assert decision.decision == "continue" and decision.reason.startswith(f"you rejected ai.process: “{REASON}”")
    assert after["hint"] is None and after_refine(after) == "select"  # type: ignore[arg-type]


def test_a_rejection_with_no_other_allowed_action_stops_naming_it(services: Services, context: Context) -> None:
    decision, _ = _refine(_rejected_step(), replace(context, allowed_methods="ai.process"), services)

    assert decision == RefinementDecision(
        decision="stop", reason=f"you rejected ai.process: “{REASON}”; no other allowed action can do this"
    )


def test_a_rejection_at_the_last_step_stops_naming_it_and_the_limit(services: Services, context: Context) -> None:
    decision, _ = _refine(_rejected_step(step=2), replace(context, max_steps=2), services)

    assert (decision.decision, decision.reason) == (
        "stop",
        f"you rejected ai.process: “{REASON}”; max_steps (2) reached",
    )


@pytest.mark.parametrize(
    ("request_text", "intent", "goes_on"),
    [
        ("Write one sentence about the sea.", {"dataType": "text", "expectedFormat": "markdown"}, False),
        ("List the squares of the first 5 odd numbers.", {"dataType": "numbers", "expectedFormat": "raw_data"}, True),
    ],
)
def test_a_rejected_direct_answer_is_never_retried_and_leaves_the_direct_path_only_for_a_tool_that_can_help(
    services: Services, context: Context, request_text: str, intent: dict[str, Any], goes_on: bool
) -> None:
    current = _rejected_step(
        prompt=request_text, direct=True, intent=Intent.model_validate({**intent, "language": "en"})
    )
    decision, after = _refine(current, context, services)

    assert decision.decision == ("continue" if goes_on else "stop")
    assert after["direct"] is not goes_on  # the direct retry is never the next step
    assert after_refine(after) == ("select" if goes_on else "finalize")  # type: ignore[arg-type]


def test_a_stage1_that_chose_nothing_after_a_rejection_stops_the_round_naming_it(
    services: Services, context: Context
) -> None:
    rejected = _rejected_step()
    chosen_nothing = {
        **rejected,
        "step": 2,
        "selection": None,
        "result": None,
        "validation": None,
        "step_error": "the user rejected ai.process in this round",
        "history": [*rejected["history"], entry(step=2, summary="selection failed")],
    }
    decision, _ = _refine(chosen_nothing, context, services)

    assert (decision.decision, decision.reason) == (
        "stop",
        f"you rejected ai.process: “{REASON}”; no other allowed action can do this",
    )


def test_stage1_is_not_offered_a_rejected_action_and_reads_the_users_reason_in_a_section_of_its_own(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ActionSelection", selection_payload(action="code.execute", parametersSchema={"fields": []}))
    current = _rejected_step(hint="paor's own hint")

    chosen = choose(current, runtime(context), services, step=2)  # type: ignore[arg-type]

    assert chosen.action == "code.execute"
    (asked,) = scripted_llm.requests_for("ActionSelection")
    offered = asked.text.split("AVAILABLE ACTIONS:\n", 1)[1].split("\n\n", 1)[0]
    assert "code.execute" in offered and "- ai.process" not in offered
    rejections = asked.text.split(f"{REJECTED_SECTION}:\n", 1)[1]
    assert rejections.startswith(f'- ai.process: "{REASON}"\n\nREFINEMENT HINT:\npaor\'s own hint')
    assert asked.text.split("OBJECTIVE (user request):\n", 1)[1].startswith(f"{current['prompt']}\n\nUSER INTENT:")


def test_a_stage1_answer_naming_a_rejected_action_is_refused_with_the_users_reason() -> None:
    entries = [e for e in allowed_entries([]) if e.display_name != "ai.process"]

    with pytest.raises(SelectionRejected, match=r"the user rejected ai\.process in this round \('not like this'\)"):
        parse_selection(selection_payload(), entries, DocumentIndex([]), {"ai.process": REASON})


def test_the_cli_progress_line_shows_a_rejection_as_the_users_decision_not_as_an_error() -> None:
    event = {"node": "act", "round": 1, "step": 1, "action": "ai.process", "resultLabel": "r1"}
    rejected = progress_line({**event, "error": f"{REJECTED_BY_USER}{REASON}"})
    failed = progress_line({**event, "error": "TimeoutError: too slow"})

    assert f"rejected: {REASON}" in rejected.plain and "error" not in rejected.plain
    assert "error: TimeoutError: too slow" in failed.plain
