"""The server's graph is built in the server's trust zone; no run configuration can leave it."""

from __future__ import annotations

import hashlib
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from core.context import Context
from core.errors import InputRefused, ModelUnavailable
from core.runtime import context_of
from graph.builder import build_graph
from graph.instrument import instrumented
from nodes.services import Services
from server.policy import CAPPED_LIMITS, operator_context, server_services
from server.served import graph as server_graph
from tests.unit.core.factories import runtime, state
from tools.base import ToolDeps
from tools.document.inputs import InputDocument, iter_inputs
from tools.documents import DocumentStore


def test_context_fields_that_open_files_or_addresses_keep_the_operators_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAOR_STORE_DIR", str(tmp_path / "operator-store"))
    monkeypatch.setenv("PAOR_SERVER_DOCUMENTS_DIR", str(tmp_path / "operator-folder"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
    caller = Context(
        model="caller-model",
        max_steps=3,
        documents_dir="/",
        store_dir=str(tmp_path / "caller-store"),
        fetch_allowlist="169.254.169.254",
        base_url="https://collector.example/v1",
    )
    seen: list[Context] = []

    def spy(current: Any, rt: Runtime[Context], svc: Services) -> dict[str, Any]:
        seen.append(context_of(rt))
        return {}

    instrumented("select", spy, server_services())(state(), runtime(caller))

    [effective] = seen
    assert (effective.documents_dir, effective.fetch_allowlist) == (str(tmp_path / "operator-folder"), "")
    assert effective.store_dir == str(tmp_path / "operator-store" / "server"), "the server's folder of the store"
    assert effective.base_url == "http://127.0.0.1:8080/v1", "the server's model key goes to its own endpoint only"
    assert (effective.model, effective.max_steps) == ("caller-model", 3), "the rest is the caller's to choose"


def test_without_an_operator_folder_server_tools_read_no_file_by_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "secret.txt").write_text("in the server's working directory", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PAOR_SERVER_DOCUMENTS_DIR", raising=False)
    services = server_services()
    context = services.pin(Context(documents_dir=str(tmp_path))) if services.pin else Context()
    deps = ToolDeps(llm=None, store=DocumentStore(tmp_path / "store"), context=context, paths=services.tool_paths)  # type: ignore[arg-type]

    [refused] = iter_inputs(deps, ["secret.txt"])
    [read] = iter_inputs(replace(deps, paths=True), ["secret.txt"])

    assert refused == (
        "secret.txt is a file path, and this server reads no files by path: name documents by docList:/docItem: "
        "reference"
    )
    assert isinstance(read, InputDocument) and read.data == b"in the server's working directory", "local zone reads"


def test_the_server_graph_refuses_host_paths_and_build_graph_accepts_them(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("local file", encoding="utf-8")
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    request = {"prompt": "Summarise this", "documents": [str(secret)]}
    context = Context(model="offline", base_url="http://127.0.0.1:9/v1", max_retries=0)

    with pytest.raises(InputRefused, match="PAOR_SERVER_DOCUMENTS_DIR is not set"):
        server_graph.invoke(request, context=context)

    stored = context.store_path / digest[:2] / digest[2:4] / digest
    assert not stored.exists()

    # The local graph ingests the file, and only then fails on the unreachable model.
    with pytest.raises(ModelUnavailable, match="refused the connection"):
        build_graph(checkpointer=InMemorySaver()).invoke(request, {"configurable": {"thread_id": "t"}}, context=context)
    assert stored.read_bytes() == secret.read_bytes()


# --- the operator's limits are caps ------------------------------------------------------------------------------

#: Context's numeric fields that are no resource limit: a client's to choose.
NOT_LIMITS = {"temperature", "quality_threshold"}


def test_every_numeric_context_field_is_a_capped_limit_or_named_as_none() -> None:
    numeric = {f.name for f in fields(Context) if f.type in ("int", "float", int, float)}
    assert numeric - NOT_LIMITS == set(CAPPED_LIMITS), "a new limit in core/context.py needs a cap (server/policy.py)"


def test_a_client_may_lower_every_limit_but_never_raise_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_CODE_MEMORY_MB", "512")
    monkeypatch.setenv("PAOR_TOOL_TIMEOUT_S", "60")
    operator = Context()
    greedy = Context(**{name: 10**9 for name in CAPPED_LIMITS})
    raised = operator_context(greedy)
    assert {name: getattr(raised, name) for name in CAPPED_LIMITS} == {n: getattr(operator, n) for n in CAPPED_LIMITS}
    assert (raised.code_memory_mb, raised.tool_timeout_s, raised.max_steps) == (512, 60.0, 5)

    modest = {"max_steps": 2, "code_memory_mb": 128, "tool_timeout_s": 7.5, "token_budget": 1000, "answer_tokens": 99}
    lowered = operator_context(Context(**modest))  # type: ignore[arg-type]
    assert {name: getattr(lowered, name) for name in modest} == modest
    assert type(lowered.code_memory_mb) is int and type(lowered.tool_timeout_s) is float


@pytest.mark.parametrize("sent", ["200", "1e9", "inf", "nan", "-inf", -1, "-0.5", "lots", None, [1]])
def test_a_limit_that_is_no_number_below_the_cap_is_the_operators(sent: object) -> None:
    effective = operator_context(Context(tool_timeout_s=sent))  # type: ignore[arg-type]
    assert effective.tool_timeout_s == (200.0 if sent == "200" else Context().tool_timeout_s)


@pytest.mark.parametrize(
    ("operator", "client", "effective"),
    [
        ("ai.process,web.search", "", "ai.process,web.search"),
        ("ai.process,web.search", "code.execute", "ai.process,web.search"),
        ("ai.process,web.search", "web.search, code.execute", "web.search"),
        ("", "code.execute", "code.execute"),
    ],
)
def test_a_client_allows_actions_only_within_the_operators_list(
    monkeypatch: pytest.MonkeyPatch, operator: str, client: str, effective: str
) -> None:
    monkeypatch.setenv("PAOR_ALLOWED_METHODS", operator)
    assert operator_context(Context(allowed_methods=client)).allowed_methods == effective


def test_a_client_may_switch_learning_off_but_not_on(monkeypatch: pytest.MonkeyPatch) -> None:
    assert operator_context(Context(learning=False)).learning is False
    monkeypatch.setenv("PAOR_LEARNING", "false")
    assert operator_context(Context(learning=True)).learning is False


def test_a_negative_memory_limit_is_no_way_around_the_cap() -> None:
    """setrlimit takes -1 for "no limit": a client's -1 MB must leave the sandbox the operator's memory cap."""
    effective = operator_context(Context(code_memory_mb=-1))
    assert effective.code_memory_mb == Context().code_memory_mb > 0
