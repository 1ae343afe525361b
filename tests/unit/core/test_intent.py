"""intent + hints: code reads counts, properties, formats, language and freshness; the model fills the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langdetect import detect_langs as real_detect_langs

from core.context import Context
from core.errors import InvalidRequest, ModelUnavailable
from core.schemas import Intent
from nodes.checks import run_checks
from nodes.intent import intent
from nodes.reading import hints
from nodes.reading.hints import read_hints
from nodes.services import Services
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import PRIMES_REQUEST, ref, runtime

MODEL_INTENT = {
    "dataType": "numbers",
    "expectedFormat": "raw_data",
    "successCriteria": ["first 1000", "prime numbers"],
    "language": "en",
}
PDF_REQUEST = "Summarise these three PDFs in German as a Word report"


# --- deterministic hints ---------------------------------------------------------------------------------------


def test_first_1000_prime_numbers_are_read_as_numbers_with_count_and_property() -> None:
    hints = read_hints(PRIMES_REQUEST)
    assert (hints.itemCount, hints.numberProperty, hints.dataType) == (1000, "prime", "numbers")
    assert hints.expectedFormat == "raw_data" and not hints.wantsCode
    assert hints.criteria == ["exactly 1000 items", "every number is prime"]


def test_german_word_report_is_read_as_explicit_language_and_docx() -> None:
    hints = read_hints(PDF_REQUEST)
    assert hints.language == "de" and hints.languageExplicit
    assert hints.expectedFormat == "docx" and hints.dataType == "report"
    assert hints.itemCount is None


@pytest.mark.parametrize(
    ("request_text", "freshness"),
    [
        ("What changed in EU AI regulation this month?", "month"),
        ("What happened in the markets today?", "day"),
        ("Explain how photosynthesis works", None),
    ],
)
def test_freshness_only_when_the_request_implies_recency(request_text: str, freshness: str | None) -> None:
    assert read_hints(request_text).freshness == freshness


def test_counts_with_thousands_separators_are_read() -> None:
    assert read_hints("List the first 1,000 prime numbers").itemCount == 1000


def test_asking_for_code_is_read_as_code() -> None:
    hints = read_hints("Write a Python program that prints the first 1000 primes")
    assert hints.wantsCode and hints.dataType == "code" and hints.expectedFormat == "code"


def test_language_is_detected_from_the_request_when_not_named() -> None:
    hints = read_hints("Fasse die wichtigsten Punkte der beiden Verträge zusammen und vergleiche sie")
    assert hints.language == "de" and not hints.languageExplicit


def test_a_round_reads_its_requests_language_once_and_each_caller_still_gets_its_own_threshold(
    scripted_llm: ScriptedLLM, services: Services, context: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    """langdetect takes ~20 ms a text; the hints, the read by code and how sure the round is all ask about the
    request."""
    detections: list[str] = []
    monkeypatch.setattr(hints, "detect_langs", lambda text: detections.append(text) or real_detect_langs(text))
    hints._most_likely.cache_clear()
    request = "Wie viele Tage hat eine Woche im Kalender?"

    update = _intent(services, context, request)

    assert Intent.model_validate(update["intent"]).language == "de" and update["language_sure"]
    assert len(detections) == 1 and scripted_llm.requests_for("Intent") == []  # read by code alone
    assert hints.detect_language(request) == "de" and hints.detect_language(request, 1.01) is None
    assert len(detections) == 1


# --- the intent node -------------------------------------------------------------------------------------------


def _intent(services: Services, context: Context, prompt: str, **state: Any) -> dict[str, Any]:
    return intent({"prompt": prompt, **state}, runtime(context), services)


@pytest.mark.parametrize("prompt", ["", "   \n\t"])
def test_empty_prompt_is_an_invalid_request(
    scripted_llm: ScriptedLLM, services: Services, context: Context, prompt: str
) -> None:
    with pytest.raises(InvalidRequest, match="prompt is empty"):
        _intent(services, context, prompt)
    assert scripted_llm.requests == []


def test_model_intent_is_merged_with_the_hints(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    scripted_llm.on("Intent", MODEL_INTENT)
    update = _intent(services, context, PRIMES_REQUEST)
    result = Intent.model_validate(update["intent"])
    assert (result.dataType, result.expectedFormat, result.itemCount, result.numberProperty) == (
        "numbers",
        "raw_data",
        1000,
        "prime",
    )
    assert result.successCriteria == ["first 1000", "prime numbers"]
    [request] = scripted_llm.requests_for("Intent")
    assert '"itemCount":1000' in request.text and PRIMES_REQUEST in request.text
    assert (update["round"], update["step"]) == (1, 0)


def test_explicit_german_overrides_the_models_language(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("Intent", {"dataType": "report", "expectedFormat": "markdown", "language": "en"})
    result = Intent.model_validate(_intent(services, context, PDF_REQUEST)["intent"])
    assert result.language == "de" and result.expectedFormat == "docx" and result.dataType == "report"


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [("Summarise the attached text in two sentences.", "markdown"), ("List the planets as JSON.", "json")],
)
def test_a_machine_readable_format_only_when_the_request_asks_for_it(
    scripted_llm: ScriptedLLM, services: Services, context: Context, prompt: str, expected: str
) -> None:
    """SmolLM2 read a summary request as JSON, and the step then failed for not delivering valid JSON."""
    scripted_llm.on("Intent", {"dataType": "analysis", "expectedFormat": "json"})
    assert Intent.model_validate(_intent(services, context, prompt)["intent"]).expectedFormat == expected


def test_user_language_setting_applies_when_the_request_names_none(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("Intent", {"dataType": "text", "expectedFormat": "markdown", "language": "en"})
    context.user_language = "fr"
    assert Intent.model_validate(_intent(services, context, "Explain photosynthesis")["intent"]).language == "fr"


def test_invalid_model_answers_fall_back_to_the_hints(
    llama_llm: ScriptedLLM, llama_services: Services, context: Context
) -> None:
    llama_llm.on("Intent", {"dataType": "poetry"})
    result = Intent.model_validate(_intent(llama_services, context, PRIMES_REQUEST)["intent"])
    assert (result.dataType, result.expectedFormat, result.itemCount, result.numberProperty) == (
        "numbers",
        "raw_data",
        1000,
        "prime",
    )
    assert result.successCriteria == ["exactly 1000 items", "every number is prime"]


def test_an_endpoint_that_fails_every_shape_stops_intent_as_an_outage(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    # Nothing scripted for "Intent": every request, plain text included, is answered with HTTP 500: the endpoint,
    # not a request shape (before, the hints carried on silently, deciding on an answer that never came).
    with pytest.raises(ModelUnavailable, match="answered HTTP 500"):
        _intent(services, context, PRIMES_REQUEST)


def test_input_documents_are_stored_and_listed_for_the_model(
    scripted_llm: ScriptedLLM, services: Services, context: Context, tmp_path: Path
) -> None:
    scripted_llm.on("Intent", {"dataType": "analysis", "expectedFormat": "markdown", "language": "en"})
    source = tmp_path / "notes.txt"
    source.write_text("meeting notes")
    update = _intent(services, context, "Summarise my notes", documents=[str(source)])
    [doc] = update["input_documents"]
    assert (doc["label"], doc["name"], doc["size"]) == ("input", "notes.txt", len("meeting notes"))
    assert "docList:input: notes.txt [text/plain, 13 bytes]" in scripted_llm.requests_for("Intent")[0].text


FINISHED_ROUND: dict[str, Any] = {
    "round": 1,
    "step": 2,
    "selection": {"action": "ai.process"},
    "parameters": {"aiPrompt": "x"},
    "step_error": "old error",
    "result": {"resultLabel": "round1_task1_action2_process"},
    "observation": {"success": True},
    "validation": {"overallSuccess": True},
    "decision": {"decision": "stop", "reason": "done"},
    "hint": "old hint",
    "learnings": ["old lesson"],
    "answer": "2, 3, 5",
    "deliverables": [{"name": "result.md"}],
    "stop_reason": "all success criteria met",
    "status": "completed",
    "totals": {"steps": 2},
    "history": [{"round": 1, "step": 1}],
}


def test_new_prompt_on_an_existing_thread_starts_the_next_round_clean(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("Intent", MODEL_INTENT)
    update = _intent(services, context, PRIMES_REQUEST, **FINISHED_ROUND)
    assert (update["round"], update["step"]) == (2, 0)
    for key in ("selection", "parameters", "step_error", "result", "observation", "validation", "decision", "hint"):
        assert update[key] is None, key
    assert update["learnings"] == [] and update["deliverables"] == []
    assert update["answer"] == "" and update["stop_reason"] == ""
    assert "history" not in update and "telemetry" not in update, "history and telemetry carry over"


def test_new_round_does_not_carry_the_previous_status_and_totals(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("Intent", MODEL_INTENT)
    update = _intent(services, context, PRIMES_REQUEST, **FINISHED_ROUND)
    merged = {**FINISHED_ROUND, **update}
    assert merged.get("status") != "completed"
    assert merged.get("totals") != {"steps": 2}


def test_intent_prompt_hints_are_json(scripted_llm: ScriptedLLM, services: Services, context: Context) -> None:
    scripted_llm.on("Intent", MODEL_INTENT)
    _intent(services, context, PRIMES_REQUEST)
    text = scripted_llm.requests_for("Intent")[0].text
    hints = json.loads(text.split("DETERMINISTIC HINTS (from code, reliable):\n", 1)[1].split("\n", 1)[0])
    assert hints["numberProperty"] == "prime" and "language" not in hints  # no language named: none claimed


def test_short_english_request_is_answered_in_english(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("Intent", {"dataType": "text", "expectedFormat": "markdown", "language": "en"})
    result = Intent.model_validate(_intent(services, context, "Write a haiku about autumn")["intent"])
    assert result.language == "en"


def test_counting_question_about_primes_accepts_the_single_number_answer(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on(
        "Intent",
        {"dataType": "answer", "expectedFormat": "text", "successCriteria": ["the correct count"], "language": "en"},
    )
    result = Intent.model_validate(_intent(services, context, "How many primes are below 1000?")["intent"])
    data = b"168"
    report = run_checks(result, [(ref(label="r", name="result.md", mime="text/markdown", data=data), data)])
    assert report.all_passed, [(c.name, c.detail) for c in report.checks if not c.passed]


def test_an_empty_clarification_from_the_model_keeps_its_analysis_without_a_warning(
    scripted_llm: ScriptedLLM, services: Services, context: Context, caplog: pytest.LogCaptureFixture
) -> None:
    scripted_llm.on("Intent", {**MODEL_INTENT, "language": "fr", "clarification": {"question": "", "suggestions": []}})

    update = _intent(services, context, PRIMES_REQUEST)

    result = Intent.model_validate(update["intent"])
    assert result.language == "fr" and result.clarification is None  # the model's answer, not the hints' "en"
    assert "fell back" not in caplog.text
    assert not [note for note in update["notes"] if "ambiguous request" in note]
