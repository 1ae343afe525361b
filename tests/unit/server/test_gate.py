"""The key gate around the whole server process, and the one key check it shares with LangGraph's auth handler.

The real `langgraph dev` is swept route by route in tests/server/test_shared_server.py; here a small Starlette
app stands for it, with the same kinds of routes: open liveness, a development route, an ordinary one, a WebSocket.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocket

from core.schemas import DocumentRef
from server.gate import KeyGate, is_development_route
from server.keys import client_of, identity_of
from server.urls import document_url

KEYS = "key-one-5e1a, key-two-99c0"


async def answer(request: Request) -> PlainTextResponse:
    return PlainTextResponse(f"{request.method} {request.url.path}")


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text("open")
    await websocket.close()


def _client(**kwargs: object) -> TestClient:
    routes = [Route(path, answer, methods=["GET", "POST"]) for path in ("/ok", "/threads", "/internal/truncate")]
    app = Starlette(
        routes=[*routes, Route("/deploy", answer, methods=["POST"]), WebSocketRoute("/threads/stream", echo)],
        middleware=[
            Middleware(KeyGate),
            Middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["*"], allow_headers=["*"]),
        ],
    )
    return TestClient(app, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEYS)


@pytest.mark.usefixtures("keyed")
@pytest.mark.parametrize("key", [None, "", "wrong", "key-one-5e1", "key-one-5e1a0", "key-one-5e1a, key-two-99c0"])
def test_without_a_valid_key_every_path_is_401(key: str | None) -> None:
    headers = {} if key is None else {"x-api-key": key}
    with _client() as client:
        for method, path in (("GET", "/threads"), ("POST", "/internal/truncate"), ("POST", "/deploy"), ("GET", "/x")):
            response = client.request(method, path, headers=headers)
            assert response.status_code == 401, (method, path)
            assert response.json() == {"detail": "missing or wrong x-api-key (PAOR_SERVER_API_KEY is set)"}


@pytest.mark.usefixtures("keyed")
def test_a_valid_key_passes_except_on_the_development_routes() -> None:
    with _client() as client:
        for key in ("key-one-5e1a", "key-two-99c0", " key-two-99c0 "):
            assert client.get("/threads", headers={"x-api-key": key}).text == "GET /threads"
        for method, path in (("POST", "/internal/truncate"), ("POST", "/deploy")):
            refused = client.request(method, path, headers={"x-api-key": "key-one-5e1a"})
            assert refused.status_code == 403 and "development routes" in refused.json()["detail"]


@pytest.mark.usefixtures("keyed")
def test_liveness_preflights_and_in_process_loopback_need_no_key() -> None:
    with _client() as client:
        assert client.get("/ok").text == "GET /ok"
        assert client.post("/ok/").status_code == 401, "only the liveness path itself"
        preflight = {"origin": "http://localhost:3000", "access-control-request-method": "POST"}
        answered = client.options("/threads", headers=preflight)
        assert answered.status_code == 200 and answered.headers["access-control-allow-origin"] == "*"
        assert client.options("/threads").status_code == 401, "a plain OPTIONS is no preflight"
        forged = {"access-control-request-method": "POST"}  # no Origin: CORS would hand it on to the route
        assert client.options("/threads", headers=forged).status_code == 401
    with _client(root_path="/noauth") as loopback:  # langgraph_sdk's in-process transport; no request can set it
        assert loopback.get("/threads").status_code == 200


@pytest.mark.usefixtures("keyed")
def test_a_websocket_handshake_needs_a_key() -> None:
    with _client() as client:
        with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect("/threads/stream"):
            pass
        assert refused.value.status_code == 401
        with client.websocket_connect("/threads/stream", headers={"x-api-key": "key-two-99c0"}) as websocket:
            assert websocket.receive_text() == "open"


def test_without_keys_the_gate_is_open(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAOR_SERVER_API_KEY", raising=False)
    with _client() as client:
        assert client.post("/internal/truncate").text == "POST /internal/truncate"


def test_development_routes_are_matched_by_whole_path_segments() -> None:
    assert all(map(is_development_route, ["/internal", "/internal/truncate", "/deploy", "/deploy/1/stream"]))
    assert not any(map(is_development_route, ["/internals", "/deployments", "/threads/internal", "/"]))


def test_a_key_names_its_client_and_nothing_else_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEYS)
    assert client_of(b"key-two-99c0") == client_of("key-two-99c0") == identity_of("key-two-99c0")
    assert client_of("key-one-5e1a") != client_of("key-two-99c0")
    assert [client_of(given) for given in (None, "", b"", "KEY-ONE-5E1A", "key-one")] == [None] * 5
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "")
    assert client_of("key-one-5e1a") is None


@pytest.mark.usefixtures("keyed")
def test_a_link_passes_to_its_document_route_alone() -> None:
    """A clicked deliverable link carries no key: the gate passes a document's GET that presents one, valid or not,
    to the route, which checks it and answers a dead one 410 (tests/server/test_lasting_links.py); nothing else."""
    thread = "0b0c3a52-6a54-4a3e-8f4e-1d2c3b4a5f60"
    ref = DocumentRef(
        label="round1_task1_action1_process", name="result.md", mime="text/markdown", size=1, sha256="a" * 64
    )
    link = urlsplit(document_url(thread, ref))
    document = Route("/paor/threads/{thread}/documents/{label}/{name}", answer, methods=["GET", "POST"])
    with TestClient(Starlette(routes=[document], middleware=[Middleware(KeyGate)])) as client:
        assert client.get(f"{link.path}?{link.query}").status_code == 200
        assert client.post(f"{link.path}?{link.query}").status_code == 401
        assert client.get(link.path).status_code == 401
        assert client.get(f"{link.path}?{link.query.split('&signature=')[0]}").status_code == 401, "no signature"
        assert client.get(f"/threads?{link.query}").status_code == 401, "a link opens its document route only"
        assert client.get(f"{link.path.replace('result.md', 'other.md')}?{link.query}").status_code == 200, (
            "the route's to refuse"
        )
