"""learn: success becomes the strategy, failure goes on the avoid-list; each step leaves a history entry."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from core.context import Context
from core.schemas import ActionResult, ContentValidation, HistoryEntry, Intent, Observation, Strategy, dump
from nodes.learn import MAX_LEARNINGS, learn
from nodes.services import Services
from nodes.strategies import ATTEMPTS, KEY, MAX_AVOID, NAMESPACE, pattern_of, recall, record
from prompts.render import selection_messages
from tests.unit.core.factories import entry, primes_intent, ref, runtime, selection, state

LABEL = "round1_task1_action1_process"
PATTERN = "numbers-raw_data-prime"


@pytest.fixture
def services(offline_services: Services) -> Services:
    """This node never calls a model."""
    return offline_services


@pytest.fixture
def context(offline_context: Context) -> Context:
    return offline_context


def _step_state(
    success: bool, prompt: str = "List the numbers directly", *, verified: bool = True, **overrides: Any
) -> dict[str, Any]:
    doc = ref(label=LABEL, name="result.md", mime="text/markdown")
    validation = ContentValidation(
        verified=verified,
        overallSuccess=success,
        dataTypeMatch=success,
        formatMatch=True,
        successCriteriaMet=[success, success],
        qualityScore=1.0 if success else 0.2,
        issues=[] if success else ["delivered code, not numbers"],
        improvementSuggestions=[] if success else ["Ask for the numbers directly, not for code."],
    )
    values: dict[str, Any] = {
        "step": 1,
        "selection": dump(selection(learnings=["numbers, not code"])),
        "parameters": {"aiPrompt": prompt, "expectedDocumentFormats": ["md"]},
        "result": dump(ActionResult(success=True, resultLabel=LABEL, documents=[doc])),
        "observation": dump(Observation(success=True, resultLabel=LABEL, documentsCount=1, notes=["1 document"])),
        "validation": dump(validation),
    }
    return state(**{**values, **overrides})


def _strategy(store: InMemoryStore) -> Strategy:
    item = store.get((*NAMESPACE, PATTERN), KEY)
    assert item is not None
    return Strategy.model_validate(item.value)


def test_success_records_the_action_and_prompt_style(services: Services, context: Context) -> None:
    store = InMemoryStore()
    learn(_step_state(True), runtime(context, store), services)
    learned = _strategy(store)
    assert learned.successfulAction == "ai.process"
    assert learned.promptStyle == 'aiPrompt "List the numbers directly"'
    assert (learned.attempts, learned.successes, learned.successRate) == (1, 1, 1.0)
    assert learned.avoid == [] and learned.lastUpdated


def test_a_success_code_did_not_verify_is_never_learned_as_one(services: Services, context: Context) -> None:
    store = InMemoryStore()
    learn(_step_state(True, verified=False), runtime(context, store), services)  # criteria nobody decided
    assert store.get((*NAMESPACE, PATTERN), KEY) is None
    learn(_step_state(False, verified=False), runtime(context, store), services)  # a failure still teaches
    assert (_strategy(store).attempts, _strategy(store).successes) == (1, 0)


def test_failure_goes_on_the_avoid_list_and_lowers_the_success_rate(services: Services, context: Context) -> None:
    store = InMemoryStore()
    learn(_step_state(True), runtime(context, store), services)
    learn(_step_state(False, prompt="Write a Python program"), runtime(context, store), services)
    learned = _strategy(store)
    assert learned.avoid == ['ai.process: aiPrompt "Write a Python program" → delivered code, not numbers']
    assert learned.successfulAction == "ai.process" and learned.successRate == 0.5


def test_avoid_list_is_deduplicated_and_capped(services: Services, context: Context) -> None:
    store = InMemoryStore()
    for _ in range(3):
        learn(_step_state(False, prompt="same prompt"), runtime(context, store), services)
    assert len(_strategy(store).avoid) == 1 and _strategy(store).attempts == 3
    for i in range(MAX_AVOID + 3):
        learn(_step_state(False, prompt=f"prompt {i}"), runtime(context, store), services)
    avoid = _strategy(store).avoid
    assert len(avoid) == MAX_AVOID
    assert avoid[-1].startswith(f'ai.process: aiPrompt "prompt {MAX_AVOID + 2}"'), "the newest failure is kept"


def test_learning_switched_off_writes_nothing_to_the_store(services: Services, context: Context) -> None:
    store = InMemoryStore()
    context.learning = False
    update = learn(_step_state(True), runtime(context, store), services)
    assert store.search(NAMESPACE) == []
    assert len(update["history"]) == 1, "the step is still recorded in the thread's history"


def test_history_entry_carries_summary_findings_and_learnings(services: Services, context: Context) -> None:
    update = learn(_step_state(False, prompt="Write a Python program"), runtime(context), services)
    [entry] = [HistoryEntry.model_validate(h) for h in update["history"]]
    assert entry.action == "ai.process" and entry.resultLabel == LABEL and not entry.success
    assert entry.parameters["aiPrompt"] == "Write a Python program"
    assert [d.name for d in entry.documents] == ["result.md"]
    assert entry.summary.startswith("ai.process → 1 document(s) (") and "delivered code, not numbers" in entry.summary
    assert len(entry.summary) <= 300
    assert entry.findings == ["delivered code, not numbers", "1 document"]
    assert entry.learnings[0] == "numbers, not code"
    assert "failed — delivered code, not numbers" in entry.learnings[-1]
    assert update["learnings"] == [entry.learnings[-1]]


def test_successful_entry_summary_says_criteria_met(services: Services, context: Context) -> None:
    update = learn(_step_state(True), runtime(context), services)
    entry = HistoryEntry.model_validate(update["history"][0])
    assert entry.success and entry.qualityScore == 1.0 and "criteria met" in entry.summary


def test_current_learnings_keep_only_the_most_recent(services: Services, context: Context) -> None:
    old = [f"lesson {i}" for i in range(MAX_LEARNINGS)]
    update = learn(_step_state(True, learnings=old), runtime(context), services)
    assert len(update["learnings"]) == MAX_LEARNINGS and update["learnings"][0] == "lesson 1"


def test_recall_returns_the_exact_pattern_first_then_related_ones() -> None:
    store = InMemoryStore()
    intent = primes_intent()
    related = Intent(dataType="numbers", expectedFormat="csv")
    unrelated = Intent(dataType="text", expectedFormat="markdown")
    record(store, intent, "ai.process", "code", False, "delivered code")
    for _ in range(3):
        record(store, related, "ai.process", "as csv", True, "")
    record(store, unrelated, "ai.process", "prose", True, "")
    found = recall(store, intent)
    assert [s.pattern for s in found] == [pattern_of(intent), "numbers-csv"]
    assert found[0].successRate == 0.0 and found[1].successRate == 1.0


def test_recall_without_a_store_or_strategies_is_empty() -> None:
    assert recall(None, primes_intent()) == []
    assert recall(InMemoryStore(), primes_intent()) == []


def test_intermediate_result_is_progress_and_teaches_nothing_to_the_store(services: Services, context: Context) -> None:
    store = InMemoryStore()
    current = _step_state(False)
    current["validation"] = {**current["validation"], "dataTypeMatch": True, "issues": ["no docx document yet"]}
    update = learn(current, runtime(context, store), services)
    entry = HistoryEntry.model_validate(update["history"][0])
    assert entry.outcome == "progress" and not entry.success
    assert "gave an intermediate result (no docx document yet)" in entry.learnings[-1]
    assert store.search(NAMESPACE) == [], "an intermediate step neither proves nor condemns an approach"


def test_failed_tool_is_a_failed_outcome_even_with_matching_data_type(services: Services, context: Context) -> None:
    current = _step_state(False)
    current["validation"] = {**current["validation"], "dataTypeMatch": True}
    current["result"] = dump(ActionResult(success=False, resultLabel=LABEL, error="ToolFailed: boom"))
    update = learn(current, runtime(context), services)
    assert HistoryEntry.model_validate(update["history"][0]).outcome == "failed"


def test_a_result_identical_to_an_earlier_steps_is_a_failure_that_teaches_stage_1_not_the_store(
    services: Services, context: Context
) -> None:
    store = InMemoryStore()
    current = _step_state(False, step=2)
    current["validation"] = {**current["validation"], "dataTypeMatch": True, "issues": ["9 numbers, 10 asked"]}
    earlier = ref(label="round1_task1_action1_process", name="result.md", mime="text/markdown")  # same bytes
    current["history"] = [entry(step=1, action="ai.process", documents=[dump(earlier)], outcome="progress")]
    update = learn(current, runtime(context, store), services)

    recorded = HistoryEntry.model_validate(update["history"][-1])
    assert recorded.outcome == "failed", "so its action+parameters are never run again"
    assert "byte-identical to step 1's (ai.process): repeating it changes nothing" in recorded.learnings[-1]
    assert store.search(NAMESPACE) == [], "a repeat says nothing about the approach for other runs"


def test_a_tool_paor_could_not_call_lowers_no_strategy_and_one_that_failed_at_its_job_does(
    services: Services, context: Context
) -> None:
    store = InMemoryStore()
    not_called = _step_state(False)
    error = "ArgumentsRefused: read_text_file reported an error: MCP error -32602: Input validation error"
    not_called["result"] = dump(ActionResult(success=False, resultLabel=LABEL, error=error, called=False))

    update = learn(not_called, runtime(context, store), services)

    assert HistoryEntry.model_validate(update["history"][0]).outcome == "failed"  # never repeated this round
    assert store.search(NAMESPACE) == [], "paor's own failure says nothing about the tool"
    failed_at_its_job = _step_state(False)
    failed_at_its_job["result"] = dump(ActionResult(success=False, resultLabel=LABEL, error="ToolFailed: boom"))
    learn(failed_at_its_job, runtime(context, store), services)
    assert (_strategy(store).attempts, _strategy(store).successes) == (1, 0)


def test_failures_of_paors_own_stored_by_earlier_versions_are_left_out_of_a_strategy() -> None:
    store = InMemoryStore()
    intent = primes_intent()
    record(
        store,
        intent,
        "mcp.orders.create_ticket",
        "default parameters",
        False,
        "LookupError: action mcp.orders.create_ticket is not registered",
    )
    record(
        store,
        intent,
        "mcp.fs.read_text_file",
        'path "/a"',
        False,
        "MCP error -32602: expected number, received null at tail",
    )
    record(
        store,
        intent,
        "mcp.shop.lookup_order",
        'order_id "A-1"',
        False,
        "include_items Input should be a valid boolean [input_value=None]",
    )
    learned = record(store, intent, "mcp.shop.lookup_order", 'order_id "A-2"', False, "order A-2 does not exist")

    assert learned.avoid == ['mcp.shop.lookup_order: order_id "A-2" → order A-2 does not exist']
    assert learned.attempts == 1


def test_a_lesson_on_a_long_prompt_still_shows_stage_1_its_verdict(services: Services, context: Context) -> None:
    """Stage 1 shows each lesson cut to 160 characters: the quoted prompt is cut so that the verdict is not."""
    current = _step_state(False)
    current["parameters"] = {"aiPrompt": "Write the next regional section of the market analysis, citing sources " * 3}
    current["validation"] = {**current["validation"], "dataTypeMatch": True, "issues": ["regions are still missing"]}
    lesson = HistoryEntry.model_validate(learn(current, runtime(context), services)["history"][0]).learnings[-1]
    shown = selection_messages(
        request="r",
        intent=primes_intent(),
        strategies=[],
        catalog="",
        documents="",
        learnings=[lesson],
        hint=None,
        history="",
        step=2,
        max_steps=5,
    )[1].text
    assert "gave an intermediate result (regions are still missing)." in shown


@pytest.mark.parametrize("met", [True, False])
def test_a_learn_step_run_again_after_a_crash_counts_once_and_is_no_repeat_of_itself(
    met: bool, services: Services, context: Context
) -> None:
    from dataclasses import replace

    from langgraph.runtime import ExecutionInfo

    store = InMemoryStore()
    info = ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="learn", thread_id="t")
    on_a_thread = replace(runtime(context, store), execution_info=info)
    for _ in range(2):  # the process died after the store writes, before the checkpoint: learn runs again
        update = learn(_step_state(met), on_a_thread, services)
    lesson = update["learnings"][-1]
    assert "byte-identical" not in lesson  # its own stored result is no earlier step's
    assert ("met the criteria" if met else "delivered code") in lesson
    assert _strategy(store).attempts == 1


#: What earlier versions stored for an outage, as act's catch-all wrote it (issue 52's `paor strategies`).
OUTAGE_ISSUES = [
    "OpenAIConnectionError: Connection error.",
    "APITimeoutError: Request timed out.",
    "OpenAIAPIError: Error code: 503 - upstream busy",
    "RateLimitError: Error code: 429 - slow down",
    "ToolFailed: Tavily search failed: ConnectionError: HTTPSConnectionPool(host='api.tavily.com')",
    "ToolFailed: no page could be fetched: fetching https://example.org/ failed: cannot connect to example.org (x)",
]


def test_attempts_whose_only_evidence_is_an_outage_are_not_learned(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`paor strategies` showed `avoid: ai.process: aiPrompt … → OpenAIConnectionError: Connection error.` after a
    run with the model endpoint down: an outage learned as evidence that the right action is wrong."""
    from typer.testing import CliRunner

    from cli.app import app
    from core.persistence import open_sqlite
    from nodes.strategies import learned

    monkeypatch.setenv("PAOR_HOME", str(tmp_path))
    pattern, approach = pattern_of(primes_intent()), 'aiPrompt "Calculate the first 20 prime numbers"'
    with open_sqlite(tmp_path / "paor.sqlite") as (_, store):
        for n, issue in enumerate(OUTAGE_ISSUES):  # as an earlier version stored them: attempts and their summary
            attempt = {"action": "ai.process", "approach": approach, "success": False, "issue": issue}
            store.put((*ATTEMPTS, pattern), f"t/1/{n}", {**attempt, "at": f"2026-11-30T10:00:0{n}"})
        stored = Strategy(
            pattern=pattern,
            avoid=[f"ai.process: {approach} → {issue}" for issue in OUTAGE_ISSUES[-MAX_AVOID:]],
            attempts=len(OUTAGE_ISSUES),
        )
        store.put((*NAMESPACE, pattern), KEY, dump(stored))
        related = primes_intent().model_copy(update={"numberProperty": None})  # another pattern, the same data type
        assert learned(store) == [] and recall(store, primes_intent()) == [] and recall(store, related) == []
        kept = record(store, primes_intent(), "ai.process", 'aiPrompt "primes"', False, "only 19 numbers delivered")
        assert kept.attempts == 1 and kept.avoid == ['ai.process: aiPrompt "primes" → only 19 numbers delivered']
    shown = CliRunner().invoke(app, ["strategies"])
    assert shown.exit_code == 0 and "Connection error" not in shown.output and "only 19 numbers" in shown.output
