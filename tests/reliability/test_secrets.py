"""Secrets: a recognisable API key is used for the calls and appears in no output, log, stream, file or CLI text."""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.app import app
from core.context import Context
from core.persistence import open_sqlite
from graph.builder import build_graph
from tests.reliability.conftest import DIRECT_PARAMETERS, DIRECT_SELECTION, script_direct
from tests.support.scenarios import PRIMES_PROMPT
from tests.support.scripted_llm import ScriptedLLM

# Random parts from a 64-letter alphabet: an 8-character piece then occurs by chance about once in 10^14 bytes,
# so a fragment found in a file is a leak, not a coincidence (hex pieces would match UUIDs and hashes).
OPENAI_CANARY = "sk-paor-canary-" + secrets.token_urlsafe(18)
TAVILY_CANARY = "tvly-paor-canary-" + secrets.token_urlsafe(18)
CANARIES = (OPENAI_CANARY, TAVILY_CANARY)
#: The shortest piece of a key that counts as leaked: a log line with the key's last 8 characters is a leak.
FRAGMENT = 8
SEARCH = {
    **DIRECT_SELECTION,
    "action": "web.search",
    "actionObjective": "Find a list of the first 1000 primes",
    "parametersSchema": {"fields": [{"name": "query", "type": "string", "required": True}]},
}
SEARCH_PARAMETERS = {"schema": "parameters_v1", "parameters": {"query": "first 1000 prime numbers"}}


class TavilyStub:
    """Answers /search like Tavily and remembers the Authorization headers it saw."""

    def __init__(self) -> None:
        stub = self
        self.authorizations: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                stub.authorizations.append(self.headers.get("Authorization", ""))
                answer = {
                    "query": body.get("query", ""),
                    "answer": None,
                    "results": [
                        {"url": "https://primes.example/list", "title": "Primes", "content": "2, 3, 5, 7", "score": 0.9}
                    ],
                    "response_time": 0.01,
                }
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def canary_env(monkeypatch: pytest.MonkeyPatch, scripted_llm: ScriptedLLM) -> Iterator[TavilyStub]:
    stub = TavilyStub()
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_CANARY)
    monkeypatch.setenv("TAVILY_API_KEY", TAVILY_CANARY)
    monkeypatch.setenv("TAVILY_BASE_URL", stub.base)
    script_direct(
        scripted_llm,
        ActionSelection=[SEARCH, DIRECT_SELECTION],
        ParametersAnswer=[SEARCH_PARAMETERS, DIRECT_PARAMETERS],
        ContentJudgement=[{"criteriaMet": [False], "qualityScore": 0.1, "issues": ["a list of links, not numbers"]}],
    )
    try:
        yield stub
    finally:
        stub.close()


def fragments(key: str) -> list[bytes]:
    """Every FRAGMENT-character piece of the key's secret part (any longer piece contains one), in UTF-8 and UTF-16.

    The fixed prefix (`sk-paor-canary-`) is public, like OpenAI's `sk-proj-`: a piece of it alone, or a piece that
    straddles it, would also match harmless text such as a thread called "canary-cli"."""
    secret = key.partition("-canary-")[2]
    pieces = {secret[i : i + FRAGMENT] for i in range(len(secret) - FRAGMENT + 1)}
    return [form for piece in sorted(pieces) for form in (piece.encode(), piece.encode("utf-16-le"))]


def leaks(haystack: bytes | str) -> list[str]:
    """The canaries of which any piece of 8 or more characters occurs in `haystack`."""
    data = haystack if isinstance(haystack, bytes) else haystack.encode("utf-8", "surrogatepass")
    return [canary for canary in CANARIES if any(form in data for form in fragments(canary))]


@pytest.mark.parametrize("canary", CANARIES, ids=["openai", "tavily"])  # the keys are random: ids name them
@pytest.mark.parametrize(
    "cut", [slice(-FRAGMENT, None), slice(-16, None), slice(-20, -12)], ids=["tail8", "tail16", "middle"]
)
def test_the_scanner_finds_any_piece_of_a_key(canary: str, cut: slice) -> None:
    assert leaks(f"key=…{canary[cut]}…") == [canary]
    assert leaks(f"key=…{canary[cut]}…".encode("utf-16-le")) == [canary]
    assert leaks(f"key=…{canary[-FRAGMENT + 1 :]}…") == []  # 7 characters are not enough to tell


def scan_tree(root: Path) -> dict[str, list[str]]:
    return {str(p): hit for p in root.rglob("*") if p.is_file() and (hit := leaks(p.read_bytes()))}


def test_the_api_keys_appear_in_no_output_stream_log_or_file(
    canary_env: TavilyStub, scripted_llm: ScriptedLLM, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    context = Context(
        model="scripted", base_url=scripted_llm.base_url, max_retries=0, store_dir=str(tmp_path / "store")
    )
    db = tmp_path / "secrets.sqlite"
    with open_sqlite(db) as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        config = {"configurable": {"thread_id": "canary"}}
        events = list(
            graph.stream(
                {"prompt": PRIMES_PROMPT},
                config,
                context=context,
                stream_mode=["values", "updates", "custom", "messages", "debug", "tasks", "checkpoints"],
            )
        )
        state = graph.get_state(config)
        history = list(graph.get_state_history(config))
        learned = store.search(("paor",), limit=100)

    assert canary_env.authorizations == [f"Bearer {TAVILY_CANARY}"]  # the key was really used…
    assert state.values["status"] == "completed"
    assert [h["action"] for h in state.values["history"]] == ["web.search", "ai.process"]
    # …and is nowhere to be found afterwards.
    assert leaks(repr(events)) == []
    assert leaks(repr(state)) == [] and leaks(repr(history)) == [] and leaks(repr(learned)) == []
    assert leaks("\n".join(r.getMessage() + repr(r.args) for r in caplog.records)) == []
    assert leaks(caplog.text) == []
    assert leaks(repr(context)) == []
    assert scan_tree(tmp_path) == {}  # the SQLite file (and -wal/-shm), the document store, everything


def test_cli_run_json_history_doctor_and_strategies_never_print_the_keys(
    canary_env: TavilyStub, scripted_llm: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", scripted_llm.base_url)
    monkeypatch.setenv("PAOR_MODEL", "scripted")
    monkeypatch.setenv("PAOR_MAX_RETRIES", "0")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    outputs = []
    for args in (
        ["run", PRIMES_PROMPT, "--thread", "canary-cli", "--json"],
        ["run", PRIMES_PROMPT, "--thread", "canary-cli-2"],
        ["history", "canary-cli"],
        ["strategies"],
        ["doctor"],
        ["resume", "canary-cli"],
    ):
        result = runner.invoke(app, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
        outputs.append((args, result.exit_code, result.stdout + result.stderr))
    assert [code for _, code, _ in outputs][:3] == [0, 0, 0]
    assert "OPENAI_API_KEY  set" in outputs[4][2]
    for args, _, text in outputs:
        assert leaks(text) == [], args
    assert scan_tree(tmp_path) == {}  # PAOR_HOME lives under tmp_path too (database, store, exported deliverables)


def test_an_endpoint_rejecting_the_key_is_reported_without_the_key(
    scripted_llm: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A hostile or careless endpoint that echoes the key it was given in its 401 body.
    echo = json.dumps(
        {"error": {"message": f"Incorrect API key provided: {OPENAI_CANARY}", "type": "invalid_request_error"}}
    )
    from tests.support.scripted_llm import HTTPError

    scripted_llm.on("Intent", HTTPError(401, echo))
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_CANARY)
    monkeypatch.setenv("OPENAI_BASE_URL", scripted_llm.base_url)
    monkeypatch.setenv("PAOR_MODEL", "scripted")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["run", PRIMES_PROMPT, "--thread", "bad-key"])
    assert result.exit_code == 2  # credentials refused: configuration, not "try again later"
    assert "refused paor's credentials (HTTP 401); check OPENAI_API_KEY" in result.stderr
    assert leaks(result.stdout + result.stderr) == []
