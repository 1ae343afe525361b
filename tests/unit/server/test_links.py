"""Deliverable links: absolute, and while auth is on signed and expiring — the link opens that one document, for a
while, and nothing else."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from graph.schemas import DocumentRef
from server.keys import identity_of
from server.policy import run_links
from server.records import ThreadRecords
from server.settings import server_store
from server.urls import base_url, document_url, signed_document

THREAD = "0b0c3a52-6a54-4a3e-8f4e-1d2c3b4a5f60"
REF = DocumentRef(
    label="round1_task1_action1_process", name="result file.md", mime="text/markdown", size=3, sha256="a" * 64
)
NOW = 1_800_000_000


def _parts(url: str) -> tuple[str, dict[str, str]]:
    split = urlsplit(url)
    return f"{split.scheme}://{split.netloc}{split.path}", dict(parse_qsl(split.query))


@pytest.fixture
def auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-one,key-two")


def test_without_auth_a_link_is_absolute_and_unsigned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAOR_SERVER_API_KEY", raising=False)
    url = document_url(THREAD, REF, base="http://127.0.0.1:8123/")
    assert url == f"http://127.0.0.1:8123/paor/threads/{THREAD}/documents/round1_task1_action1_process/result%20file.md"
    monkeypatch.setenv("PAOR_SERVER_PUBLIC_URL", "https://paor.example.org/")
    assert document_url(THREAD, REF, base="http://10.0.0.5:8123").startswith("https://paor.example.org/paor/threads/")


@pytest.mark.usefixtures("auth")
def test_a_signed_link_opens_its_document_until_it_expires() -> None:
    url = document_url(THREAD, REF, base="http://127.0.0.1:8123", now=NOW)
    _, query = _parts(url)
    assert set(query) == {"owner", "expires", "signature"} and int(query["expires"]) == NOW + 24 * 3600
    assert signed_document(THREAD, REF.label, REF.name, query, now=NOW)
    assert signed_document(THREAD, REF.label, REF.name, query, now=NOW + 24 * 3600)
    assert not signed_document(THREAD, REF.label, REF.name, query, now=NOW + 24 * 3600 + 1), "expired"


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
        "later-expiry",
        "no-signature",
        "forged",
        "bad-expiry",
        "other-owner",
        "no-owner",
    ],
)
def test_a_link_opens_nothing_else(thread: str, label: str, name: str, change: dict[str, str]) -> None:
    _, query = _parts(document_url(THREAD, REF, now=NOW))
    assert not signed_document(thread, label, name, {**query, **change}, now=NOW)


@pytest.mark.usefixtures("auth")
def test_forgetting_the_threads_records_revokes_its_links_and_a_new_generation_opens_none_of_them() -> None:
    """Deleting a thread forgets its records (server/traffic.py): its links stop opening; the same thread id made
    again, by the same client, gets records of a new generation, which the old links were not signed for."""
    owner = identity_of("key-one")
    _, query = _parts(document_url(THREAD, REF, now=NOW, owner=owner))
    assert signed_document(THREAD, REF.label, REF.name, query, now=NOW) == owner
    records = ThreadRecords(server_store())
    records.forget(owner, THREAD)
    assert records.generation(owner, THREAD) is None
    assert signed_document(THREAD, REF.label, REF.name, query, now=NOW) is None, "revoked with the records"
    _, fresh = _parts(document_url(THREAD, REF, now=NOW, owner=owner))
    assert signed_document(THREAD, REF.label, REF.name, fresh, now=NOW) == owner
    assert signed_document(THREAD, REF.label, REF.name, query, now=NOW) is None, "the old link stays revoked"


def test_new_keys_retire_every_link_unless_the_operator_set_a_link_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-one")
    _, query = _parts(document_url(THREAD, REF, now=NOW))
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-three")
    assert not signed_document(THREAD, REF.label, REF.name, query, now=NOW)

    monkeypatch.setenv("PAOR_SERVER_LINK_SECRET", "the operator's own secret")
    _, query = _parts(document_url(THREAD, REF, now=NOW))
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "key-four")
    assert signed_document(THREAD, REF.label, REF.name, query, now=NOW)
    monkeypatch.setenv("PAOR_SERVER_LINK_TTL_S", "60")
    assert int(_parts(document_url(THREAD, REF, now=NOW))[1]["expires"]) == NOW + 60


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
