"""The everyday side-by-side requests without a model: the judges against each request's own examples, the
dev/test split, the detector of paor's prompt text in an answer and the targets' figures (bench.everyday,
bench.side_by_side)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.everyday import DEV, EVERYDAY, HALVES, KINDS, TEST, Everyday, _halves, answered, word_numbers
from bench.heldout import HELD_OUT
from bench.models import PROMPTS
from bench.recording import Exchange
from bench.side_by_side import (
    BARE,
    PAOR,
    Outcome,
    echoed,
    everyday_verdicts,
    prompt_runs,
    record,
    summary,
    write_section,
)
from core.schemas import Intent


@pytest.mark.parametrize("case", EVERYDAY, ids=lambda c: f"{c.kind}: {c.text}")
def test_the_good_answer_passes_both_judges_and_the_bad_one_neither(case: Everyday) -> None:
    assert case.lenient(case.good) and case.strict(case.good), case.good
    assert not case.lenient(case.bad) and not case.strict(case.bad), case.bad
    assert not echoed(case.good, case.asked)  # a right answer is never taken for paor's prompt text


def test_the_set_is_wide_and_split_once_into_two_halves_that_share_every_kind() -> None:
    kinds = Counter(c.kind for c in EVERYDAY)
    assert len(KINDS) >= 14 and len(EVERYDAY) >= 72 and min(kinds.values()) >= 4
    assert len(DEV) >= 30 and len(TEST) >= 30 and EVERYDAY == DEV + TEST and HALVES["all"] == EVERYDAY
    assert not {c.text for c in DEV} & {c.text for c in TEST}
    assert len({(c.earlier, c.text) for c in EVERYDAY}) == len(EVERYDAY)
    assert {c.kind for c in DEV} == {c.kind for c in TEST} == set(KINDS)
    assert _halves() == (DEV, TEST)  # by position, the same on every import
    assert [c.kind for c in DEV[: len(KINDS)]] == list(KINDS)  # the first N requests of a half span N kinds


def test_none_is_a_request_paor_was_tuned_or_measured_on() -> None:
    judged = {c.text for c in EVERYDAY}
    assert not judged & {p.text for p in PROMPTS} and not judged & {p.text for p in HELD_OUT}


def test_follow_ups_carry_their_earlier_turns() -> None:
    follow_ups = [c for c in EVERYDAY if c.kind == "follow-up"]
    assert len(follow_ups) >= 4 and all(c.earlier for c in follow_ups)
    assert all(not c.earlier for c in EVERYDAY if c.kind != "follow-up")


def test_numbers_in_words_and_numbers_copied_from_the_request() -> None:
    assert word_numbers("one hundred and forty-four; seven and eight; twenty-five; no one") == [144, 7, 8, 25]
    assert answered("144 divided by 12 is 12.", "What's 144 divided by 12?", 12) == [12]
    assert answered("144 divided by 12 is 14.", "What's 144 divided by 12?", 12) == [14]
    assert answered("3 hours is 3 × 60 = 180 minutes.", "What is 3 hours in minutes?", 180) == [60, 180]


def _case(text: str) -> Everyday:
    return next(c for c in EVERYDAY if c.text == text)


@pytest.mark.parametrize(
    ("text", "answer", "lenient", "strict"),
    [
        ("Is 17 a prime number?", "Yes: it has no divisors other than 1 and itself.", True, True),
        ("Is 17 a prime number?", "Yes and no. No, it is not.", True, False),
        ("Can penguins fly?", "No. Well, yes, a little.", True, False),
        ("How many legs does a spider have?", "A spider has 8 legs and 2 body parts.", True, False),
        ("What is 3 hours in minutes?", "3 hours × 60 = 180 minutes.", True, True),
        ("What is 3 hours in minutes?", "180 or maybe 200 minutes.", True, False),
        ("Name three fruits.", "Apple, banana, cherry and grape.", True, False),
        ("Name three fruits.", "1. Apple\n2. Banana\n3. Cherry", True, True),
        ("Write one sentence about the moon.", "The moon is bright. It shines at night.", True, False),
        ("What colour is the sky on a clear day?", "Blue, and orange at sunset.", True, False),
        ("Sort these numbers from smallest to largest: 9, 2, 7, 4", "9, 2, 7, 4 sorted: 2, 4, 7, 9", True, True),
        ("Sort these numbers from smallest to largest: 9, 2, 7, 4", "2, 4, 7, 9 (or 9, 7, 4, 2)", True, False),
        ("And the day after that?", "Monday, Tuesday, then Wednesday.", True, True),
    ],
)
def test_the_strict_judge_refuses_what_contradicts_the_right_content(
    text: str, answer: str, lenient: bool, strict: bool
) -> None:
    case = _case(text)
    assert (case.lenient(answer), case.strict(answer)) == (lenient, strict)


def test_the_detector_finds_paor_s_prompt_text_but_not_the_user_s_own_words() -> None:
    asked = "Which animal barks?"
    assert echoed("The previous answer was not accepted: the dog", asked)
    description = Intent.model_fields["language"].description or ""
    assert echoed(f"Answer: {description}", asked)
    assert not echoed("The dog barks; it is a loyal animal that lives with people.", asked)
    run = sorted(prompt_runs())[0]  # words of a template, typed by the user in their own request
    assert echoed(f"Sure. {run}.", asked) and not echoed(f"Sure. {run}.", f"Please repeat: {run}")
    assert not echoed("Stopped without meeting all criteria", "Say 'stopped without meeting all criteria'.")


def _outcome(system: str, text: str, answer: str, seconds: float, requests: int) -> Outcome:
    return Outcome(system, _case(text), answer, seconds, [Exchange(system, [1, 2], 100, 1)] * requests)


def test_the_targets_count_both_judges_few_requests_echoes_and_the_time_ratio() -> None:
    outcomes = [
        _outcome(PAOR, "What is seven plus eight?", "15", 3.0, 1),
        _outcome(BARE, "What is seven plus eight?", "15, or 16", 2.0, 1),
        _outcome(PAOR, "Name three fruits.", "Apple, banana, cherry, grape.", 4.0, 2),
        _outcome(BARE, "Name three fruits.", "Apple, banana and cherry.", 2.0, 1),
        _outcome(PAOR, "Is 21 an even number?", "Best attempt: no", 5.0, 3),
        _outcome(BARE, "Is 21 an even number?", "Yes.", 1.0, 1),
    ]
    totals = summary(outcomes)
    assert (totals[PAOR]["correct"], totals[PAOR]["strict"]) == (3, 2)
    assert (totals[BARE]["correct"], totals[BARE]["strict"]) == (2, 1)
    assert totals[PAOR]["few_requests"] == pytest.approx(2 / 3) and totals[BARE]["few_requests"] == 1.0
    assert (totals[PAOR]["echoes"], totals[BARE]["echoes"]) == (1, 0)
    lenient, strict, time, few, echoes = everyday_verdicts(outcomes)
    assert "paor 3/3" in lenient and "→ MET" in lenient
    assert "paor 2/3" in strict and "→ MET" in strict
    assert "ratio 2.0×" in time and "NOT MET" in time  # median 4.0 s against 2.0 s
    assert "67%" in few and "NOT MET" in few
    assert "paor 1" in echoes and "NOT MET" in echoes
    saved = record(outcomes[4])
    assert saved["echo"] == "Best attempt" and saved["strict"] is True and saved["earlier"] == []


def test_a_follow_up_s_record_keeps_its_earlier_turns() -> None:
    outcome = _outcome(PAOR, "Now add 10 to that.", "56 + 10 = 66", 1.0, 1)
    outcome.earlier_answers = ["56"]
    saved = record(outcome)
    assert saved["earlier"] == ["What is 7 times 8?"] and saved["earlier_answers"] == ["56"]
    assert saved["correct"] and saved["strict"]


def test_each_set_and_half_keeps_its_own_section_of_the_docs_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    write_section(page, "M", "### M\nsix")
    write_section(page, "M", "### M\ntest half", "everyday test")
    write_section(page, "M", "### M\ndev half", "everyday dev")
    write_section(page, "M", "### M\ntest half again", "everyday test")
    text = page.read_text(encoding="utf-8")
    assert "six" in text and "dev half" in text and "test half again" in text and "test half\n" not in text
