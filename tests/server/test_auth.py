"""PAOR_SERVER_API_KEY on the real `langgraph dev`: no key → 401 everywhere, a right key → in, own threads only.

One server for the module, started with two client keys; the model is the scripted primes scenario.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest

from core.schemas import DocumentRef
from server.urls import document_url
from tests.support import deadlines
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip("langgraph_sdk", reason="the server extra is not installed")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")

KEY_A = "paor-test-key-alice-4f1c"
KEY_B = "paor-test-key-bob-9e27"
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("auth")
    with ScriptedLLM() as llm:
        script_primes(llm)
        env = scripted_env(llm.base_url, root / "paor-home", PAOR_SERVER_API_KEY=f"{KEY_A}, {KEY_B}")
        with langgraph_dev(root, env) as server_url:
            yield server_url


@pytest.fixture(scope="module")
def alice_run(url: str) -> tuple[str, dict[str, Any]]:
    """A primes run of the client holding KEY_A."""
    client = langgraph_sdk.get_sync_client(url=url, api_key=KEY_A, timeout=deadlines.HTTP_S)
    thread = client.threads.create()["thread_id"]
    out = client.runs.wait(thread, "paor", input={"prompt": PRIMES_PROMPT}, raise_error=True)
    assert isinstance(out, dict) and out["status"] == "completed", out
    return thread, out


def _requests(thread: str, document_url: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, httpx keyword arguments) of every route family a client uses."""
    return [
        ("POST", "/threads", {"json": {}}),
        ("POST", "/threads/search", {"json": {}}),
        ("GET", f"/threads/{thread}/state", {}),
        ("POST", "/runs/wait", {"json": {"assistant_id": "paor", "input": {"prompt": "Say hello"}}}),
        ("POST", f"/threads/{thread}/runs", {"json": {"assistant_id": "paor", "input": {"prompt": "Say hello"}}}),
        ("POST", "/assistants/search", {"json": {}}),
        ("PUT", "/store/items", {"json": {"namespace": ["mine"], "key": "k", "value": {"v": 1}}}),
        ("POST", "/store/items/search", {"json": {"namespace_prefix": ["paor"]}}),
        ("POST", "/store/namespaces", {"json": {}}),
        ("POST", "/mcp", {"json": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "headers": MCP_HEADERS}),
        ("POST", "/paor/documents", {"params": {"name": "a.txt"}, "content": b"text"}),
        ("GET", f"/paor/threads/{thread}/deliverables", {}),
        ("GET", document_url, {}),
    ]


def _unsigned(link: str) -> str:
    """The document's route without the link's signature: what only a key opens."""
    return urlsplit(link).path


def _without_links(deliverables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**d, "url": _unsigned(d["url"])} for d in deliverables]


@pytest.mark.parametrize(
    "credentials",
    [{}, {"x-api-key": "wrong-key"}, {"x-auth-scheme": "langsmith"}, {"authorization": f"Bearer {KEY_A}"}],
    ids=["no key", "wrong key", "studio header", "key in the wrong header"],
)
def test_without_the_right_key_every_route_is_401(
    url: str, alice_run: tuple[str, dict[str, Any]], credentials: dict[str, str]
) -> None:
    thread, out = alice_run
    with httpx.Client(base_url=url, timeout=deadlines.HTTP_S) as http:
        for method, path, kwargs in _requests(thread, _unsigned(out["deliverables"][0]["url"])):
            headers = {**kwargs.pop("headers", {}), **credentials}
            response = http.request(method, path, headers=headers, **kwargs)
            assert response.status_code == 401, (method, path, response.status_code, response.text[:200])


def test_the_right_key_opens_every_route(url: str, alice_run: tuple[str, dict[str, Any]]) -> None:
    thread, out = alice_run
    [result] = out["deliverables"]
    with httpx.Client(base_url=url, timeout=deadlines.HTTP_S, headers={"x-api-key": KEY_A}) as http:
        owned = http.post("/threads", json={}).json()
        assert owned["metadata"]["owner"].startswith("client-") and KEY_A not in str(owned)
        assert http.get(f"/threads/{thread}/state").json()["values"]["status"] == "completed"
        assert [t["thread_id"] for t in http.post("/threads/search", json={}).json()] == [owned["thread_id"], thread]
        assert [a["graph_id"] for a in http.post("/assistants/search", json={}).json()] == ["paor"]
        assert http.post("/paor/documents", params={"name": "a.txt"}, content=b"text").status_code == 201
        listed = http.get(f"/paor/threads/{thread}/deliverables").json()["deliverables"]
        assert _without_links(listed) == _without_links(out["deliverables"]), "the same documents, freshly signed"
        download = http.get(result["url"])
        assert download.status_code == 200 and "7919" in download.text
        tools = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=MCP_HEADERS)
        assert [tool["name"] for tool in tools.json()["result"]["tools"]] == ["paor"]

        identity = owned["metadata"]["owner"]
        mine = http.put("/store/items", json={"namespace": [identity, "notes"], "key": "k", "value": {"v": 1}})
        assert mine.status_code == 204
        assert http.post("/store/items/search", json={"namespace_prefix": [identity]}).json()["items"]
        learned = http.post("/store/items/search", json={"namespace_prefix": ["paor", "strategies"]})
        assert learned.status_code == 403, "paor's learning memory is the graph's, not a client's"


def test_a_thread_is_visible_to_its_owner_only(url: str, alice_run: tuple[str, dict[str, Any]]) -> None:
    thread, out = alice_run
    bob = langgraph_sdk.get_sync_client(url=url, api_key=KEY_B, timeout=deadlines.HTTP_S)
    assert thread not in [t["thread_id"] for t in bob.threads.search()]
    with pytest.raises(langgraph_sdk.errors.NotFoundError):
        bob.threads.get_state(thread)
    with httpx.Client(base_url=url, timeout=deadlines.HTTP_S, headers={"x-api-key": KEY_B}) as http:
        for path in (f"/paor/threads/{thread}/deliverables", _unsigned(out["deliverables"][0]["url"])):
            assert http.get(path).status_code == 404, path
        refused = http.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "paor", "input": {"prompt": "Hi"}})
        assert refused.status_code == 404
        assert http.get(f"/paor/threads/{uuid.uuid4()}/deliverables").status_code == 404


def test_a_signed_link_alone_opens_its_document_and_nothing_else(
    url: str, alice_run: tuple[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a chat user's click sends: no key, only the link the answer carries."""
    thread, out = alice_run
    link = out["deliverables"][0]["url"]
    assert link.startswith(f"{url}/paor/threads/{thread}/documents/"), "absolute: from the page's origin it opens"
    opened = httpx.get(link, timeout=deadlines.HTTP_S)
    assert opened.status_code == 200 and "7919" in opened.text

    split = urlsplit(link)
    query = dict(parse_qsl(split.query))
    monkeypatch.setenv("PAOR_SERVER_API_KEY", f"{KEY_A}, {KEY_B}")  # the server's keys: the secret derives from them
    monkeypatch.setenv("PAOR_SERVER_LINK_TTL_S", "3600")
    expired = document_url(thread, DocumentRef.model_validate(out["deliverables"][0]), base=url, now=1_000_000_000)
    forged = {
        "another name": link.replace("/result.md?", "/other.md?"),
        "another document of the thread": link.replace(split.path, f"/paor/threads/{thread}/documents/input/x.md"),
        "another thread": link.replace(thread, str(uuid.uuid4())),
        "an expiry": f"{url}{split.path}?{urlencode({**query, 'expires': 4_000_000_000})}",
        "a forged signature": f"{url}{split.path}?{urlencode({**query, 'signature': '0' * 64})}",
        "an expired link": expired,
    }
    for what, forgery in forged.items():  # a dead link: a page saying so (tests/server/test_lasting_links.py)
        assert httpx.get(forgery, timeout=deadlines.HTTP_S).status_code == 410, what
    unsigned = {
        "no signature": f"{url}{split.path}?{urlencode({'owner': query['owner']})}",
        "another route": f"{url}/threads/{thread}/state?{split.query}",
    }
    for what, refused in unsigned.items():
        assert httpx.get(refused, timeout=deadlines.HTTP_S).status_code == 401, what
    with_key = httpx.get(forged["a forged signature"], headers={"x-api-key": KEY_A}, timeout=deadlines.HTTP_S)
    assert with_key.status_code == 410 and "list the thread's deliverables" in with_key.text
