"""One app per server (issue 55, item 2): each server's app is assembled with its engine, which supplies what only
its server needs, and the auth handler reads one shape. The real servers are swept in tests/server and tests/engine;
here the assembly and the shapes alone."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from langgraph_sdk import Auth

from server import assembly, auth, engine
from server.engine_aegra import Aegra
from server.engine_langgraph import LangGraphDev
from server.keys import client_of
from server.registry import DurableRegistry
from server.route_classes import LANGGRAPH_DEV, PAOR_SERVE, Classified

KEY = "assembly-unit-key"
SERVER = Path(__file__).resolve().parents[3] / "server"


def _classes(engine_of_server: Any) -> list[Any]:
    return [layer.cls for layer in assembly.middleware(engine_of_server)]


def test_each_server_gets_paors_middleware_with_its_own_routes_and_only_its_own_extras() -> None:
    """langgraph dev's registry is written to disk before a creation is answered; Aegra keeps its records in
    PostgreSQL and gets no such journal. Each classifies the routes of its own server."""
    dev, aegra = LangGraphDev(), Aegra()
    assert _classes(dev)[:-1] == _classes(aegra) and _classes(dev)[-1] is DurableRegistry
    tables = {
        name: next(layer.kwargs["table"] for layer in assembly.middleware(served) if layer.cls is Classified)
        for name, served in (("dev", dev), ("aegra", aegra))
    }
    assert tables == {"dev": LANGGRAPH_DEV, "aegra": PAOR_SERVE}


def _authenticate(headers: dict[Any, Any]) -> str | None:
    try:
        user = asyncio.run(auth.authenticate(headers))
    except Auth.exceptions.HTTPException:
        return None
    return str(user["identity"])


@pytest.mark.parametrize(
    ("served", "headers"),
    [(LangGraphDev(), {b"x-api-key": KEY.encode()}), (Aegra(), {"x-api-key": KEY})],
    ids=["langgraph dev: bytes headers", "paor serve: str headers"],
)
def test_the_auth_handler_reads_the_key_as_its_server_hands_it_over(
    monkeypatch: pytest.MonkeyPatch, served: Any, headers: dict[Any, Any]
) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEY)
    engine.use(served)
    assert _authenticate(headers) == client_of(KEY)
    assert _authenticate({}) is None


def _refused(handler: Any, value: dict[str, Any], action: str) -> int | None:
    """The status `handler` (an auth handler of server/auth.py) refuses `value` with, for a keyed client; None if it
    lets it through."""
    ctx = SimpleNamespace(user=SimpleNamespace(identity=client_of(KEY)), action=action, resource="threads")
    try:
        asyncio.run(handler(ctx, value))
    except Auth.exceptions.HTTPException as exc:
        return int(exc.status_code)
    return None


#: A run command that writes the thread's working state (a selection the client chose), which the door refuses.
STEERING = {"command": {"update": {"selection": {"action": "code.execute"}}}}


@pytest.mark.parametrize(
    ("served", "state_write", "steering_run", "steering_cron"),
    [
        (
            LangGraphDev(),
            {"thread_id": "t"},  # langgraph-api reports POST /threads/{id}/state by the thread id alone
            {"thread_id": None, "kwargs": STEERING, "temporary": True},
            {"schedule": "* * * * *", "payload": STEERING},
        ),
        (
            Aegra(),
            {"thread_id": "t", "checkpoint_id": "c1"},  # Aegra hands over the body: a state written again
            None,  # Aegra checks each run where it prepares it (server/aegra_runs.py)
            {"schedule": "* * * * *", **STEERING},
        ),
    ],
    ids=["langgraph dev", "paor serve"],
)
def test_the_auth_handler_refuses_state_writes_in_the_shape_of_each_server(
    monkeypatch: pytest.MonkeyPatch,
    no_document_quota: None,
    served: Any,
    state_write: dict[str, Any],
    steering_run: dict[str, Any] | None,
    steering_cron: dict[str, Any],
) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEY)
    engine.use(served)
    assert _refused(auth.update_threads, state_write, "update") == 403
    assert _refused(auth.update_threads, {"thread_id": "t", "metadata": {}}, "update") is None  # a patch: allowed
    if steering_run is not None:
        assert _refused(auth.create_runs, steering_run, "create_run") == 403
    assert _refused(auth.update_crons, steering_cron, "update") == 403


def test_a_tests_engine_leaves_the_in_memory_runtime_as_it_is() -> None:
    """Only the engine of the app langgraph-api loads (`serving`) patches the in-memory runtime and answers with
    langgraph-api's CORS; a test's touches neither."""
    from langgraph_runtime_inmem import ops

    before = ops.Runs.__dict__["next"]
    LangGraphDev().start()
    assert ops.Runs.__dict__["next"] is before
    app = object()
    assert LangGraphDev().answering(app) is app  # type: ignore[arg-type]


def test_no_module_asks_which_server_it_is_in() -> None:
    """What a server needs comes from its engine; a look in `sys.modules` would decide it by what happens to be
    imported. (server/aegra_runs.py walks the modules to put paor's door where Aegra's preparation was imported by
    name: a patch, not a question.)"""
    asking = {
        path.name
        for path in SERVER.glob("*.py")
        if re.search(r"sys\.modules\.get\(|in sys\.modules", path.read_text(encoding="utf-8"))
    }
    assert asking == set()
