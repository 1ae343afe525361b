"""The pieces of issue 51's door, each alone: Aegra's run preparation behind paor's run checks, the route classes,
listings paged, and a client's budget of bytes sent (the same behaviour through real `paor serve` processes is in
tests/engine/test_one_door.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi import HTTPException
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from server import aegra_runs, engine, traffic, urls
from server.engine_langgraph import LangGraphDev
from server.route_classes import Classified, Kind
from server.traffic import Traffic, paged_body, paged_query

KEY = "door-unit-key"


class _Run:
    """Aegra's RunCreate as the door reads it: a pydantic model with a mutable `config`."""

    def __init__(self, **fields: Any) -> None:
        self.fields = fields
        self.config = fields.get("config")

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        return {**self.fields, "config": self.config}


class _User:
    identity = "client-door-unit"


class _Engine:
    one_process = True

    def __init__(self) -> None:
        from server.counters import MemoryCounters

        self.counters = MemoryCounters()

    async def existing_threads(self, owner: str, ids: Any) -> set[str]:
        return set(ids)

    async def runs_in_flight(self, owner: str, at_most: int) -> set[str]:
        return set()


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch, no_document_quota: None) -> Any:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEY)
    engine.use(_Engine())  # type: ignore[arg-type]
    yield
    engine.use(None)


def _prepare_behind_door(run: _Run) -> list[tuple[str, Any]]:
    """The door around a stand-in for Aegra's `_prepare_run`: the calls that reached it."""
    reached: list[tuple[str, Any]] = []

    async def prepare(session: Any, thread_id: str, request: Any, user: Any, **kwargs: Any) -> str:
        reached.append((thread_id, request.config))
        return "run-1"

    async def through() -> None:
        urls.REQUEST_HEADERS.set({"host": "paor.example.org", "x-forwarded-proto": "https"})
        await aegra_runs.behind_door(prepare)(None, "thread-1", run, _User(), initial_status="pending")

    asyncio.run(through())
    return reached


def test_a_run_that_steers_the_graph_is_refused_before_aegra_prepares_it(keyed: Any) -> None:
    """`/commands` `input.respond` with `goto: act` and a forged selection ran code.execute past select."""
    forged = _Run(command={"resume": True, "goto": "act", "update": {"selection": {"action": "code.execute"}}})
    with pytest.raises(HTTPException) as refused:
        _prepare_behind_door(forged)
    assert refused.value.status_code == 403 and "written by its runs only" in str(refused.value.detail)


def test_a_run_over_the_quota_is_refused_with_when_to_retry(keyed: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_MAX_RUNS", "1")

    async def one_running(owner: str, at_most: int) -> set[str]:
        return {"run-0"}

    monkeypatch.setattr(engine.current(), "runs_in_flight", one_running)
    with pytest.raises(HTTPException) as refused:
        _prepare_behind_door(_Run(input={"prompt": "hi"}))
    assert refused.value.status_code == 429 and (refused.value.headers or {}).get("Retry-After") == "5"


def test_an_admitted_run_is_prepared_with_the_clients_host_and_leaves_no_place_held(keyed: Any) -> None:
    [(thread, config)] = _prepare_behind_door(_Run(input={"prompt": "hi"}, config={"configurable": {"x": 1}}))
    assert thread == "thread-1"
    assert config["configurable"] == {"x": 1, "host": "paor.example.org", "x-forwarded-proto": "https"}
    assert asyncio.run(engine.current().counters.reserved(_User.identity)) == set()


def _classified(table: dict[tuple[str, str], Kind]) -> TestClient:
    async def answer(_request: Any) -> JSONResponse:
        return JSONResponse({"ok": True})

    routes = [Route("/things/{thing_id}", answer, methods=["GET", "POST"]), Route("/old", answer)]
    app = Starlette(routes=routes, middleware=[Middleware(Classified, table=table)])
    return TestClient(app)


def test_a_route_nobody_classified_or_one_that_is_off_is_refused_with_why(monkeypatch: pytest.MonkeyPatch) -> None:
    from server import route_classes

    monkeypatch.setitem(route_classes.OFF_BECAUSE, ("GET", "/old"), "the old route is off")
    http = _classified({("GET", "/things/{thing_id}"): Kind.READ, ("GET", "/old"): Kind.OFF})
    assert http.get("/things/7").status_code == 200
    assert http.head("/things/7").status_code == 200  # HEAD is GET's
    unclassified = http.post("/things/7")  # the app serves it; nobody said what it may do
    assert unclassified.status_code == 404 and "not a route paor serves" in unclassified.text
    assert http.get("/old").json() == {"detail": "the old route is off"}


def test_listing_limits_are_capped_at_the_operators_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_MAX_PAGE", "25")
    assert json.loads(paged_body("/threads/search", b'{"limit": 1000, "offset": 5}')) == {"limit": 25, "offset": 5}
    assert paged_body("/threads/search", b'{"limit": 10}') == b'{"limit": 10}'
    assert paged_body("/threads/abc/runs", b'{"input": {"limit": 1000}}') == b'{"input": {"limit": 1000}}'
    assert paged_query(b"limit=1000&offset=2") == b"limit=25&offset=2"
    assert paged_query(b"limit=3") == b"limit=3"


def _metered_app(body: bytes, media_type: str) -> Traffic:
    async def answer(_request: Any) -> PlainTextResponse:
        return PlainTextResponse(body, media_type=media_type)

    return Traffic(Starlette(routes=[Route("/threads/search", answer, methods=["POST"])]))


@pytest.mark.parametrize(("media_type", "second"), [("application/json", 429), ("text/event-stream", 200)])
def test_a_clients_json_answers_are_paid_from_its_budget_of_bytes_sent(
    monkeypatch: pytest.MonkeyPatch, media_type: str, second: int
) -> None:
    """A search flood within every request quota: 8 connections received 6.3 GB in 35 s, another client waited 27×."""
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEY)
    monkeypatch.setenv("PAOR_SERVER_MAX_SENT_MB_PER_S", "0.01")  # 10 KiB a second, bursts of 20 KiB
    monkeypatch.setattr(traffic, "TARPIT_S", 0.0)
    engine.use(LangGraphDev())  # counters of its own
    http = TestClient(_metered_app(b"x" * 200_000, media_type), headers={"x-api-key": KEY})
    assert http.post("/threads/search", json={}).status_code == 200
    refused = http.post("/threads/search", json={})  # its debt: 18 s of its budget
    assert refused.status_code == second, refused.text
    if second == 429:
        assert int(refused.headers["retry-after"]) > 5
