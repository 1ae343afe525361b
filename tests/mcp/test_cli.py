"""The `paor` command with MCP servers, in a real process: `--mcp-config`, PAOR_MCP_CONFIG, `paor doctor`; a
server's stderr never reaches the terminal and no server process outlives the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.mcp.conftest import Declare, faulty_server
from tests.mcp.scenarios import TIME_PROMPT, script_time, script_tool_run
from tests.mcp.test_servers import alive
from tests.support import deadlines
from tests.support.scripted_llm import ScriptedLLM

REPO = Path(__file__).resolve().parents[2]


def paor(*args: str, llm: ScriptedLLM, home: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PAOR_")},
        "PYTHONPATH": str(REPO),
        "OPENAI_BASE_URL": llm.base_url,
        "PAOR_MODEL": "scripted",
        "PAOR_MAX_RETRIES": "0",
        "PAOR_HOME": str(home),
        **env,
    }
    command = [sys.executable, "-m", "cli", *args]
    return subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=deadlines.PROCESS_S
    )


def test_run_with_mcp_config_chooses_the_tool_and_keeps_the_servers_stderr_off_the_terminal(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare, time_server: dict[str, Any]
) -> None:
    starts = tmp_path / "starts.txt"
    noisy = faulty_server("flood-stderr", env={"PAOR_TEST_STARTS": str(starts)})
    script_time(scripted_llm)

    done = paor(
        "run",
        TIME_PROMPT,
        "--json",
        "--mcp-config",
        str(declare(time=time_server, noisy=noisy)),
        llm=scripted_llm,
        home=isolated_home,
        cwd=tmp_path,
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed"
    assert Path(result["deliverables"][0]["path"]).name == "get_current_time.json"
    assert "mcp.time.get_current_time" in done.stderr  # the progress shows the action
    assert "noise" not in done.stderr and "Processing request" not in done.stderr
    assert "noise" in (isolated_home / "logs" / "mcp" / "noisy.log").read_text()[:100]
    [pid] = starts.read_text().split()
    assert not alive(int(pid))  # closed with the command: no orphan


def test_the_env_var_declares_the_servers_for_run_and_resume(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare
) -> None:
    script_tool_run(scripted_llm, "mcp.notes.write_note", {"text": "buy milk"})
    config = str(declare(notes=faulty_server()))

    waiting = paor(
        "run",
        "Note: buy milk",
        "--approve",
        "side_effects",
        "--thread",
        "n1",
        llm=scripted_llm,
        home=isolated_home,
        cwd=tmp_path,
        PAOR_MCP_CONFIG=config,
    )
    assert waiting.returncode == 3, waiting.stderr  # not read-only: the run asks first
    assert "mcp.notes.write_note" in waiting.stderr
    done = paor(
        "resume",
        "n1",
        "--answer",
        "approve",
        "--json",
        llm=scripted_llm,
        home=isolated_home,
        cwd=tmp_path,
        PAOR_MCP_CONFIG=config,
    )

    assert done.returncode == 0, done.stderr
    assert Path(json.loads(done.stdout)["deliverables"][0]["path"]).read_text() == "noted: buy milk"


def test_doctor_lists_each_server_and_the_reason_one_cannot_start(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare, time_server: dict[str, Any]
) -> None:
    config = declare(time=time_server, broken=faulty_server("crash-at-start"))

    done = paor("doctor", "--mcp-config", str(config), llm=scripted_llm, home=isolated_home, cwd=tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr  # the other actions still work: a warning
    assert "mcp time        2 tools (stdio:" in done.stdout
    assert "mcp broken      unavailable: could not start" in done.stdout
    assert "! mcp.broken.* is unavailable: the MCP server broken could not start" in done.stdout
    assert "configuration broken, giving up" in done.stdout
    assert "✓ ready" in done.stdout
