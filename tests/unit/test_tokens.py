"""Token budgets are checked exactly, and texts that cannot exceed one never load the encoding."""

from __future__ import annotations

import pytest

from graph import tokens


def test_texts_of_no_more_bytes_than_the_budget_fit_without_counting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "count_tokens", lambda text: pytest.fail("counted a text that fits by its bytes"))
    assert tokens.fit(["héllo", "world"], budget=12)  # 6 + 5 bytes


@pytest.mark.parametrize("texts", [["word " * 400], ["word " * 200, "word " * 200]], ids=["one text", "two texts"])
def test_longer_texts_are_counted_together_in_tokens(texts: list[str]) -> None:
    total = sum(tokens.count_tokens(text) for text in texts)  # about 400, in 2,000 bytes
    assert tokens.fit(texts, budget=total)
    assert not tokens.fit(texts, budget=total - 1)
