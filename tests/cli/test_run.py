"""`paor run`: live progress, the answer and deliverables, `--json`, and every exit code."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cli.options import Mode, context_of, given_options
from cli.view import export_deliverables
from core.schemas import DocumentRef
from tests.cli.conftest import Invoke
from tests.support.scenarios import FIRST_1000_PRIMES, PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM
from tools.documents import DocumentStore


def primes_in(path: Path) -> list[int]:
    return [int(n) for n in path.read_text(encoding="utf-8").split(":", 1)[1].split(",")]


def test_run_shows_every_node_with_its_decision_then_the_answer_and_the_deliverable(
    scripted_llm: ScriptedLLM, paor: Invoke, cli_env: Path
) -> None:
    script_primes(scripted_llm)

    result = paor("run", PRIMES_PROMPT, "--thread", "live")

    assert result.exit_code == 0, result.output
    progress = result.stderr
    for node in ("intent", "select", "parameters", "act", "validate", "learn", "refine", "finalize"):
        assert f"] {node}" in progress
    assert "[r1 s1] refine     continue — delivered code, not numbers" in progress
    assert "stop — all success criteria met" in progress
    assert "round1_task1_action1_process  quality 0.20" in progress
    assert "ai.process — Deliver the first 1000 prime numbers" in progress
    assert "tok" in progress and "s ·" in progress  # seconds and tokens per node
    assert "\x1b[" not in result.output  # not a terminal: no ANSI codes

    deliverable = cli_env / "paor-out" / "live" / "round-1" / "result.md"
    assert "Here are the first 1000 prime numbers" in result.stdout
    assert f"deliverables of round 1, in {deliverable.parent}:" in result.stdout
    assert str(deliverable) in result.stdout
    assert primes_in(deliverable) == FIRST_1000_PRIMES


def test_json_prints_one_document_with_status_answer_and_written_deliverables(
    scripted_llm: ScriptedLLM, paor: Invoke, tmp_path: Path
) -> None:
    script_primes(scripted_llm)
    out = tmp_path / "out"

    result = paor("run", PRIMES_PROMPT, "--json", "--out", str(out))

    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)  # stdout holds the JSON document and nothing else
    assert payload["status"] == "completed" and payload["exit_code"] == 0
    assert "criteria met" in payload["stop_reason"]
    assert payload["answer"].startswith("Here are the first 1000 prime numbers")
    assert payload["totals"]["steps"] == 2
    assert payload["thread"] and f"thread {payload['thread']}" in result.stderr
    [deliverable] = payload["deliverables"]
    assert deliverable["name"] == "result.md" and deliverable["mime"] == "text/markdown"
    assert payload["round"] == 1 and payload["folder"] == str((out / "round-1").resolve())
    assert Path(deliverable["path"]) == (out / "round-1" / "result.md").resolve()
    assert primes_in(Path(deliverable["path"])) == FIRST_1000_PRIMES


def test_stopping_without_meeting_the_criteria_exits_1(scripted_llm: ScriptedLLM, paor: Invoke) -> None:
    script_primes(scripted_llm)  # step 1 asks for code, which does not meet the criteria

    result = paor("run", PRIMES_PROMPT, "--max-steps", "1", "--json")

    assert result.exit_code == 1, result.output
    payload = json.loads(result.stdout)
    assert payload["status"] == "incomplete"
    assert payload["totals"]["steps"] == 1


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["run", "   "], "the prompt is empty"),
        (["run", PRIMES_PROMPT, "--doc", "no-such-file.pdf"], "'no-such-file.pdf' does not exist"),
    ],
    ids=["empty-prompt", "missing-doc"],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(
    scripted_llm: ScriptedLLM, paor: Invoke, args: list[str], reason: str
) -> None:
    script_primes(scripted_llm)

    result = paor(*args)

    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    [error] = [line for line in result.stderr.splitlines() if line.startswith("paor:")]
    assert reason in error
    assert "Traceback" not in result.output


def test_missing_api_key_without_a_local_endpoint_exits_2(paor: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")

    result = paor("run", PRIMES_PROMPT)

    assert result.exit_code == 2, result.output
    assert "OPENAI_API_KEY is not set" in result.stderr and "Traceback" not in result.output


def test_corrupt_database_exits_2_and_is_left_untouched(
    paor: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    garbage = tmp_path / "garbage.sqlite"
    content = b"this is not a database\x00\xff" * 64
    garbage.write_bytes(content)
    monkeypatch.setenv("PAOR_DB", str(garbage))

    result = paor("run", PRIMES_PROMPT)

    assert result.exit_code == 2, result.output
    assert "is not an SQLite database" in result.stderr
    assert garbage.read_bytes() == content
    assert sorted(p.name for p in tmp_path.glob("garbage*")) == ["garbage.sqlite"]  # no -wal/-shm beside it


def test_exported_names_stay_inside_the_out_folder_and_do_not_overwrite_each_other(tmp_path: Path) -> None:
    documents = DocumentStore(tmp_path / "store")
    stored = documents.put_text("one", label="l", name="a.md")
    second = documents.put_text("two", label="l", name="a.md")
    refs = [
        stored.model_copy(update={"name": "../../escape.md"}),
        second.model_copy(update={"name": "..\\..\\escape.md"}),
        DocumentRef.model_validate({**stored.model_dump(), "name": ".."}),
    ]

    written = export_deliverables(refs, documents, tmp_path / "out")

    root = (tmp_path / "out").resolve()
    assert [p.name for p in written] == ["escape.md", "escape-2.md", "document"]
    assert all(p.parent == root for p in written)
    assert [p.read_text() for p in written] == ["one", "two", "one"]
    assert not (tmp_path / "escape.md").exists()


def test_options_set_only_the_context_fields_the_user_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAOR_MODEL", "from-env")

    context = context_of(given_options(None, "http://localhost:8080/v1", 3, Mode.Actionplan, False))

    assert context.workflow_mode == "Actionplan"
    assert context.max_steps == 3
    assert context.base_url == "http://localhost:8080/v1"
    assert context.model == "from-env"


def test_local_runs_against_the_server_serve_local_starts(
    scripted_llm: ScriptedLLM, paor: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cli.local_model as local_model

    started: list[str] = []

    @contextmanager
    def fake_serve_local(port: int | None = None) -> Iterator[str]:
        started.append("up")
        yield scripted_llm.base_url
        started.append("down")

    monkeypatch.setattr(local_model, "serve_local", fake_serve_local)
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("PAOR_MODEL")
    script_primes(scripted_llm)

    result = paor("run", PRIMES_PROMPT, "--local", "--json")

    assert result.exit_code == 0, result.output
    assert started == ["up", "down"]
    assert {r.body["model"] for r in scripted_llm.requests} == {local_model.LOCAL_MODEL_NAME}
    assert paor("run", PRIMES_PROMPT, "--local", "--base-url", "http://x/v1").exit_code == 2


def test_serve_local_passes_its_thread_count_to_llama_cpp(paor: Invoke, monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.local_model as local_model

    served: list[dict[str, object]] = []
    monkeypatch.setattr(local_model, "run_local_server", lambda port, **options: served.append(options))

    assert paor("serve-local", "--threads", "1").exit_code == 0
    assert paor("serve-local").exit_code == 0
    assert paor("serve-local", "--threads", "0").exit_code == 2
    assert paor("serve-local", "--threads", str((os.cpu_count() or 1) + 1)).exit_code == 2  # more than the cores

    assert [options["threads"] for options in served] == [1, None]
