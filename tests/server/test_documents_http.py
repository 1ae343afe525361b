"""Documents over HTTP on the real `langgraph dev`: uploads in, deliverables out, host files refused, MCP.

One server (auth off, as `langgraph dev` is by default) serves the module, with an operator folder
(PAOR_SERVER_DOCUMENTS_DIR), a 1 MB document cap and a throwaway HOME. The scripted loopback model answers the
primes scenario and a "summarise the attached documents" scenario, each by what its prompt holds.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.schemas import DocumentRef
from tests.support import deadlines, scenarios
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scenarios import PRIMES_PROMPT
from tests.support.scripted_llm import RecordedRequest, Response, ScriptedLLM
from tests.unit.documents.builders import docx_bytes, pdf_bytes
from tools.document.detect import DOCX_MIME
from tools.documents import DocumentStore

langgraph_sdk = pytest.importorskip("langgraph_sdk", reason="the server extra is not installed")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")

ASSISTANT = "paor"
SUMMARY_PROMPT = "Summarise the attached documents"
PDF_FACT = "The Severn barrage would deliver 8.6 gigawatts at spring tide."
PDF = pdf_bytes(PDF_FACT)
DOCX = docx_bytes()  # says "Alpha paragraph before the table."
SECRET = b"-----BEGIN PRIVATE KEY----- never to be read by a server client"


@dataclass
class Server:
    url: str
    home: Path
    root: Path
    llm: ScriptedLLM

    @property
    def store(self) -> DocumentStore:
        return DocumentStore(self.home / "documents" / "server")  # the server's own folder of the store

    def stored(self, data: bytes) -> bool:
        digest = hashlib.sha256(data).hexdigest()
        return (self.store.root / digest[:2] / digest[2:4] / digest).exists()


SUMMARY_INTENT = {
    "dataType": "analysis",
    "expectedFormat": "markdown",
    "successCriteria": ["summarises both documents"],
    "language": "en",
}
SUMMARY_SELECTION = {
    "action": "document.extract",
    "actionObjective": "Read both documents and summarise them",
    "requiredInputDocuments": ["docList:input"],
    "parametersContext": "Summarise both documents in a few sentences.",
    "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
}
SUMMARY_PARAMETERS = {"schema": "parameters_v1", "parameters": {"aiPrompt": "Summarise both documents."}}


def _summary(request: RecordedRequest) -> str:
    """Quotes what it was given, so the test sees both uploads reached the model."""
    found = [fact for fact in ("Severn barrage", "Alpha paragraph") if fact in request.text]
    return "Summary: " + (" and ".join(found) or "no document reached the model") + "."


def _by_scenario(summary: Response, primes: Response) -> Response:
    def answer(request: RecordedRequest) -> Response:
        about_summary = SUMMARY_PROMPT in request.text or "both documents" in request.text
        return summary if about_summary else primes

    return answer


def _script(llm: ScriptedLLM) -> None:
    """The primes scenario, and "summarise the attached documents" (one document.extract with aiPrompt)."""
    llm.on("Intent", _by_scenario(json.dumps(SUMMARY_INTENT), json.dumps(scenarios.PRIMES_INTENT)))
    llm.on("ActionSelection", _by_scenario(SUMMARY_SELECTION, scenarios.selection))
    llm.on("ParametersAnswer", _by_scenario(SUMMARY_PARAMETERS, scenarios.parameters))
    llm.on("text", _by_scenario(_summary, scenarios.ai_process))
    llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "issues": []})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("documents-http")
    home = root / "paor-home"
    allowed = root / "allowed"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("Notes from the operator's folder.", encoding="utf-8")
    (allowed / "first.txt").write_text("Admitted, but listed before a refused input.", encoding="utf-8")
    (root / "outside.txt").write_bytes(SECRET)
    (allowed / "link.txt").symlink_to(root / "outside.txt")
    (root / "home" / ".ssh").mkdir(parents=True)
    (root / "home" / ".ssh" / "id_rsa").write_bytes(SECRET + b" (home)")
    with ScriptedLLM() as llm:
        _script(llm)
        env = scripted_env(
            llm.base_url,
            home,
            HOME=str(root / "home"),
            PAOR_MAX_DOCUMENT_MB="1",
            PAOR_SERVER_DOCUMENTS_DIR=str(allowed),
        )
        with langgraph_dev(root, env) as url:
            yield Server(url=url, home=home, root=root, llm=llm)


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    return langgraph_sdk.get_sync_client(url=server.url, api_key=None, timeout=deadlines.HTTP_S)


@pytest.fixture(scope="module")
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=deadlines.HTTP_S) as session:
        yield session


def _upload(http: httpx.Client, name: str, data: bytes) -> dict[str, Any]:
    response = http.post("/paor/documents", params={"name": name}, content=data)
    assert response.status_code == 201, response.text
    return response.json()


def _run(client: Any, prompt: str, documents: list[str] | None = None) -> tuple[str, dict[str, Any]]:
    thread = client.threads.create()["thread_id"]
    request: dict[str, Any] = {"prompt": prompt, **({"documents": documents} if documents is not None else {})}
    out = client.runs.wait(thread, ASSISTANT, input=request, raise_error=False)
    assert isinstance(out, dict), out
    return thread, out


@pytest.fixture(scope="module")
def summary_run(client: Any, http: httpx.Client) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    uploads = [_upload(http, "scan.pdf", PDF), _upload(http, "quarterly.docx", DOCX)]
    thread, out = _run(client, SUMMARY_PROMPT, [u["reference"] for u in uploads])
    return thread, out, uploads


@pytest.fixture(scope="module")
def primes_run(client: Any) -> tuple[str, dict[str, Any]]:
    return _run(client, PRIMES_PROMPT)


def test_uploaded_pdf_and_docx_are_summarised_and_the_deliverable_downloads_byte_for_byte(
    server: Server, http: httpx.Client, summary_run: tuple[str, dict[str, Any], list[dict[str, Any]]]
) -> None:
    thread, out, (pdf, docx) = summary_run
    assert (pdf["name"], pdf["mime"], pdf["size"]) == ("scan.pdf", "application/pdf", len(PDF))
    assert (docx["name"], docx["mime"]) == ("quarterly.docx", DOCX_MIME)
    assert docx["sha256"] == hashlib.sha256(DOCX).hexdigest()
    assert out.get("status") == "completed", out

    listed = http.get(f"/paor/threads/{thread}/deliverables")
    assert listed.status_code == 200
    deliverables = listed.json()["deliverables"]
    assert deliverables == out["deliverables"], "the run's output already carries the download URLs"
    [analysis] = [d for d in deliverables if d["name"] == "analysis.md"]
    download = http.get(analysis["url"])
    assert download.status_code == 200
    assert download.content == server.store.read_bytes(DocumentRef.model_validate(analysis))
    assert download.text == "Summary: Severn barrage and Alpha paragraph."
    assert download.headers["content-type"].startswith("text/markdown")
    assert download.headers["content-disposition"] == 'attachment; filename="analysis.md"'
    assert download.headers["x-content-type-options"] == "nosniff"

    original = http.get(f"/paor/threads/{thread}/documents/input/scan.pdf")
    assert original.content == PDF and original.headers["content-type"] == "application/pdf"


def test_the_full_primes_deliverable_downloads_although_the_answer_is_cut(
    http: httpx.Client, primes_run: tuple[str, dict[str, Any]]
) -> None:
    _, out = primes_run
    assert out["status"] == "completed", out
    [result] = out["deliverables"]
    assert "7919" not in out["answer"]
    assert out["answer"].endswith(f"(truncated; the full text is in [result.md]({result['url']}))")  # clickable

    text = http.get(result["url"]).text
    assert text.rstrip().endswith("7907, 7919")
    primes = [item.strip() for item in text.split(":", 1)[1].split(",")]
    assert len(primes) == 1000
    last_shown = out["answer"].split("\n\n… (truncated", 1)[0].rsplit(", ", 1)[-1]
    assert last_shown in primes, f"the cut answer ends inside a number: {last_shown!r}"


def test_host_paths_are_refused_up_front_and_never_enter_the_store(
    server: Server, client: Any, primes_run: tuple[str, dict[str, Any]]
) -> None:
    database = server.home / "paor.sqlite"
    assert database.is_file(), "the primes run created the database"
    attempts = {
        "/etc/passwd": Path("/etc/passwd").read_bytes(),
        str(server.root / "home" / ".ssh" / "id_rsa"): SECRET + b" (home)",
        "~/.ssh/id_rsa": SECRET + b" (home)",
        "../outside.txt": SECRET,
        str(database): database.read_bytes(),
        "link.txt": SECRET,
        "file:///etc/passwd": Path("/etc/passwd").read_bytes(),
    }
    for source, content in attempts.items():
        _, out = _run(client, PRIMES_PROMPT, ["first.txt", source])
        error = out.get("__error__") or {}
        assert error.get("error") == "InputRefused", (source, out)
        assert repr(source) in error["message"] and "PAOR_SERVER_DOCUMENTS_DIR" in error["message"]
        assert not server.stored(content), f"{source} entered the document store"
    assert not server.stored(b"Admitted, but listed before a refused input."), "nothing is ingested before a refusal"


def test_a_file_inside_the_operator_folder_is_accepted(http: httpx.Client, client: Any) -> None:
    thread, out = _run(client, PRIMES_PROMPT, ["notes.txt"])
    assert out["status"] == "completed", out
    download = http.get(f"/paor/threads/{thread}/documents/input/notes.txt")
    assert download.text == "Notes from the operator's folder."


@pytest.mark.parametrize(
    ("name", "kept"),
    [("../../../etc/cron.d/evil.txt", "evil.txt"), ("..\\..\\boot.ini", "boot.ini"), ("..", "document")],
)
def test_upload_names_lose_their_path_parts(server: Server, http: httpx.Client, name: str, kept: str) -> None:
    uploaded = _upload(http, name, b"harmless words")
    assert uploaded["name"] == kept
    assert not list(server.home.rglob(kept)), "the name never becomes a path: the store files bytes by hash"


def test_oversize_and_unreadable_uploads_are_refused(server: Server, http: httpx.Client) -> None:
    too_big = b"a" * (1024 * 1024 + 1)
    assert http.post("/paor/documents", params={"name": "big.txt"}, content=too_big).status_code == 413
    chunked = http.post("/paor/documents", params={"name": "big.txt"}, content=iter([too_big[:600_000], too_big]))
    assert chunked.status_code == 413, "a body without Content-Length is cut at the cap too"
    assert not server.stored(too_big)
    assert http.post("/paor/documents", params={"name": "x.bin"}, content=bytes(range(256)) * 8).status_code == 415
    assert http.post("/paor/documents", content=b"no name").status_code == 400


def test_documents_of_other_threads_unknown_threads_and_path_tricks_are_404(
    http: httpx.Client,
    summary_run: tuple[str, dict[str, Any], list[dict[str, Any]]],
    primes_run: tuple[str, dict[str, Any]],
) -> None:
    summary_thread, _, _ = summary_run
    primes_thread, _ = primes_run
    assert http.get(f"/paor/threads/{summary_thread}/documents/input/scan.pdf").status_code == 200
    for path in (
        f"/paor/threads/{primes_thread}/documents/input/scan.pdf",
        f"/paor/threads/{uuid.uuid4()}/documents/input/scan.pdf",
        f"/paor/threads/{uuid.uuid4()}/deliverables",
        "/paor/threads/not-a-thread/deliverables",
        f"/paor/threads/{summary_thread}/documents/input/..%2F..%2Fpaor.sqlite",
        f"/paor/threads/{summary_thread}/documents/..%2F..%2F..%2Fetc/passwd",
        f"/paor/threads/{summary_thread}/documents/../input/scan.pdf",
        f"/paor/threads/{summary_thread}/documents/input/%2E%2E",
    ):
        response = http.get(path)
        assert response.status_code == 404, (path, response.status_code, response.text[:200])


def test_a_state_write_naming_an_upload_downloads_nothing_and_the_next_run_stops(
    server: Server, http: httpx.Client, client: Any, summary_run: tuple[str, dict[str, Any], list[dict[str, Any]]]
) -> None:
    """Auth off (one user), state writes pass; yet downloads come from the server's own records of what the thread
    produced or received, and no node reads a document its thread has no record of."""
    _, _, (pdf, _) = summary_run
    thread, _ = _run(client, PRIMES_PROMPT)
    forged = {"label": "input", "name": "scan.pdf", "mime": pdf["mime"], "size": len(PDF), "sha256": pdf["sha256"]}
    values = {"input_documents": [forged], "deliverables": [{**forged, "label": "x"}]}
    assert http.post(f"/threads/{thread}/state", json={"values": values}).status_code == 200

    for label in ("input", "x"):
        assert http.get(f"/paor/threads/{thread}/documents/{label}/scan.pdf").status_code == 404, label
    assert http.get(f"/paor/threads/{thread}/deliverables").json()["deliverables"] == []

    asked = len(server.llm.requests)
    out = client.runs.wait(thread, ASSISTANT, input={"prompt": SUMMARY_PROMPT}, raise_error=False)
    assert out["__error__"]["error"] == "UnrecordedDocuments", out
    assert "input/scan.pdf, x/scan.pdf" in out["__error__"]["message"]
    assert server.llm.requests[asked:] == [], "the run stopped before any node read the document"


def _mcp(http: httpx.Client, method: str, params: dict[str, Any], id_: int = 1) -> dict[str, Any]:
    response = http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": id_, "method": method, "params": params},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 200, response.text
    return response.json()


def test_an_mcp_client_lists_paor_and_its_tool_call_completes(http: httpx.Client) -> None:
    hello = _mcp(http, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t"}})
    assert hello["result"]["capabilities"]["tools"] is not None
    notified = http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert notified.status_code == 202

    [tool] = [t for t in _mcp(http, "tools/list", {}, 2)["result"]["tools"] if t["name"] == ASSISTANT]
    assert "POST /paor/documents" in tool["description"] and "prompt" in tool["inputSchema"]["properties"]

    done = _mcp(http, "tools/call", {"name": ASSISTANT, "arguments": {"prompt": PRIMES_PROMPT}}, 3)["result"]
    assert not done.get("isError"), done
    assert "'status': 'completed'" in done["content"][0]["text"]

    refused = _mcp(
        http, "tools/call", {"name": ASSISTANT, "arguments": {"prompt": "Extract it", "documents": ["/etc/passwd"]}}, 4
    )["result"]
    assert refused["isError"] is True and refused["content"][0]["text"] == "InputRefused"
