"""Token budgets are checked exactly, and texts that cannot exceed one never load the encoding."""

from __future__ import annotations

import pytest

from core import tokens


def test_texts_of_no_more_bytes_than_the_budget_fit_without_counting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "count_tokens", lambda text: pytest.fail("counted a text that fits by its bytes"))
    assert tokens.fit(["héllo", "world"], budget=12)  # 6 + 5 bytes


@pytest.mark.parametrize("texts", [["word " * 400], ["word " * 200, "word " * 200]], ids=["one text", "two texts"])
def test_longer_texts_are_counted_together_in_tokens(texts: list[str]) -> None:
    total = sum(tokens.count_tokens(text) for text in texts)  # about 400, in 2,000 bytes
    assert tokens.fit(texts, budget=total)
    assert not tokens.fit(texts, budget=total - 1)


def test_the_conversation_stops_counting_once_its_budget_is_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 45: every run of a thread counted each of its earlier turns whole — 200,000-character prompts, twenty
    turns deep — while another client waited; turns past the budget are cut to a line whatever their length."""
    from langchain_core.messages import AIMessage, HumanMessage

    from prompts import render

    counted: list[int] = []
    monkeypatch.setattr(render, "count_tokens", lambda text: counted.append(len(text)) or len(text))
    turns = [HumanMessage(content="y" * 200_000), AIMessage(content="short"), HumanMessage(content="z" * 200_000)]
    shown = render.render_conversation(turns).splitlines()
    assert counted == [200_000], "the newest turn spends the budget; the older ones are not counted"
    assert [line[:6] for line in shown] == ["user: ", "assist", "user: "] and all(len(line) < 200 for line in shown)
