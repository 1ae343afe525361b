"""validate + checks: code decides what it can (code vs data, counts, primes, format, language); the model the rest."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sympy import prime, primerange

from core.context import Context
from core.errors import ModelUnavailable
from core.schemas import (
    PREVIEW_LIMIT,
    SNIPPET_CHARS,
    ActionResult,
    ContentValidation,
    Observation,
    RefinementDecision,
    dump,
)
from nodes.checks import extract_numbers, looks_like_code, run_checks
from nodes.services import Services
from nodes.validate import build_observation, validate
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.core.factories import delivered, primes_intent, ref, runtime, state, summary_intent
from tools.documents import DocumentStore

FIRST_1000 = list(primerange(2, int(prime(1000)) + 1))
PRIMES_TEXT = "Here are the first 1000 prime numbers:\n\n" + ", ".join(map(str, FIRST_1000))
PYTHON = (
    "```python\ndef primes(n):\n    found = []\n    k = 2\n    while len(found) < n:\n"
    "        if all(k % p for p in found):\n            found.append(k)\n        k += 1\n"
    "    return found\n\nprint(primes(1000))\n```"
)
JAVASCRIPT = (
    "function primes(n) {\n  const found = [];\n  let k = 2;\n  while (found.length < n) {\n"
    "    if (found.every(p => k % p)) found.push(k);\n    k++;\n  }\n  return found;\n}\n"
    "console.log(primes(1000));\n"
)
ENGLISH_SUMMARY = (
    "The three reports describe how the company grew its revenue during the last year. The first report explains "
    "the sales strategy, the second one covers the new products and the third one discusses the risks for the "
    "coming year, including higher costs and new competitors in the market."
)
GERMAN_SUMMARY = (
    "Die drei Berichte beschreiben, wie das Unternehmen im letzten Jahr seinen Umsatz gesteigert hat. Der erste "
    "Bericht erklärt die Vertriebsstrategie, der zweite behandelt die neuen Produkte und der dritte bespricht die "
    "Risiken für das kommende Jahr, darunter höhere Kosten und neue Wettbewerber auf dem Markt."
)


def _failed(report: Any) -> dict[str, str]:
    return {c.name: c.detail for c in report.checks if not c.passed}


# --- code vs data --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [PYTHON, JAVASCRIPT], ids=["python", "javascript"])
def test_code_is_recognised(code: str) -> None:
    assert looks_like_code(code)


@pytest.mark.parametrize(
    "text", [PRIMES_TEXT, "1. 2\n2. 3\n3. 5", ENGLISH_SUMMARY, "| n | prime |\n|---|---|\n| 1 | 2 |"]
)
def test_data_and_prose_are_not_code(text: str) -> None:
    assert not looks_like_code(text)


def test_code_delivered_when_numbers_were_asked_fails_the_data_type_check() -> None:
    report = run_checks(primes_intent(), [delivered(PYTHON)])
    assert _failed(report)["data type"] == "delivered code, not numbers"
    assert report.score <= 0.2
    assert report.verdicts == {0: False, 1: False}


# --- numbers -------------------------------------------------------------------------------------------------


def test_extract_numbers_skips_the_prose_line_before_the_data() -> None:
    assert extract_numbers("Here are the first 1000 prime numbers:\n\n2, 3, 5, 7") == [2, 3, 5, 7]


def test_extract_numbers_ignores_numbered_list_markers() -> None:
    assert extract_numbers("1. 2\n2. 3\n3) 5\n- 7\n10. 29") == [2, 3, 5, 7, 29]


def test_exactly_the_first_1000_primes_pass_every_check() -> None:
    report = run_checks(primes_intent(), [delivered(PRIMES_TEXT)])
    assert report.all_passed, _failed(report)
    assert report.verdicts == {0: True, 1: True}
    assert report.get("number property") is not None
    assert report.get("number property").detail == "exactly the first primes in order"  # type: ignore[union-attr]


def test_item_count_mismatch_is_flagged() -> None:
    report = run_checks(primes_intent(), [delivered(", ".join(map(str, FIRST_1000[:999])))])
    assert _failed(report)["item count"] == "999 numbers delivered, 1000 asked"
    assert report.verdicts[0] is False


def test_a_non_prime_among_the_numbers_is_flagged() -> None:
    numbers = [*FIRST_1000[:-1], 7921]  # 89², in place of the 1000th prime
    report = run_checks(primes_intent(), [delivered(", ".join(map(str, numbers)))])
    detail = _failed(report)["number property"]
    assert "1 numbers are not prime" in detail and "7921" in detail
    assert report.verdicts == {0: True, 1: False}


def test_primes_that_are_not_the_first_ones_are_flagged() -> None:
    report = run_checks(primes_intent(), [delivered(", ".join(map(str, [*FIRST_1000[1:], 7927 + 6])))])
    assert "number property" in _failed(report)


def test_too_many_numbers_fail_the_count_even_when_the_first_ones_are_right() -> None:
    report = run_checks(primes_intent(), [delivered(", ".join(map(str, [*FIRST_1000, 7933])))])
    assert _failed(report)["item count"] == "1001 numbers delivered, 1000 asked"
    assert report.verdicts[0] is False


def test_the_right_primes_in_the_wrong_order_are_flagged() -> None:
    shuffled = [FIRST_1000[1], FIRST_1000[0], *FIRST_1000[2:]]  # 3, 2, 5, …: the right set, not in order
    report = run_checks(primes_intent(), [delivered(", ".join(map(str, shuffled)))])
    assert _failed(report) == {"number property": "not exactly the first primes in order"}
    assert report.verdicts == {0: True, 1: False}


def test_a_repeated_prime_is_flagged_with_or_without_an_asked_count() -> None:
    repeated = [*FIRST_1000[:999], FIRST_1000[998]]  # 1000 numbers, the last prime twice, the 1000th missing
    report = run_checks(primes_intent(), [delivered(", ".join(map(str, repeated)))])
    assert _failed(report) == {"number property": f"1 numbers are repeated (e.g. [{FIRST_1000[998]}])"}
    uncounted = run_checks(primes_intent(itemCount=None), [delivered("2, 3, 3, 5, 7")])
    assert _failed(uncounted) == {"number property": "1 numbers are repeated (e.g. [3])"}
    assert run_checks(primes_intent(itemCount=None), [delivered("2, 3, 5, 7")]).all_passed


def test_no_numbers_at_all_is_flagged() -> None:
    report = run_checks(primes_intent(), [delivered("I could not compute the numbers, sorry about that.")])
    assert _failed(report)["numbers"] == "no numbers found"


def test_list_item_count_for_non_numeric_lists() -> None:
    intent = summary_intent(dataType="list", itemCount=3, successCriteria=["3 ideas"])
    report = run_checks(intent, [delivered("- one idea\n- two ideas\n")])
    assert _failed(report)["item count"] == "2 list items delivered, 3 asked"
    assert report.get("item count").suggestion == "Deliver exactly 3 items as a list."  # type: ignore[union-attr]
    complete = run_checks(intent, [delivered("- one idea\n- two ideas\n- three ideas\n")])
    assert complete.all_passed and complete.verdicts == {0: True}
    assert complete.get("item count").suggestion == ""  # type: ignore[union-attr]


# --- formats and language ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "text", "ok"),
    [
        ("json", '{"primes": [2, 3, 5]}', True),
        ("json", '{"primes": [2, 3, 5],}', False),
        ("csv", "n,prime\n1,2\n2,3\n", True),
        ("csv", "n,prime\n1\n2,3,4\n", False),
        ("csv", "2,3,5,7\n", True),  # one row is a table too
    ],
)
def test_json_and_csv_deliverables_must_parse(fmt: str, text: str, ok: bool) -> None:
    intent = summary_intent(dataType="table", expectedFormat=fmt, successCriteria=[f"valid {fmt}"])
    report = run_checks(intent, [delivered(text, mime="application/json" if fmt == "json" else "text/csv")])
    check = report.get("format")
    assert check is not None and check.passed is ok
    assert (check.detail, check.suggestion) == (
        (f"valid {fmt.upper()}", "") if ok else (f"no valid {fmt.upper()}", f"Deliver valid {fmt.upper()}.")
    )
    assert report.verdicts == {0: ok}


def test_csv_that_is_not_utf8_fails_the_format_check() -> None:
    data = "n,prime\n1,2\n".encode("utf-16")
    intent = summary_intent(dataType="table", expectedFormat="csv", successCriteria=["valid csv"])
    report = run_checks(intent, [(ref(name="t.csv", mime="text/csv", data=data), data)])
    assert _failed(report) == {"format": "no valid CSV"}


def test_docx_asked_but_only_markdown_delivered_fails_the_format_check() -> None:
    report = run_checks(summary_intent(expectedFormat="docx"), [delivered(ENGLISH_SUMMARY)])
    assert "not delivered" in _failed(report)["format"]


def test_german_text_when_english_was_asked_is_flagged() -> None:
    report = run_checks(summary_intent(language="en"), [delivered(GERMAN_SUMMARY)])
    assert _failed(report)["language"] == "written in de, not en"


def test_german_text_when_german_was_asked_passes() -> None:
    report = run_checks(summary_intent(language="de"), [delivered(GERMAN_SUMMARY)])
    assert report.get("language").passed  # type: ignore[union-attr]


def test_nothing_delivered_is_flagged() -> None:
    report = run_checks(primes_intent(), [delivered("   ")])
    assert _failed(report) == {"non-empty": "nothing was delivered"}


# --- the validate node ---------------------------------------------------------------------------------------


def _validate(services: Services, context: Context, intent: Any, texts: list[str]) -> tuple[Observation, Any]:
    store = DocumentStore(context.store_path)
    label = "round1_task1_action1_process"
    docs = [store.put_text(t, label=label, name=f"result{i}.md") for i, t in enumerate(texts)]
    result = ActionResult(success=True, resultLabel=label, documents=docs)
    update = validate(state(intent=intent, step=1, result=dump(result)), runtime(context), services)
    return Observation.model_validate(update["observation"]), ContentValidation.model_validate(update["validation"])


def test_primes_scenario_is_decided_by_code_without_asking_the_model(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    observation, validation = _validate(services, context, primes_intent(), [PRIMES_TEXT])
    assert validation.overallSuccess and validation.qualityScore == 1.0
    assert validation.successCriteriaMet == [True, True]
    assert observation.success and observation.documentsCount == 1
    assert scripted_llm.requests == [], "no ContentJudgement request when code decided every criterion"


def test_code_for_numbers_is_reported_with_a_suggestion(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    _, validation = _validate(services, context, primes_intent(), [PYTHON])
    assert not validation.overallSuccess and not validation.dataTypeMatch
    assert "delivered code, not numbers" in validation.issues
    assert any("not for code" in s for s in validation.improvementSuggestions)
    assert scripted_llm.requests == []


def test_criterion_code_cannot_decide_goes_to_one_judge_request(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.85, "issues": []})
    _, validation = _validate(services, context, summary_intent(), [ENGLISH_SUMMARY])
    [judge] = scripted_llm.requests_for("ContentJudgement")
    assert "1. the summary covers the three PDFs" in judge.text
    assert "<untrusted" in judge.text and "revenue" in judge.text
    assert '"qualityRequirements":{"accuracy"' in judge.text  # the thresholds it judges against
    assert scripted_llm.requests == [judge]
    assert validation.overallSuccess and validation.successCriteriaMet == [True]
    assert validation.qualityScore == 0.85
    verdicts = judge.body["response_format"]["json_schema"]["schema"]["properties"]["criteriaMet"]
    assert verdicts["minItems"] == verdicts["maxItems"] == 1  # a grammar gives exactly one verdict per criterion


def test_judge_verdict_against_the_criterion_fails_validation(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    scripted_llm.on(
        "ContentJudgement",
        {"criteriaMet": [False], "qualityScore": 0.4, "issues": ["only two PDFs are covered"]},
    )
    _, validation = _validate(services, context, summary_intent(), [ENGLISH_SUMMARY])
    assert not validation.overallSuccess and "only two PDFs are covered" in validation.issues


def test_judge_is_not_asked_when_code_already_found_a_failure(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    _, validation = _validate(services, context, summary_intent(), [GERMAN_SUMMARY])
    assert scripted_llm.requests == []
    assert not validation.overallSuccess and validation.successCriteriaMet == [False]
    assert "written in de, not en" in validation.issues


def test_failed_action_is_invalid_without_reading_or_asking(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    result = ActionResult(success=False, resultLabel="round1_task1_action1_process", error="ToolFailed: boom")
    update = validate(state(step=1, result=dump(result)), runtime(context), services)
    validation = ContentValidation.model_validate(update["validation"])
    assert not validation.overallSuccess and validation.qualityScore == 0.0
    assert validation.issues == ["ToolFailed: boom"] and validation.successCriteriaMet == [False, False]
    assert Observation.model_validate(update["observation"]).notes == ["ToolFailed: boom"]
    assert scripted_llm.requests == []


def test_observation_keeps_at_most_five_short_previews() -> None:
    docs = [delivered(f"document {i} " + "word " * 50_000, name=f"d{i}.md") for i in range(8)]
    result = ActionResult(success=True, resultLabel="r", documents=[d for d, _ in docs], notes=["n" * 5000] * 9)
    observation = build_observation(result, docs)
    assert observation.documentsCount == 8
    assert len(observation.previews) == PREVIEW_LIMIT
    assert all(len(p.snippet) <= SNIPPET_CHARS for p in observation.previews)
    assert len(observation.notes) <= 5 and all(len(n) <= 300 for n in observation.notes)
    assert len(observation.model_dump_json()) < 5_000


def test_binary_documents_are_previewed_by_type_and_size_only() -> None:
    data = b"%PDF-1.7 \x00\x01 binary"
    doc = ref(name="report.pdf", mime="application/pdf", data=data)
    observation = build_observation(ActionResult(success=True, resultLabel="r", documents=[doc]), [(doc, data)])
    assert observation.previews[0].snippet == f"[application/pdf, {len(data)} bytes]"


def test_an_unavailable_judge_stops_validate_as_an_outage_never_a_verdict(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    # Nothing scripted for "ContentJudgement": the endpoint answers HTTP 500 to every shape, plain text included.
    with pytest.raises(ModelUnavailable, match="answered HTTP 500"):
        _validate(services, context, summary_intent(), [ENGLISH_SUMMARY])


@pytest.mark.parametrize("count", [1000, 10])
def test_numbers_after_a_prose_lead_in_on_the_same_line_are_the_data(count: int) -> None:
    text = f"The first {count} prime numbers are: " + ", ".join(map(str, FIRST_1000[:count])) + "."
    report = run_checks(primes_intent(itemCount=count, successCriteria=[f"first {count}"]), [delivered(text)])
    assert report.all_passed, _failed(report)


def test_pretty_printed_json_data_is_not_mistaken_for_code() -> None:
    text = json.dumps({"Austria": "Vienna", "Belgium": "Brussels", "Croatia": "Zagreb"}, indent=2)
    intent = summary_intent(dataType="table", expectedFormat="json", successCriteria=["valid json"])
    report = run_checks(intent, [delivered(text, mime="application/json", name="result.json")])
    assert report.all_passed, _failed(report)


def test_the_judge_answers_the_refinement_decision_in_the_same_call(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    verdict = {
        "criteriaMet": [False],
        "qualityScore": 0.4,
        "issues": ["the PDFs are not named"],
        "improvementSuggestions": ["Name each PDF in its own paragraph."],
    }
    scripted_llm.on("ContentJudgement", {**verdict, "decision": "continue"}, {**verdict, "decision": "stop"})
    store = DocumentStore(context.store_path)
    doc = store.put_text(ENGLISH_SUMMARY, label="round1_task1_action1_process", name="result.md")
    result = dump(ActionResult(success=True, resultLabel="round1_task1_action1_process", documents=[doc]))
    current = state(intent=summary_intent(), step=2, result=result)

    first = RefinementDecision.model_validate(validate(current, runtime(context), services)["decision"])
    assert (first.decision, first.reason, first.nextHint) == (
        "continue",
        "the PDFs are not named",
        "Name each PDF in its own paragraph.",
    )
    second = RefinementDecision.model_validate(validate(current, runtime(context), services)["decision"])
    assert second.decision == "stop" and second.nextHint is None
    judge = scripted_llm.requests_for("ContentJudgement")[0]
    assert "step 2 of at most 5" in judge.text and "decision" in judge.system
    assert [r.route for r in scripted_llm.requests] == ["ContentJudgement"] * 2  # one request per validation


def test_no_proposal_when_code_decided_everything(
    scripted_llm: ScriptedLLM, services: Services, context: Context
) -> None:
    store = DocumentStore(context.store_path)
    doc = store.put_text(PYTHON, label="round1_task1_action1_process", name="result.md")
    result = dump(ActionResult(success=True, resultLabel="round1_task1_action1_process", documents=[doc]))
    update = validate(state(step=1, result=result), runtime(context), services)
    assert "decision" not in update and scripted_llm.requests == []


def test_each_failed_check_suggests_the_fix_and_passed_checks_suggest_nothing() -> None:
    good = run_checks(primes_intent(), [delivered(PRIMES_TEXT)])
    assert {c.name: c.suggestion for c in good.checks} == {
        "data type": "",
        "format": "",
        "item count": "",
        "number property": "",
    }
    none = run_checks(primes_intent(), [delivered("No numbers here, sorry about that.")])
    assert none.get("numbers").suggestion == "Deliver the numbers themselves."  # type: ignore[union-attr]
    short = run_checks(primes_intent(), [delivered(", ".join(map(str, FIRST_1000[:999])))])
    assert short.get("item count").suggestion == "Deliver exactly 1000 numbers."  # type: ignore[union-attr]
    wrong = run_checks(primes_intent(), [delivered(", ".join(map(str, [*FIRST_1000[:-1], 7921])))])
    assert wrong.get("number property").suggestion == "Deliver each correct prime number once."  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "asked", [{"dataType": "code", "expectedFormat": "markdown"}, {"dataType": "analysis", "expectedFormat": "code"}]
)
def test_code_passes_the_data_type_check_when_code_was_asked(asked: dict[str, str]) -> None:
    report = run_checks(summary_intent(**asked, successCriteria=["a python program"]), [delivered(PYTHON)])
    check = report.get("data type")
    assert check is not None and check.passed and check.detail == "code was asked for"


def test_a_delivered_docx_passes_the_format_check_without_a_suggestion() -> None:
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    intent = summary_intent(expectedFormat="docx", successCriteria=["a Word document"])
    report = run_checks(intent, [delivered(ENGLISH_SUMMARY), (ref(name="r.docx", mime=mime, data=b"PK"), b"PK")])
    check = report.get("format")
    assert check is not None and check.passed and check.suggestion == ""
    assert check.detail == f"a docx document was delivered (text/markdown, {mime})"
    assert report.verdicts == {0: True}


def test_numbers_get_no_language_check_and_prose_in_another_language_is_named_with_the_fix() -> None:
    mixed = run_checks(primes_intent(), [delivered(GERMAN_SUMMARY + "\n\n" + ", ".join(map(str, FIRST_1000)))])
    assert mixed.get("language") is None and mixed.all_passed
    german = run_checks(summary_intent(successCriteria=["in English"]), [delivered(GERMAN_SUMMARY)])
    assert german.get("language").suggestion == "Write the deliverable in language 'en'."  # type: ignore[union-attr]
    english = run_checks(summary_intent(successCriteria=["in English"]), [delivered(ENGLISH_SUMMARY)])
    assert english.get("language").suggestion == "" and english.verdicts == {0: True}  # type: ignore[union-attr]


def test_criteria_get_the_verdict_of_the_checks_they_talk_about() -> None:
    nothing = run_checks(primes_intent(), [delivered("I could not compute the numbers, sorry about that.")])
    assert nothing.verdicts == {0: False, 1: False}  # "first 1000" and "prime numbers" both need numbers
    all_prime = run_checks(primes_intent(successCriteria=["all prime"]), [delivered("No luck today, sorry.")])
    assert all_prime.verdicts == {0: False}  # no numbers at all: "all prime" is not met
    prose_intent = summary_intent(successCriteria=["plain prose, no code", "covers the risks"])
    prose = run_checks(prose_intent, [delivered(PYTHON)])
    assert prose.verdicts == {0: False}  # the code criterion is decided; the other one goes to the model
