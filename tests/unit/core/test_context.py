"""Context: env vars fill fields left at their default; explicit values win; max_steps stays in 1..100."""

from __future__ import annotations

import pytest

from core.context import MAX_STEPS_LIMIT, Context


def test_env_vars_fill_fields_left_at_their_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_MAX_STEPS", "7")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.setenv("PAOR_MODEL", "qwen2.5")
    monkeypatch.setenv("PAOR_TEMPERATURE", "0.3")
    monkeypatch.setenv("PAOR_LEARNING", "off")
    context = Context()
    assert context.max_steps == 7
    assert context.base_url == "http://127.0.0.1:8080/v1"
    assert context.model == "qwen2.5"
    assert context.temperature == 0.3
    assert context.learning is False


def test_paor_base_url_is_the_fallback_for_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_BASE_URL", "http://127.0.0.1:9000/v1")
    assert Context().base_url == "http://127.0.0.1:9000/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    assert Context().base_url == "http://127.0.0.1:8080/v1"


def test_explicit_values_win_over_env_vars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_MAX_STEPS", "7")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    context = Context(max_steps=3, base_url="http://127.0.0.1:1234/v1")
    assert context.max_steps == 3 and context.base_url == "http://127.0.0.1:1234/v1"


def test_empty_env_var_leaves_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_MAX_STEPS", "")
    assert Context().max_steps == 5


@pytest.mark.parametrize(("given", "kept"), [(0, 1), (-4, 1), (1, 1), (100, 100), (1_000, MAX_STEPS_LIMIT)])
def test_max_steps_is_clamped(given: int, kept: int) -> None:
    assert Context(max_steps=given).max_steps == kept


def test_max_steps_from_env_is_clamped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_MAX_STEPS", "5000")
    assert Context().max_steps == MAX_STEPS_LIMIT


def test_malformed_env_var_names_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_MAX_STEPS", "many")
    with pytest.raises(ValueError, match="'max_steps' is not a int: 'many'"):
        Context()


def test_allowed_methods_are_split_and_trimmed() -> None:
    assert Context(allowed_methods=" ai.process, web.search ,,").allowed_method_names == ["ai.process", "web.search"]
    assert Context().allowed_method_names == []


def test_store_defaults_under_paor_home(isolated_home: object) -> None:
    assert str(Context().store_path) == f"{isolated_home}/documents"


def test_explicit_value_equal_to_the_default_still_wins_over_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_MAX_STEPS", "10")
    assert Context.from_env(max_steps=5).max_steps == 5
