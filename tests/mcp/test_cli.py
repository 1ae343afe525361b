"""The `paor` command with MCP servers, in a real process: `--mcp-config`, PAOR_MCP_CONFIG, `paor doctor`; a
server's stderr never reaches the terminal and no server process outlives the command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import Declare, faulty_server, orders_server
from tests.mcp.scenarios import TIME_PROMPT, script_time, script_tool_run
from tests.mcp.test_servers import alive
from tests.support import deadlines
from tests.support.scripted_llm import ScriptedLLM
from tests.support.terminal import default_signals

REPO = Path(__file__).resolve().parents[2]


def environment(llm: ScriptedLLM, home: Path, **env: str) -> dict[str, str]:
    """A shell of its own: none of the caller's PAOR_ variables (PAOR_MCP_CONFIG among them) unless given."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("PAOR_")},
        "PYTHONPATH": str(REPO),
        "OPENAI_BASE_URL": llm.base_url,
        "PAOR_MODEL": "scripted",
        "PAOR_MAX_RETRIES": "0",
        "PAOR_HOME": str(home),
        **env,
    }


def where(llm: ScriptedLLM, home: Path, cwd: Path) -> dict[str, Any]:
    return {"llm": llm, "home": home, "cwd": cwd}


def paor(*args: str, llm: ScriptedLLM, home: Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "cli", *args]
    return subprocess.run(
        command, cwd=cwd, env=environment(llm, home, **env), capture_output=True, text=True, timeout=deadlines.PROCESS_S
    )


def test_run_with_mcp_config_chooses_the_tool_and_keeps_the_servers_stderr_off_the_terminal(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare, time_server: dict[str, Any]
) -> None:
    starts = tmp_path / "starts.txt"
    noisy = faulty_server("flood-stderr", "only=echo", env={"PAOR_TEST_STARTS": str(starts)})  # 3 tools: not ranked
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


def test_resume_in_a_new_shell_without_the_env_var_brings_the_threads_servers(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare
) -> None:
    script_tool_run(scripted_llm, "mcp.orders.create_ticket", {"order_id": "A-1", "subject": "late"})
    config = str(declare(orders=orders_server()))
    asked = ("--approve", "side_effects", "--thread", "n1")

    waiting = paor(
        "run",
        "Open a ticket: A-1 is late",
        *asked,
        **where(scripted_llm, isolated_home, tmp_path),
        PAOR_MCP_CONFIG=config,
    )
    assert waiting.returncode == 3, waiting.stderr  # not read-only: the run asks first
    assert "mcp.orders.create_ticket" in waiting.stderr
    done = paor("resume", "n1", "--answer", "approve", "--json", **where(scripted_llm, isolated_home, tmp_path))

    assert done.returncode == 0, done.stderr
    [ticket] = json.loads(done.stdout)["deliverables"]
    assert Path(ticket["path"]).read_text() == "ticket opened for order A-1 (normal priority): late"


def test_resume_takes_mcp_config_and_a_tool_missing_there_exits_2_naming_it(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare, time_server: dict[str, Any]
) -> None:
    script_tool_run(scripted_llm, "mcp.orders.create_ticket", {"order_id": "A-1", "subject": "late"})
    config = declare(orders=orders_server())
    run_in = where(scripted_llm, isolated_home, tmp_path)
    started = paor(
        "run",
        "Open a ticket: A-1 is late",
        "--approve",
        "side_effects",
        "--thread",
        "n2",
        "--mcp-config",
        str(config),
        **run_in,
    )
    assert started.returncode == 3, started.stderr
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"mcpServers": {"time": time_server}}))

    moved = config.rename(tmp_path / "moved.json")
    gone = paor("resume", "n2", "--answer", "approve", **run_in)
    missing = paor("resume", "n2", "--answer", "approve", "--mcp-config", str(other), **run_in)
    done = paor("resume", "n2", "--answer", "approve", "--mcp-config", str(moved), **run_in)

    assert missing.returncode == 2, missing.stderr
    assert (
        "the thread's next action mcp.orders.create_ticket cannot run here: no MCP server 'orders' is declared; "
        in missing.stderr
    )
    assert f"the thread ran with the MCP servers orders from {config}" in missing.stderr
    assert "paor resume n2 --mcp-config FILE" in missing.stderr and "Traceback" not in missing.stderr
    assert gone.returncode == 2, gone.stderr
    assert f"cannot read the MCP config {config}: No such file or directory" in gone.stderr
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_every_server_process_paor_started_ends_when_paor_ends_mid_call(
    ending: signal.Signals, scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare
) -> None:
    starts, calls = tmp_path / "starts.txt", tmp_path / "calls.txt"
    stuck = faulty_server("only=hang", env={"PAOR_TEST_STARTS": str(starts), "PAOR_TEST_CALLS": str(calls)})
    script_tool_run(scripted_llm, "mcp.stuck.hang", {})
    command = [str(Path(sys.executable).parent / "paor"), "run", "Hang", "--mcp-config", str(declare(stuck=stuck))]
    with (tmp_path / "paor.err").open("w") as err:
        process = subprocess.Popen(
            command,
            cwd=tmp_path,
            env=environment(scripted_llm, isolated_home),
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=default_signals,  # SIGHUP must end it, as it would from a terminal
        )
        try:
            assert deadlines.wait_until(lambda: calls.exists() or process.poll() is not None), "the call never began"
            assert process.poll() is None, (tmp_path / "paor.err").read_text()
            [server] = [int(pid) for pid in starts.read_text().split()]
            process.send_signal(ending)  # mid-call: the server is stuck in `hang` for good
            process.wait(deadlines.PROCESS_S)
        finally:
            process.kill()
    assert process.returncode == -ending  # ended by the signal, not by the stuck call's timeout

    assert deadlines.wait_until(lambda: not alive(server)), f"the server {server} outlived paor ({ending.name})"


def test_doctor_lists_each_server_and_the_reason_one_cannot_start(
    scripted_llm: ScriptedLLM, isolated_home: Path, tmp_path: Path, declare: Declare, time_server: dict[str, Any]
) -> None:
    config = declare(
        time=time_server,
        broken=faulty_server("crash-at-start"),
        bad={"args": ["x"]},
        **{"acme.orders.support-desk": orders_server()},
    )

    done = paor("doctor", "--mcp-config", str(config), llm=scripted_llm, home=isolated_home, cwd=tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr  # the other actions still work: a warning
    column = len("mcp acme_orders_support-desk  ")  # the longest name, then two spaces: every value starts here
    lines = {line[:column].strip(): line[column:] for line in done.stdout.splitlines() if line[:1] != "!"}
    assert lines["mcp time"].startswith("2 tools (stdio:")
    assert lines["mcp broken"].startswith("unavailable: could not start")
    assert lines["mcp acme_orders_support-desk"].startswith("2 tools (stdio:")
    assert "declared as 'acme.orders.support-desk'" in lines["mcp acme_orders_support-desk"]
    assert lines["model"] == "scripted"
    assert "! mcp.broken.* is unavailable: the MCP server broken could not start" in done.stdout
    assert f"! mcp.bad.* is unavailable: the MCP server bad has an invalid entry in {config}: " in done.stdout
    assert "configuration broken, giving up" in done.stdout
    assert "✓ ready" in done.stdout
