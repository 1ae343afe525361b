"""A `langgraph dev` several clients share (issue 22): every route behind the key, downloads by the server's own
records, and the operator's limits as caps on what a client's context asks for.

One server for the module, with three client keys and operator limits (PAOR_MAX_STEPS=1, a smaller answer size and
code memory than a client asks for); the scripted model answers the primes scenario, and a `code.execute` program
that needs more memory than the operator allows.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.route_classes import LANGGRAPH_DEV, kind_of
from tests.support import deadlines, scenarios
from tests.support.code_scenarios import code_selection
from tests.support.langgraph_dev import langgraph_dev, scripted_env, served_routes
from tests.support.scenarios import PRIMES_PROMPT
from tests.support.scripted_llm import RecordedRequest, Response, ScriptedLLM

langgraph_sdk = pytest.importorskip("langgraph_sdk", reason="the server extra is not installed")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")

KEY_A = "paor-shared-key-alice-61d0"
KEY_B = "paor-shared-key-bob-0b9e"
KEY_C = "paor-shared-key-carol-7a2f"  # sweeps every route with a key; owns nothing the other tests use
ASSISTANT = "paor"
SECRET = b"Alice's quarterly numbers: revenue 4.2 million, margin 17 %. Not for Bob."

OPERATOR_MAX_STEPS = 1
OPERATOR_ANSWER_TOKENS = 3000
OPERATOR_CODE_MEMORY_MB = 300
#: What a client asks for: far above every operator setting.
GREEDY_CONTEXT = {
    "max_steps": 50,
    "max_retries": 9,
    "request_timeout_s": 3600,
    "token_budget": 10**9,
    "time_budget_s": 10**6,
    "tool_timeout_s": 200,
    "max_document_mb": 4000,
    "chunk_tokens": 10**6,
    "answer_tokens": 100_000,
    "code_time_s": 90,
    "code_memory_mb": 4000,
}
#: A request the scripted judge never finds met: only max_steps ends its run.
STUBBORN_PROMPT = "Write a poem about limits as a report"  # a report: the loop, not a direct answer
STUBBORN_INTENT = {"dataType": "text", "expectedFormat": "markdown", "successCriteria": ["a poem"], "language": "en"}
MEMORY_PROMPT = "Allocate six hundred megabytes and say so"
MEMORY_PROGRAM = "data = bytearray(600 * 1024 * 1024)\nprint('allocated', len(data), 'bytes')\n"


@dataclass
class Server:
    url: str
    root: Path
    env: dict[str, str]
    llm: ScriptedLLM


def _script(llm: ScriptedLLM) -> None:
    """Three scenarios, told apart by the request: primes (scenarios.py); a poem the judge never finds met; a
    code.execute program that allocates 600 MB."""

    def by_request(primes: Response, stubborn: Response, memory: Response) -> Response:
        def answer(request: RecordedRequest) -> Any:
            text = request.text
            chosen = memory if "megabytes" in text else stubborn if "poem" in text else primes
            return chosen(request) if callable(chosen) else chosen

        return answer

    scenarios.script_primes(llm)
    memory_intent = {**scenarios.PRIMES_INTENT, "successCriteria": ["says it allocated the memory"]}
    llm.on(
        "Intent",
        by_request(json.dumps(scenarios.PRIMES_INTENT), json.dumps(STUBBORN_INTENT), json.dumps(memory_intent)),
    )
    llm.on(
        "ActionSelection", by_request(scenarios.selection, scenarios.selection, code_selection("Allocate megabytes"))
    )
    poem = {"schema": "parameters_v1", "parameters": {"aiPrompt": "Write the poem about limits."}}
    code = {"schema": "parameters_v1", "parameters": {"code": MEMORY_PROGRAM}}
    llm.on("ParametersAnswer", by_request(scenarios.parameters, poem, code))
    llm.on("text", by_request(scenarios.ai_process, "Limits, limits everywhere.", "allocated"))
    llm.on("ContentJudgement", {"criteriaMet": [False], "qualityScore": 0.2, "issues": ["not yet"]})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("shared")
    with ScriptedLLM() as llm:
        _script(llm)
        env = scripted_env(
            llm.base_url,
            root / "paor-home",
            PAOR_SERVER_API_KEY=f"{KEY_A},{KEY_B},{KEY_C}",
            PAOR_MAX_STEPS=str(OPERATOR_MAX_STEPS),
            PAOR_ANSWER_TOKENS=str(OPERATOR_ANSWER_TOKENS),
            PAOR_CODE_MEMORY_MB=str(OPERATOR_CODE_MEMORY_MB),
        )
        with langgraph_dev(root, env) as url:
            yield Server(url=url, root=root, env=env, llm=llm)


def _client(server: Server, key: str) -> Any:
    return langgraph_sdk.get_sync_client(url=server.url, api_key=key, timeout=deadlines.HTTP_S)


def _http(server: Server, key: str | None = None) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=deadlines.HTTP_S, headers={"x-api-key": key} if key else {})


# --- 1. every route behind the key -------------------------------------------------------------------------------

EVERY_METHOD = ("GET", "POST", "PUT", "PATCH", "DELETE")
#: LangGraph's in-memory development routes act on every client's threads or the operator's LangSmith account.
DEVELOPMENT_ROUTES = re.compile(r"^/(internal|deploy)(/|$)")


@pytest.fixture(scope="module")
def routes(server: Server) -> list[tuple[str, str]]:
    """(method, path) of every route the server answers: its router walked, plus everything its OpenAPI lists."""
    found: set[tuple[str, str]] = set()
    for route in served_routes(server.root, server.env):
        methods = route["methods"] or EVERY_METHOD
        found.update((method, route["path"]) for method in methods if method != "WEBSOCKET")  # see the ws test
    with _http(server, KEY_C) as http:
        spec = http.get("/openapi.json").json()
    for path, operations in spec["paths"].items():
        found.update((method.upper(), path) for method in operations if method.upper() in (*EVERY_METHOD, "HEAD"))
    assert ("GET", "/internal/debug/thread/{thread_id}") in found and ("POST", "/paor/documents") in found
    return sorted(found)


def test_every_route_the_server_answers_is_classified_and_the_v2_command_routes_are_off(server: Server) -> None:
    """A route a langgraph-api upgrade adds fails here until someone decides which checks stand in front of it; the
    v2 `/commands` route starts runs past paor's attachment and pinned-resume handling (issue 51)."""
    served = {
        (method, route["path"])
        for route in served_routes(server.root, server.env)
        for method in route["methods"] or ()  # a mount (every method): its files are classified by their template
        if method != "HEAD"
    }
    unclassified = sorted(route for route in served if kind_of(*route, LANGGRAPH_DEV) is None)
    assert not unclassified, f"routes nobody classified (server/route_classes.py): {unclassified}"
    thread = _client(server, KEY_C).threads.create()["thread_id"]
    with _http(server, KEY_C) as carol:
        started = {"id": 1, "method": "run.start", "params": {"assistant_id": ASSISTANT, "input": {"prompt": "hi"}}}
        refused = carol.post(f"/threads/{thread}/commands", json=started)
        unknown = carol.post(f"/threads/{thread}/teleport", json={})
        runs = carol.get(f"/threads/{thread}/runs").json()
    assert refused.status_code == 404 and "v2 event streaming is off" in refused.text, refused.text
    assert unknown.status_code == 404 and "not a route paor serves" in unknown.text, unknown.text
    assert runs == []


def _concrete(path: str) -> str:
    """A path template with every parameter filled in (a UUID serves as thread, run, assistant id and name)."""
    return re.sub(r"\{[^}]+\}", "00000000-0000-4000-8000-000000000000", path)


def _status(http: httpx.Client, method: str, path: str) -> int:
    """The status alone: streams (SSE) are closed once their headers are in."""
    with http.stream(method, _concrete(path), headers={"content-type": "application/json"}) as response:
        return response.status_code


@pytest.mark.parametrize(
    "credentials",
    [
        {},
        {"x-api-key": "wrong-key"},
        {"x-api-key": KEY_A[:-1]},
        {"x-api-key": KEY_A + "0"},
        {"authorization": f"Bearer {KEY_A}"},
    ],
    ids=["no key", "wrong key", "partial key", "extended key", "key in the wrong header"],
)
def test_every_route_the_server_answers_needs_a_key_but_ok(
    server: Server, routes: list[tuple[str, str]], credentials: dict[str, str]
) -> None:
    with httpx.Client(base_url=server.url, timeout=deadlines.HTTP_S, headers=credentials) as http:
        answered = {(method, path): _status(http, method, path) for method, path in routes if path != "/ok"}
        assert http.get("/ok").status_code == 200, "the liveness route stays open"
        assert http.get("/no/such/route").status_code == 401
    opened = {route: status for route, status in answered.items() if status != 401}
    assert not opened, f"answered without a valid key: {opened}"


def test_a_key_opens_every_route_except_the_development_ones(server: Server, routes: list[tuple[str, str]]) -> None:
    with _http(server, KEY_C) as http:
        answered = {(method, path): _status(http, method, path) for method, path in routes}
    refused = {route: status for route, status in answered.items() if status == 401}
    assert not refused, f"a valid key was not enough: {refused}"
    development = {route: status for route, status in answered.items() if DEVELOPMENT_ROUTES.match(route[1])}
    assert development and set(development.values()) == {403}, development
    for path in ("/docs", "/openapi.json", "/metrics", "/info"):
        assert answered[("GET", path)] == 200, path


def test_the_debug_route_no_longer_hands_out_threads_nor_truncate_empties_them(server: Server) -> None:
    thread = _client(server, KEY_A).threads.create()["thread_id"]
    with _http(server) as anonymous, _http(server, KEY_B) as bob:
        assert anonymous.get(f"/internal/debug/thread/{thread}").status_code == 401
        assert bob.get(f"/internal/debug/thread/{thread}").status_code == 403
        assert anonymous.post("/internal/truncate").status_code == 401
        assert bob.post("/internal/truncate").status_code == 403
    assert _client(server, KEY_A).threads.get(thread)["thread_id"] == thread, "the thread survived"


def test_the_websocket_route_needs_a_key(server: Server) -> None:
    ws_client = pytest.importorskip("websockets.sync.client", reason="the websockets package is not installed")
    from websockets.exceptions import InvalidStatus

    url = server.url.replace("http://", "ws://") + _concrete("/threads/{thread_id}/stream/events")
    with pytest.raises(InvalidStatus) as refused:
        ws_client.connect(url, open_timeout=deadlines.HTTP_S).close()
    assert refused.value.response.status_code == 401


def test_a_browser_preflight_is_answered_without_a_key(server: Server) -> None:
    preflight = {"origin": "http://localhost:3000", "access-control-request-method": "POST"}
    with _http(server) as http:
        answered = http.options("/threads/search", headers=preflight)
        assert answered.status_code == 200 and answered.headers["access-control-allow-origin"]
        assert http.options("/threads/search").status_code == 401, "only a CORS preflight, answered by CORS"


# --- 2. downloads by the server's records ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def alice_upload(server: Server) -> dict[str, Any]:
    with _http(server, KEY_A) as http:
        uploaded = http.post("/paor/documents", params={"name": "quarterly.txt"}, content=SECRET)
    assert uploaded.status_code == 201, uploaded.text
    return dict(uploaded.json())


@pytest.fixture(scope="module")
def bob_run(server: Server) -> tuple[str, dict[str, Any]]:
    """Bob's own primes run: one step (the operator's max_steps), whose result is his deliverable."""
    bob = _client(server, KEY_B)
    thread = bob.threads.create()["thread_id"]
    out = bob.runs.wait(thread, ASSISTANT, input={"prompt": PRIMES_PROMPT}, raise_error=True)
    assert isinstance(out, dict) and out["deliverables"], out
    return thread, out


def _forged(upload: dict[str, Any], name: str = "stolen.txt") -> dict[str, Any]:
    return {"label": "x", "name": name, "mime": "text/plain", "size": upload["size"], "sha256": upload["sha256"]}


def _unsigned(deliverable: dict[str, Any]) -> dict[str, Any]:
    """A deliverable without its link's signature and expiry time (a link signed a second later differs)."""
    return {**deliverable, "url": deliverable["url"].split("?", 1)[0]}


def test_a_forged_state_write_downloads_nothing_and_bobs_own_deliverables_still_do(
    server: Server, alice_upload: dict[str, Any], bob_run: tuple[str, dict[str, Any]]
) -> None:
    thread, out = bob_run
    forged = _forged(alice_upload)
    with _http(server, KEY_B) as bob:
        written = bob.post(f"/threads/{thread}/state", json={"values": {"deliverables": [forged]}})
        assert written.status_code == 403, written.text
        assert bob.get(f"/paor/threads/{thread}/documents/x/stolen.txt").status_code == 404

        patched = bob.patch(f"/threads/{thread}", json={"metadata": {"topic": "primes"}})
        assert patched.status_code == 200 and patched.json()["metadata"]["topic"] == "primes", "metadata stays"

        [own] = out["deliverables"]
        [listed] = bob.get(f"/paor/threads/{thread}/deliverables").json()["deliverables"]
        assert _unsigned(listed) == _unsigned(own)  # each listing signs its links afresh: `expires` moves on
        for link in (own["url"], listed["url"]):
            download = bob.get(link)
            assert download.status_code == 200 and hashlib.sha256(download.content).hexdigest() == own["sha256"]
        assert bob.get(f"/paor/threads/{thread}/documents/input/quarterly.txt").status_code == 404


def test_a_new_threads_supersteps_cannot_write_documents_either(server: Server, alice_upload: dict[str, Any]) -> None:
    forged = {**_forged(alice_upload, "quarterly.txt"), "label": "input"}
    superstep = {"updates": [{"values": {"input_documents": [forged], "deliverables": [forged]}, "as_node": "intent"}]}
    with _http(server, KEY_B) as bob:
        created = bob.post("/threads", json={"metadata": {"graph_id": ASSISTANT}, "supersteps": [superstep]})
        assert "state is written by its runs only" in created.json()["detail"], created.text
        thread = re.search(r"Thread (\S+) was created", created.json()["detail"]).group(1)  # type: ignore[union-attr]
        assert bob.get(f"/paor/threads/{thread}/documents/input/quarterly.txt").status_code == 404
        assert bob.get(f"/paor/threads/{thread}/deliverables").json()["deliverables"] == []


def test_a_run_command_cannot_write_document_fields_or_steer_the_loop(
    server: Server, alice_upload: dict[str, Any], bob_run: tuple[str, dict[str, Any]]
) -> None:
    thread, _ = bob_run
    command = {"update": {"deliverables": [_forged(alice_upload)]}, "goto": "finalize"}
    # A selection "chosen ahead" would be adopted by select without the operator's allowed-actions check.
    chosen = {"action": "code.execute", "actionObjective": "run my program", "parametersContext": "print(1)"}
    steering = {"update": {"ahead": {"round": 1, "step": 2, "selection": chosen}}, "goto": "select"}
    # A Send runs a node on a state the client wrote: act would run the action, past select and approval.
    sending = {"goto": [{"node": "act", "input": {"selection": chosen, "parameters": {"code": "print(1)"}}}]}
    rooted = {"update": [{"ahead": chosen}]}  # not [key, value] pairs: LangGraph writes it as the whole state
    with _http(server, KEY_B) as bob:
        for hostile in (command, steering, sending, rooted):
            refused = bob.post(f"/threads/{thread}/runs/wait", json={"assistant_id": ASSISTANT, "command": hostile})
            assert refused.status_code == 403, (hostile, refused.text)
            assert "state is written by its runs only" in refused.json()["detail"]
        assert bob.get(f"/paor/threads/{thread}/documents/x/stolen.txt").status_code == 404


def test_alices_upload_reference_stays_a_capability(server: Server, alice_upload: dict[str, Any]) -> None:
    """Whoever holds the reference may use it: uploads are capabilities, as before; the run reads the document."""
    bob = _client(server, KEY_B)
    thread = bob.threads.create()["thread_id"]
    bob.runs.wait(thread, ASSISTANT, input={"prompt": PRIMES_PROMPT, "documents": [alice_upload["reference"]]})
    with _http(server, KEY_B) as http:
        assert http.get(f"/paor/threads/{thread}/documents/input/quarterly.txt").content == SECRET


# --- 3. the operator's limits cap a client's context -------------------------------------------------------------


def test_a_greedy_context_runs_within_the_operators_limits(server: Server) -> None:
    client = _client(server, KEY_A)
    thread = client.threads.create()["thread_id"]
    seen = len(server.llm.requests)
    out = client.runs.wait(thread, ASSISTANT, input={"prompt": STUBBORN_PROMPT}, context=GREEDY_CONTEXT)
    assert isinstance(out, dict) and out["stop_reason"] == f"max_steps ({OPERATOR_MAX_STEPS}) reached", out
    assert out["totals"]["steps"] == OPERATOR_MAX_STEPS
    [tool_call] = [r for r in server.llm.requests[seen:] if r.route == "text"]
    assert tool_call.body["max_tokens"] == OPERATOR_ANSWER_TOKENS, "ai.process's answer bound is the operator's"


def test_model_written_code_gets_the_operators_memory_not_the_clients(server: Server) -> None:
    from tools import catalog

    catalog.catalog()
    if reason := catalog.unavailable().get("code.execute"):
        pytest.skip(f"code.execute is unavailable on this machine: {reason}")
    client = _client(server, KEY_A)
    thread = client.threads.create()["thread_id"]
    # Stage 1 chooses code.execute here; a one-line request would otherwise get the direct answer (issue 26).
    context = {**GREEDY_CONTEXT, "direct_answer": False}
    out = client.runs.wait(thread, ASSISTANT, input={"prompt": MEMORY_PROMPT}, context=context)
    assert isinstance(out, dict), out
    said = json.dumps(out)
    assert f"more than {OPERATOR_CODE_MEMORY_MB} MB" in said, said[:2000]
    assert f"allocated {600 * 1024 * 1024} bytes" not in said
