"""Each round of a thread keeps its deliverables: a new prompt on the thread writes beside round 1's, not over them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Invoke
from tests.support.scenarios import PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM


def test_a_second_round_on_a_thread_keeps_the_first_rounds_files_and_says_where_its_own_are(
    scripted_llm: ScriptedLLM, paor: Invoke, cli_env: Path
) -> None:
    script_primes(scripted_llm)
    first = cli_env / "paor-out" / "rounds" / "round-1" / "result.md"

    assert paor("run", PRIMES_PROMPT, "--thread", "rounds").exit_code == 0
    kept = first.read_bytes()
    again = paor("run", "The first 1000 prime numbers again, please", "--thread", "rounds")

    assert again.exit_code == 0, again.output
    second = cli_env / "paor-out" / "rounds" / "round-2" / "result.md"
    assert first.read_bytes() == kept and second.is_file()
    assert f"deliverables of round 2, in {second.parent}:" in again.stdout and str(second) in again.stdout
    assert not (cli_env / "paor-out" / "rounds" / "result.md").exists()


def test_out_holds_a_folder_per_round_and_json_names_it(
    scripted_llm: ScriptedLLM, paor: Invoke, tmp_path: Path
) -> None:
    script_primes(scripted_llm)
    out = tmp_path / "deliverables"

    paor("run", PRIMES_PROMPT, "--thread", "t", "--out", str(out))
    result = paor("run", "The first 1000 prime numbers again, please", "--thread", "t", "--out", str(out), "--json")

    payload = json.loads(result.stdout)
    assert (payload["round"], payload["folder"]) == (2, str((out / "round-2").resolve()))
    assert [Path(d["path"]).parent.name for d in payload["deliverables"]] == ["round-2"]
    assert sorted(p.name for p in out.iterdir()) == ["round-1", "round-2"]


def test_resuming_a_finished_thread_exports_into_its_last_rounds_folder(
    scripted_llm: ScriptedLLM, paor: Invoke, cli_env: Path
) -> None:
    script_primes(scripted_llm)
    assert paor("run", PRIMES_PROMPT, "--thread", "done").exit_code == 0
    (cli_env / "paor-out" / "done" / "round-1" / "result.md").unlink()

    assert paor("resume", "done").exit_code == 0
    assert (cli_env / "paor-out" / "done" / "round-1" / "result.md").is_file()
