"""Deliverable links that keep working (issue 31, item 5), through the real `langgraph dev`: a link in a chat opens
its document as long as its thread exists, and a link that opens nothing answers 410 with a short page that says
why and how to get a fresh one — never the document, whoever sends it.

One server for the module with two keys and no link TTL (the default); the model is the scripted primes scenario.
Links in the past or with an operator's TTL are made in the test process with the server's keys and records, as
the server would have made them then.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest

from core.schemas import DocumentRef
from server.keys import identity_of
from server.urls import document_url
from tests.support import deadlines
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM

langgraph_sdk = pytest.importorskip("langgraph_sdk", reason="the server extra is not installed")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")

KEY_A = "paor-links-key-alice-61d2"
KEY_B = "paor-links-key-bob-0f93"
KEYS = f"{KEY_A},{KEY_B}"
DAY = 24 * 3600
#: What the primes deliverable holds: a body carrying it is the document.
DOCUMENT_TEXT = "7919"


@dataclass
class Server:
    url: str
    home: Path

    def http(self, key: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=deadlines.HTTP_S, headers={"x-api-key": key} if key else {})

    def run(self, key: str, thread: str | None = None) -> tuple[str, dict[str, Any]]:
        """A primes run of the client holding `key`: (thread, its first deliverable)."""
        with self.http(key) as http:
            thread = thread or http.post("/threads", json={}).json()["thread_id"]
            body = {"assistant_id": "paor", "input": {"prompt": PRIMES_PROMPT}}
            out = http.post(f"/threads/{thread}/runs/wait", json=body).json()
        assert out.get("deliverables"), out
        return thread, dict(out["deliverables"][0])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("links")
    with ScriptedLLM() as llm:
        script_primes(llm)
        env = scripted_env(llm.base_url, root / "paor-home", PAOR_SERVER_API_KEY=KEYS)
        with langgraph_dev(root, env) as url:
            yield Server(url=url, home=root / "paor-home")


@pytest.fixture(scope="module")
def alice(server: Server) -> tuple[str, dict[str, Any]]:
    """Alice's thread and its deliverable, kept for the module."""
    return server.run(KEY_A)


@pytest.fixture
def as_the_server(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """Links made here are signed as the server signs them: its keys, its records."""
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEYS)
    monkeypatch.setenv("PAOR_HOME", str(server.home))
    monkeypatch.delenv("PAOR_SERVER_LINK_TTL_S", raising=False)


def _link(server: Server, thread: str, deliverable: dict[str, Any], *, now: float, ttl_s: int | None = None) -> str:
    """Alice's link to `deliverable` as the server signed it at `now`, under an operator's TTL if given."""
    ref = DocumentRef.model_validate({k: v for k, v in deliverable.items() if k != "url"})
    with pytest.MonkeyPatch.context() as patch:
        if ttl_s is not None:
            patch.setenv("PAOR_SERVER_LINK_TTL_S", str(ttl_s))
        return document_url(thread, ref, base=server.url, now=now, owner=identity_of(KEY_A))


def _with_query(link: str, **change: str | None) -> str:
    """`link` with query parameters replaced, added, or (None) dropped."""
    split = urlsplit(link)
    query = {**dict(parse_qsl(split.query)), **change}
    return split._replace(query=urlencode({k: v for k, v in query.items() if v is not None})).geturl()


def _assert_dead(http: httpx.Client, link: str, says: str) -> None:
    """410 to GET and HEAD: a plain page that says `says` and how to get a fresh link; JSON when asked; no document."""
    got, head = http.get(link), http.head(link)
    assert (got.status_code, head.status_code) == (410, 410), (link, got.status_code, got.text[:200])
    assert got.headers["content-type"] == head.headers["content-type"] == "text/html; charset=utf-8"
    assert head.content == b"" and int(head.headers["content-length"]) == len(got.content)
    page = got.text
    assert says in page and "/deliverables" in page and "fresh link" in page, page
    assert "<title>" in page and "<script" not in page and DOCUMENT_TEXT not in page, page
    asked = http.get(link, headers={"accept": "application/json"})
    assert asked.status_code == 410 and "/deliverables" in asked.json()["detail"], asked.text
    assert DOCUMENT_TEXT not in asked.text


@pytest.mark.usefixtures("as_the_server")
def test_a_link_opens_its_document_long_after_the_old_one_day_ttl(
    server: Server, alice: tuple[str, dict[str, Any]]
) -> None:
    """The link in the chat carries no clock: made two days ago or now it is the same link, and it opens."""
    thread, deliverable = alice
    link = deliverable["url"]
    assert "expires=" not in link and "signature=" in link
    assert _link(server, thread, deliverable, now=time.time() - 2 * DAY) == link
    issued = _link(server, thread, deliverable, now=time.time() - 3600, ttl_s=DAY)  # before links stopped expiring
    with server.http() as anonymous:
        for opens in (link, issued):
            got, head = anonymous.get(opens), anonymous.head(opens)
            assert (got.status_code, head.status_code) == (200, 200) and DOCUMENT_TEXT in got.text, opens
            assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]


@pytest.mark.usefixtures("as_the_server")
def test_an_expired_link_answers_a_page_that_says_so_and_the_listing_gives_a_fresh_one(
    server: Server, alice: tuple[str, dict[str, Any]]
) -> None:
    thread, deliverable = alice
    expired = _link(server, thread, deliverable, now=time.time() - 2 * DAY, ttl_s=DAY)
    with server.http() as anonymous, server.http(KEY_A) as keyed:
        _assert_dead(anonymous, expired, "expired")
        _assert_dead(keyed, expired, "expired")  # a key does not turn a dead link into a live one
        assert anonymous.get(expired, headers={"accept": "application/json"}).json()["link"] == "expired"
        [fresh] = keyed.get(f"/paor/threads/{thread}/deliverables").json()["deliverables"]
        assert DOCUMENT_TEXT in anonymous.get(fresh["url"]).text


@pytest.mark.usefixtures("as_the_server")
def test_a_forged_link_opens_nothing(server: Server, alice: tuple[str, dict[str, Any]]) -> None:
    thread, deliverable = alice
    link = deliverable["url"]
    expiring = _link(server, thread, deliverable, now=time.time() - 2 * DAY, ttl_s=DAY)
    forged = {
        "a forged signature": _with_query(link, signature="0" * 64),
        "another name": link.replace("/result.md?", "/other.md?"),
        "another thread": link.replace(thread, str(uuid.uuid4())),
        "another owner": _with_query(link, owner=identity_of(KEY_B)),
        "an expiry added": _with_query(link, expires=str(int(time.time()) + DAY)),
        "an expired link's expiry dropped": _with_query(expiring, expires=None),
        "a forged signature, expired": _with_query(expiring, signature="0" * 64),
    }
    with server.http() as anonymous:
        for what, forgery in forged.items():
            assert forgery != link, what
            _assert_dead(anonymous, forgery, "no longer works")
        for unsigned in (_with_query(link, signature=None), _with_query(link, owner=None), urlsplit(link).path):
            assert anonymous.get(unsigned).status_code == anonymous.head(unsigned).status_code == 401, unsigned
        assert anonymous.post(link).status_code == 401, "a link opens its document's GET and HEAD only"


def test_a_deleted_threads_link_answers_410_and_its_id_made_again_by_another_client_opens_nothing(
    server: Server,
) -> None:
    thread, deliverable = server.run(KEY_A)
    link = deliverable["url"]
    with server.http() as anonymous, server.http(KEY_A) as alice, server.http(KEY_B) as bob:
        assert DOCUMENT_TEXT in anonymous.get(link).text
        assert alice.delete(f"/threads/{thread}").status_code == 204
        _assert_dead(anonymous, link, "thread was deleted")
        _assert_dead(alice, link, "thread was deleted")

        assert bob.post("/threads", json={"thread_id": thread}).status_code == 200, "the id is free again"
        _, bobs = server.run(KEY_B, thread)
        assert DOCUMENT_TEXT in anonymous.get(bobs["url"]).text, "Bob's own link opens his document"
        at_bobs = urlsplit(link)._replace(path=urlsplit(bobs["url"]).path).geturl()  # Alice's link, Bob's document
        for dead in (link, at_bobs, _with_query(at_bobs, owner=identity_of(KEY_B))):
            _assert_dead(anonymous, dead, "no longer works")
