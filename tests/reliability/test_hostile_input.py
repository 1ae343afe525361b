"""Bad and hostile input: prompts, documents, model-named paths and URLs get typed errors or failed steps."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from core.context import Context
from core.errors import DocumentRejected, FetchRefused, InvalidRequest, ToolFailed
from core.schemas import DocumentRef
from tests.reliability.conftest import (
    DIRECT_SELECTION,
    HostileSite,
    fake_dns,
    invoke,
    script_direct,
)
from tests.support.scripted_llm import ScriptedLLM
from tests.unit.documents.builders import docx_bytes, encrypted_pdf, zip_bomb_docx
from tools.base import ToolDeps
from tools.catalog import lookup
from tools.documents import DocumentIndex, DocumentStore
from tools.web.fetch import GuardedFetcher

EXTRACT_INTENT = {"dataType": "text", "expectedFormat": "markdown", "successCriteria": ["the text is extracted"]}
EXTRACT_SELECTION = {
    **DIRECT_SELECTION,
    "action": "document.extract",
    "actionObjective": "Extract the text of the input documents",
    "requiredInputDocuments": ["docList:input"],
    "parametersSchema": {"fields": []},
}
NO_PARAMETERS = {"schema": "parameters_v1", "parameters": {}}


def script_extract(llm: ScriptedLLM, **routes: Any) -> ScriptedLLM:
    script = {
        "Intent": [json.dumps(EXTRACT_INTENT)],
        "ActionSelection": [EXTRACT_SELECTION],
        "ParametersAnswer": [NO_PARAMETERS],
    }
    return script_direct(llm, **{**script, **routes})


# --- prompts ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", ["", " ", "\n\t \r\n", "\u00a0\u2003"])
def test_empty_or_whitespace_prompts_are_refused_before_any_model_call(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, prompt: str
) -> None:
    script_direct(scripted_llm)
    with pytest.raises(InvalidRequest, match="empty"):
        invoke(graph, rctx, "empty", prompt=prompt)
    assert scripted_llm.requests == []


def test_a_one_megabyte_prompt_is_refused_and_nothing_runs(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_direct(scripted_llm)
    with pytest.raises(InvalidRequest, match=r"1048576 characters \(limit 200000\)"):
        invoke(graph, rctx, "huge-prompt", prompt="x" * (1024 * 1024))
    assert scripted_llm.requests == []
    assert not rctx.store_path.exists()  # no document was stored either


def test_control_characters_and_bidi_overrides_in_the_prompt_do_not_break_the_run(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_direct(scripted_llm)
    out = invoke(graph, rctx, "controls", prompt="Calculate the first 1000 prime numbers\x00\x07\u202e\ufeff 🚀")
    assert out["status"] == "completed"


def test_a_prompt_that_is_not_valid_unicode_is_a_typed_error(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any
) -> None:
    script_direct(scripted_llm)
    with pytest.raises(InvalidRequest):
        invoke(graph, rctx, "surrogate", prompt="Calculate the first 1000 prime numbers \udcff")


def test_an_unknown_language_request_still_finishes(scripted_llm: ScriptedLLM, rctx: Context, graph: Any) -> None:
    script_direct(scripted_llm)
    out = invoke(graph, rctx, "klingon", prompt="Calculate the first 1000 prime numbers in Klingon", language="tlh")
    assert out["status"] in ("completed", "incomplete") and out["stop_reason"]
    state = graph.get_state({"configurable": {"thread_id": "klingon"}}).values
    assert len(state["intent"]["language"]) == 2


# --- input documents --------------------------------------------------------------------------------------------


def test_a_missing_input_document_is_a_typed_error_before_any_model_call(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, tmp_path: Path
) -> None:
    script_extract(scripted_llm)
    with pytest.raises(DocumentRejected, match="does not exist"):
        invoke(graph, rctx, "missing", prompt="Summarise this", documents=[str(tmp_path / "nope.pdf")])
    assert scripted_llm.requests == []


def test_a_directory_given_as_document_is_a_typed_error(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, tmp_path: Path
) -> None:
    script_extract(scripted_llm)
    with pytest.raises(DocumentRejected, match="not a file"):
        invoke(graph, rctx, "dir", prompt="Summarise this", documents=[str(tmp_path)])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode; the directory case covers it")
def test_an_unreadable_input_document_is_a_typed_error(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, tmp_path: Path
) -> None:  # pragma: no cover - runs only as non-root
    locked = tmp_path / "locked.txt"
    locked.write_text("secret")
    locked.chmod(0)
    with pytest.raises(DocumentRejected, match="cannot be read"):
        invoke(graph, rctx, "locked", prompt="Summarise this", documents=[str(locked)])


@pytest.mark.parametrize(
    "name, data, reason",
    [
        ("garbage.bin", os.urandom(4096), "unknown type"),
        ("fake.pdf", b"%PDF-1.4\n" + os.urandom(512), "not a readable PDF"),
        ("secret.pdf", None, "needs a password"),
        ("bomb.docx", None, "zip bomb"),
        ("truncated.docx", None, "not a valid Office file"),
        ("empty.txt", b"", "is empty"),
    ],
)
def test_unreadable_documents_fail_the_extract_step_with_a_clear_reason(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, tmp_path: Path, name: str, data: bytes | None, reason: str
) -> None:
    builders = {
        "secret.pdf": lambda: encrypted_pdf("pw"),
        "bomb.docx": lambda: zip_bomb_docx(20),
        "truncated.docx": lambda: docx_bytes()[:700],
    }
    path = tmp_path / name
    path.write_bytes(data if data is not None else builders[name]())
    script_extract(scripted_llm)
    out = invoke(graph, rctx, "bad-doc", prompt="Extract the text of this document", documents=[str(path)])
    assert out["status"] == "incomplete" and out["stop_reason"]
    first = out["history"][0]
    assert first["action"] == "document.extract" and first["outcome"] == "failed"
    assert "no document could be read" in first["findings"][0] and reason in first["findings"][0]
    assert scripted_llm.requests_for("text") == []  # nothing of it reached a model


def test_input_documents_are_read_only_to_paor(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, tmp_path: Path
) -> None:
    """Documents are ingested and extracted (and also named by path inside documents_dir): never modified."""
    inputs = Path(rctx.documents_dir)
    originals = {"notes.md": b"# Notes\n\nAlpha beta gamma.\n", "report.docx": docx_bytes()}
    for name, data in originals.items():
        (inputs / name).write_bytes(data)
        (inputs / name).chmod(0o444)
        os.utime(inputs / name, (1_000_000_000, 1_000_000_000))

    def snapshot() -> dict[str, tuple[int, int, bytes]]:
        return {p.name: (p.stat().st_mtime_ns, p.stat().st_mode, p.read_bytes()) for p in sorted(inputs.iterdir())}

    before = snapshot()
    script_extract(scripted_llm)
    out = invoke(
        graph,
        rctx,
        "read-only",
        prompt="Extract the text of these documents",
        documents=[str(inputs / name) for name in originals],
    )
    assert out["history"][0]["outcome"] in ("met", "progress")
    assert out["history"][0]["documents"]  # they really were read
    assert snapshot() == before  # same files, bytes, mode and mtime; nothing added next to them


# --- paths the model names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference", ["../../etc/passwd", "/etc/passwd", "docs/../../secret.txt", "file:///etc/passwd"]
)
def test_stage1_cannot_name_file_paths_only_document_references(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, reference: str
) -> None:
    script_extract(scripted_llm, ActionSelection=[{**EXTRACT_SELECTION, "requiredInputDocuments": [reference]}])
    rctx.max_steps = 1
    rctx.direct_answer = False  # Stage 1 is what this test attacks
    out = invoke(graph, rctx, "paths", prompt="Extract the text of /etc/passwd")
    assert out["status"] == "incomplete"
    assert "must be docList:/docItem: references" in out["history"][0]["summary"]
    assert scripted_llm.requests_for("ParametersAnswer") == []


def test_stage1_cannot_reference_unknown_or_traversing_document_items(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("an input document, so that document.extract is offered")
    script_extract(
        scripted_llm,
        ActionSelection=[{**EXTRACT_SELECTION, "requiredInputDocuments": ["docItem:input/../../etc/passwd"]}],
    )
    rctx.max_steps = 1
    out = invoke(graph, rctx, "items", prompt="Extract the text", documents=[str(notes)])
    assert "no document matches 'docItem:input/../../etc/passwd'" in out["history"][0]["summary"]


TWO_FIELDS = [
    {"name": "aiPrompt", "type": "string", "required": True, "description": "task"},
    {"name": "customInstructions", "type": "string", "required": False, "description": "tone"},
]


def test_stage2_cannot_smuggle_a_document_list(scripted_llm: ScriptedLLM, rctx: Context, graph: Any) -> None:
    script_extract(
        scripted_llm,
        # ai.process: documentList is its own; a field beyond the task, so Stage 2 (under attack here) is asked
        ActionSelection=[
            {**DIRECT_SELECTION, "requiredInputDocuments": [], "parametersSchema": {"fields": TWO_FIELDS}}
        ],
        ParametersAnswer=[{"schema": "parameters_v1", "parameters": {"documentList": ["/etc/passwd"]}}],
    )
    rctx.max_steps = 1
    rctx.direct_answer = False  # Stage 2 is what this test attacks
    out = invoke(graph, rctx, "stage2", prompt="Extract the text")
    assert "parameters must not contain ['documentList']" in out["history"][0]["summary"]


def test_document_extract_confines_model_paths_to_the_documents_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("TOP SECRET")
    (docs / "escape.txt").symlink_to(outside)
    (docs / "sub").mkdir()
    (docs / "sub" / "loop").symlink_to(docs / "sub" / "loop")
    store = DocumentStore(tmp_path / "store")
    deps = ToolDeps(llm=None, store=store, context=Context(documents_dir=str(docs)), index=DocumentIndex([]))  # type: ignore[arg-type]
    entry = lookup("document.extract")
    assert entry is not None
    tool = entry.factory(deps)
    attempts = {
        "../outside-secret.txt": "outside the documents folder",
        str(outside): "outside the documents folder",
        "sub/../../outside-secret.txt": "outside the documents folder",
        "escape.txt": "links to a file outside",
        "sub/loop": "cannot be opened",
        "sub": "not a file",
        "nul\x00.txt": "invalid document path",
    }
    with pytest.raises(ToolFailed) as failure:
        tool.invoke({"documentList": list(attempts)})
    message = str(failure.value)
    for reason in attempts.values():
        assert reason in message
    assert "TOP SECRET" not in message
    assert not store.root.exists()  # nothing was copied into the store


# --- URLs -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, reason",
    [
        ("file:///etc/passwd", "only http and https"),
        ("ftp://ftp.example.com/pub/file.txt", "only http and https"),
        ("gopher://127.0.0.1:70/_GET", "only http and https"),
        ("http://169.254.169.254/latest/meta-data/", "link-local cloud metadata"),
        ("http://127.0.0.1:1/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "IPv4-mapped"),
        ("http://10.0.0.8/admin", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://user:pw@example.com/", "credentials"),
    ],
)
def test_input_urls_outside_the_public_web_are_refused_before_any_model_call(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, no_proxy: None, url: str, reason: str
) -> None:
    script_extract(scripted_llm)
    with pytest.raises(FetchRefused, match=reason.replace("(", r"\(")):
        invoke(graph, rctx, "urls", prompt="Summarise this page", documents=[url])
    assert scripted_llm.requests == []


@pytest.mark.parametrize(
    "addresses, reason",
    [
        (["127.0.0.1"], "resolves to 127.0.0.1, a loopback"),
        (["169.254.169.254"], "cloud metadata"),
        (["93.184.216.34", "10.0.0.7"], "resolves to 10.0.0.7, a private"),
        (["fd00:ec2::254"], "cloud metadata"),
    ],
)
def test_dns_names_resolving_to_internal_addresses_are_refused(
    monkeypatch: pytest.MonkeyPatch, no_proxy: None, addresses: list[str], reason: str
) -> None:
    fake_dns(monkeypatch, {"innocent.paor-test": addresses})
    with GuardedFetcher(Context()) as fetcher, pytest.raises(FetchRefused, match=reason):
        fetcher.fetch("http://innocent.paor-test/page")


@pytest.mark.parametrize(
    "path, reason",
    [
        ("/to-metadata", "cloud metadata"),
        ("/to-private", "private"),
        ("/to-name", "resolves to 192.168.7.7, a private"),
        ("/to-file", "only http and https"),
    ],
)
def test_redirects_into_internal_space_are_refused_hop_by_hop(
    monkeypatch: pytest.MonkeyPatch, no_proxy: None, hostile_site: HostileSite, path: str, reason: str
) -> None:
    fake_dns(monkeypatch, {"internal.paor-test": ["192.168.7.7"]})
    with GuardedFetcher(Context(fetch_allowlist="127.0.0.1")) as fetcher, pytest.raises(FetchRefused, match=reason):
        fetcher.fetch(hostile_site.base + path)
    assert path in hostile_site.gets  # the first hop was fetched; the redirect target never was


def test_web_crawl_through_the_graph_refuses_internal_urls_from_a_document(
    scripted_llm: ScriptedLLM,
    rctx: Context,
    graph: Any,
    tmp_path: Path,
    no_proxy: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_dns(monkeypatch, {"metadata.paor-test": ["169.254.169.254"]})
    links = tmp_path / "links.txt"
    links.write_text(
        "Read http://169.254.169.254/latest/meta-data/iam and http://127.0.0.1:9/admin and "
        "http://metadata.paor-test/latest and http://10.0.0.1/ then gopher://127.0.0.1/x\n"
    )
    crawl = {**EXTRACT_SELECTION, "action": "web.crawl", "actionObjective": "Read the linked pages"}
    script_extract(scripted_llm, ActionSelection=[crawl], ParametersAnswer=[NO_PARAMETERS])
    rctx.max_steps = 1
    out = invoke(graph, rctx, "crawl", prompt="Read the pages linked in this file", documents=[str(links)])
    step = out["history"][0]
    assert step["action"] == "web.crawl"
    # Each refusal is reported per URL: in the crawl index when the tool returns one, else in the step's error.
    reports = list(step["findings"])
    for ref in step["documents"]:
        if ref["name"] == "crawl_results.json":
            pages = json.loads(DocumentStore(rctx.store_path).read_text(DocumentRef.model_validate(ref)))["pages"]
            assert all(p["document"] is None for p in pages)
            reports += [f"refused {p['url']}: {p['error']}" for p in pages]
    text = "\n".join(reports)
    assert "refused http://169.254.169.254/latest/meta-data/iam: 169.254.169.254 is a link-local cloud metadata" in text
    assert "refused http://127.0.0.1:9/admin: 127.0.0.1 is a loopback" in text
    assert "metadata.paor-test resolves to 169.254.169.254, a link-local cloud metadata" in text
    assert "refused http://10.0.0.1/: 10.0.0.1 is a private" in text
    assert not any(d["name"].startswith("page_") for d in step["documents"])


def test_a_crawl_whose_every_url_is_refused_is_a_failed_step(
    scripted_llm: ScriptedLLM, rctx: Context, graph: Any, tmp_path: Path, no_proxy: None
) -> None:
    links = tmp_path / "links.txt"
    links.write_text("Read http://169.254.169.254/latest/meta-data/iam now\n")
    crawl = {**EXTRACT_SELECTION, "action": "web.crawl", "actionObjective": "Read the linked pages"}
    script_extract(scripted_llm, ActionSelection=[crawl])
    rctx.max_steps = 1
    out = invoke(graph, rctx, "crawl-refused", prompt="Read the pages linked in this file", documents=[str(links)])
    step = out["history"][0]
    assert step["outcome"] == "failed"
    assert "cloud metadata" in " ".join(step["findings"])
