"""Deliverable links: absolute, and while auth is on signed and bound to their thread — the link opens that one
document as long as the thread's records exist (until an expiry only if the operator sets one), and nothing else."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from core.schemas import DocumentRef
from server.keys import identity_of
from server.policy import run_links
from server.records import ThreadRecords
from server.settings import link_ttl_s, server_store
from server.urls import Refusal, base_url, document_url, signed_link, verify_link

THREAD = "0b0c3a52-6a54-4a3e-8f4e-1d2c3b4a5f60"
REF = DocumentRef(
    label="round1_task1_action1_process", name="result file.md", mime="text/markdown", size=3, sha256="a" * 64
)
NOW = 1_800_000_000
YEAR = 365 * 24 * 3600
ALICE = identity_of("key-one")


def _link() -> dict[str, str]:
    """The query of Alice's link to REF, signed at NOW."""
    return dict(parse_qsl(urlsplit(document_url(THREAD, REF, now=NOW, owner=ALICE)).query))


def _verify(query: dict[str, str], now: float = NOW) -> str | Refusal:
    return verify_link(THREAD, REF.label, REF.name, query, now=now)


@pytest.fixture
def auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-one,key-two")
    monkeypatch.delenv("PAOR_SERVER_LINK_TTL_S", raising=False)


def test_without_auth_a_link_is_absolute_and_unsigned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAOR_SERVER_API_KEY", raising=False)
    url = document_url(THREAD, REF, base="http://127.0.0.1:8123/")
    assert url == f"http://127.0.0.1:8123/paor/threads/{THREAD}/documents/round1_task1_action1_process/result%20file.md"
    monkeypatch.setenv("PAOR_SERVER_PUBLIC_URL", "https://paor.example.org/")
    assert document_url(THREAD, REF, base="http://10.0.0.5:8123").startswith("https://paor.example.org/paor/threads/")


@pytest.mark.usefixtures("auth")
def test_a_link_carries_no_expiry_and_opens_its_document_years_later() -> None:
    """A link frozen in a chat message cannot be renewed by whoever clicks it: it lasts as long as its thread."""
    query = _link()
    assert set(query) == {"owner", "signature"}
    assert _verify(query, now=NOW + 10 * YEAR) == ALICE


@pytest.mark.usefixtures("auth")
def test_an_operator_ttl_makes_links_expire_and_only_a_signed_link_is_called_expired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAOR_SERVER_LINK_TTL_S", "60")
    query = _link()
    assert int(query["expires"]) == NOW + 60
    assert _verify(query, now=NOW + 60) == ALICE
    assert _verify(query, now=NOW + 61) is Refusal.EXPIRED
    assert _verify({**query, "signature": "0" * 64}, now=NOW + 61) is Refusal.REVOKED, "a forgery is not 'expired'"


@pytest.mark.usefixtures("auth")
def test_a_link_issued_with_an_expiry_keeps_it_after_links_stopped_expiring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Links issued while every link lasted a day are still checked against their expiry."""
    monkeypatch.setenv("PAOR_SERVER_LINK_TTL_S", str(24 * 3600))
    issued = _link()
    monkeypatch.delenv("PAOR_SERVER_LINK_TTL_S")
    lasting = _link()
    assert _verify(issued, now=NOW + 24 * 3600) == ALICE
    assert _verify(issued, now=NOW + 24 * 3600 + 1) is Refusal.EXPIRED
    assert _verify({k: v for k, v in issued.items() if k != "expires"}) is Refusal.REVOKED, "expiry dropped"
    assert _verify({**lasting, "expires": str(NOW + YEAR)}) is Refusal.REVOKED, "expiry added"


@pytest.mark.parametrize(
    ("raw", "ttl"), [("", None), ("0", None), ("soon", None), ("-5", None), ("²", None), ("60", 60)]
)
def test_the_link_ttl_is_none_unless_the_operator_sets_a_positive_number(
    monkeypatch: pytest.MonkeyPatch, raw: str, ttl: int | None
) -> None:
    monkeypatch.setenv("PAOR_SERVER_LINK_TTL_S", raw)
    assert link_ttl_s() == ttl


@pytest.mark.usefixtures("auth")
@pytest.mark.parametrize(
    ("thread", "label", "name", "change"),
    [
        (THREAD, REF.label, "other.md", {}),
        ("0b0c3a52-6a54-4a3e-8f4e-1d2c3b4a5f61", REF.label, REF.name, {}),
        (THREAD, "round1_task1_action2_process", REF.name, {}),
        (THREAD, REF.label, REF.name, {"expires": str(NOW + 10 * 24 * 3600)}),
        (THREAD, REF.label, REF.name, {"signature": ""}),
        (THREAD, REF.label, REF.name, {"signature": "0" * 64}),
        (THREAD, REF.label, REF.name, {"expires": "soon"}),
        (THREAD, REF.label, REF.name, {"owner": identity_of("key-two")}),
        (THREAD, REF.label, REF.name, {"owner": ""}),
    ],
    ids=[
        "other-name",
        "other-thread",
        "other-label",
        "an-expiry",
        "no-signature",
        "forged",
        "bad-expiry",
        "other-owner",
        "no-owner",
    ],
)
def test_a_link_opens_nothing_else(thread: str, label: str, name: str, change: dict[str, str]) -> None:
    query = _link()
    assert verify_link(thread, label, name, {**query, **change}, now=NOW) is Refusal.REVOKED


@pytest.mark.usefixtures("auth")
def test_forgetting_the_threads_records_revokes_its_links_and_a_new_generation_opens_none_of_them() -> None:
    """Deleting a thread forgets its records (server/traffic.py): its links stop opening; the same thread id made
    again, by the same client, gets records of a new generation, which the old links were not signed for."""
    query = _link()
    assert _verify(query) == ALICE
    records = ThreadRecords(server_store())
    records.forget(ALICE, THREAD)
    assert records.generation(ALICE, THREAD) is None
    assert _verify(query) is Refusal.REVOKED, "revoked with the records"
    fresh = _link()
    assert _verify(fresh) == ALICE
    assert _verify(query) is Refusal.REVOKED, "the old link stays revoked"


def test_new_keys_retire_every_link_unless_the_operator_set_a_link_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-one")
    query = _link()
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-three")
    assert _verify(query) is Refusal.REVOKED

    monkeypatch.setenv("PAOR_SERVER_LINK_SECRET", "the operator's own secret")
    query = _link()
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-four")
    assert _verify(query) == ALICE


@pytest.mark.usefixtures("auth")
def test_a_request_presenting_a_link_reaches_the_route_which_verifies_it() -> None:
    """The key gate and the auth handler pass a link, valid or not, to the route: it answers a dead one (410)."""
    query = _link()
    path = f"/paor/threads/{THREAD}/documents/{REF.label}/{REF.name}"  # as ASGI decodes it
    claimed = (ALICE, THREAD, REF.label, REF.name)
    assert signed_link(path, query) == signed_link(path, {**query, "signature": "0" * 64}) == claimed
    assert signed_link(path, {"signature": query["signature"]}) is None, "no owner: not a link"
    assert signed_link(path, {"owner": query["owner"]}) is None, "no signature: not a link"
    assert signed_link(f"/threads/{THREAD}/state", query) is None, "not a document route"
    assert signed_link(path.replace("/documents/", "/documents/x/"), query) is None


@pytest.mark.parametrize(
    ("headers", "base"),
    [
        ({"host": "127.0.0.1:8123"}, "http://127.0.0.1:8123"),
        (
            {"host": "10.0.0.5", "x-forwarded-host": "paor.example.org", "x-forwarded-proto": "https"},
            "https://paor.example.org",
        ),
        ({"host": "evil.test/path@x"}, ""),
        ({"host": "h", "x-forwarded-proto": "javascript"}, "http://h"),
        ({}, ""),
    ],
)
def test_the_base_url_comes_from_the_request(headers: dict[str, str], base: str) -> None:
    assert base_url(headers) == base


def test_a_run_outside_the_server_gets_a_relative_link(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAOR_SERVER_API_KEY", raising=False)
    assert run_links(THREAD, REF).startswith(f"/paor/threads/{THREAD}/documents/")
