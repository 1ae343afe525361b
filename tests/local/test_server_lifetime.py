"""llama.cpp's server ends with the paor process that started it, however that process ends: a `paor run --local`
or a `paor serve-local` killed outright (SIGKILL, an OOM kill) leaves no server behind holding its port, its memory
and, mid-answer, a core."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from core.processes import free_port
from tests.local import LLAMA_THREADS, NEEDS_SMOLLM2
from tests.support import deadlines

REPO = Path(__file__).resolve().parents[2]


pytestmark = NEEDS_SMOLLM2

#: What `paor run --local` does: the server lives as long as the `with` block, which a SIGKILL never leaves.
SERVE_LOCAL = (
    "import sys, time\n"
    "from cli.local_model import serve_local\n"
    "with serve_local(port=int(sys.argv[1]), threads=int(sys.argv[2])):\n"
    "    print('ready', flush=True)\n"
    "    time.sleep(3600)\n"
)


def answers(base_url: str) -> bool:
    try:
        return httpx.get(f"{base_url}/models", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.parametrize("owner", ["serve_local", "paor serve-local"])
def test_a_killed_owner_leaves_no_server_answering(owner: str, tmp_path: Path) -> None:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    if owner == "serve_local":
        command = [sys.executable, "-c", SERVE_LOCAL, str(port), str(LLAMA_THREADS)]
    else:
        paor = str(Path(sys.executable).parent / "paor")
        command = [paor, "serve-local", "--port", str(port), "--threads", str(LLAMA_THREADS)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "PAOR_HOME": str(tmp_path / "home")}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert deadlines.wait_until(lambda: answers(base_url) or process.poll() is not None), "never answered"
        assert process.poll() is None, f"{owner} exited with {process.returncode}"
        process.send_signal(signal.SIGKILL)  # no `finally`, no signal handler: only the lifeline can end it
        process.wait(deadlines.PROCESS_S)
        assert deadlines.wait_until(lambda: not answers(base_url)), f"the server outlived {owner}"
    finally:
        process.kill()
