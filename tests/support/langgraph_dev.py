"""Start the real `langgraph dev` server on loopback for tests and benchmarks, and always stop it.

The server runs in a throwaway project folder holding a byte-identical copy of the repo's langgraph.json and links
to the source folders, so its `./.langgraph_api/` stays out of the repo and — like a fresh CI clone — there is no
`.env` beside it (a `.env` would override the environment given here).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx

from core.processes import free_port, stop_process_group
from tests.support import deadlines
from tests.support.scripted_llm import ScriptedLLM

REPO = Path(__file__).resolve().parents[2]
SOURCE_DIRS = ("core", "graph", "nodes", "tools", "prompts", "server")
STARTUP_TIMEOUT_S = deadlines.SERVER_START_S
# Settings of the developer's shell that must not leak into the server.
_ENV_TO_DROP = ("OPENAI_BASE_URL", "TAVILY_API_KEY", "LANGSMITH_API_KEY")


class ServerFailed(RuntimeError):
    """The server exited or did not answer /ok in time; the message carries its output."""


class PortTaken(ServerFailed):
    """Another process answers on the server's port: `free_port` handed it out, then someone else took it."""


def scripted_env(model_url: str, home: Path, **extra: str) -> dict[str, str]:
    """The server environment for the scripted loopback model at `model_url`, with paor's data under `home`."""
    return {
        "PAOR_HOME": str(home),
        "OPENAI_BASE_URL": model_url,
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
        "PAOR_MODEL": "scripted",
        "PAOR_MAX_RETRIES": "0",
        **extra,
    }


def make_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "langgraph.json", root / "langgraph.json")
    for name in SOURCE_DIRS:
        (root / name).symlink_to(REPO / name, target_is_directory=True)
    return root


@contextlib.contextmanager
def langgraph_dev(
    workdir: Path, env: Mapping[str, str], *, jobs_per_worker: int | None = None, port: int | None = None
) -> Iterator[str]:
    """Yield the URL of a running `langgraph dev` whose environment is the clean shell plus `env` (on `port`, else
    a free one); fails at the end if the server died while it was used, showing why."""
    with served(make_project(workdir / "project"), env, jobs_per_worker=jobs_per_worker, port=port) as (url, _):
        yield url


@contextlib.contextmanager
def served(
    project: Path, env: Mapping[str, str], *, jobs_per_worker: int | None = None, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`langgraph dev` on an existing `project` folder, with its process in hand (a test may kill it and start
    another on the same folder); its output goes beside the folder."""
    stdout, stderr = project.parent / "server.stdout", project.parent / "server.stderr"
    for attempt in range(3):  # a port free a moment ago may be another test's server's by now
        chosen = port or free_port()
        command = [sys.executable, "-m", "langgraph_cli", *_dev_arguments(project, chosen)]
        if jobs_per_worker is not None:
            command += ["--n-jobs-per-worker", str(jobs_per_worker)]
        with stdout.open("ab") as out, stderr.open("ab") as err:
            process = subprocess.Popen(
                command,
                cwd=project,
                env=_server_env(env),
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        url = f"http://127.0.0.1:{chosen}"
        try:
            _wait_ready(url, process, stdout, stderr)
        except PortTaken:
            stop_process_group(process)
            if port or attempt == 2:
                raise
            continue
        try:
            yield url, process
            if process.poll() is not None and -process.returncode not in (
                signal.SIGKILL,
                signal.SIGTERM,
            ):  # not the test's
                raise ServerFailed(
                    f"langgraph dev exited ({process.returncode}) while in use\n{_output(stdout, stderr)}"
                )
        finally:
            stop_process_group(process)
        return


def served_routes(workdir: Path, env: Mapping[str, str]) -> list[dict[str, Any]]:
    """Every route the server `langgraph_dev(workdir, env)` answers, walked from the app it serves
    (tests/support/server_routes.py): `{"path": …, "methods": [...] | None}` each."""
    project = workdir / "project"
    if not project.exists():
        make_project(project)
    command = [sys.executable, "-m", "tests.support.server_routes", *_dev_arguments(project, free_port())]
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))  # the walker is in tests/
    done = subprocess.run(
        command,
        cwd=project,
        env={**_server_env(env), "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS_S,
    )
    routes = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not routes:
        raise ServerFailed(f"walking the server's routes failed ({done.returncode})\n{done.stderr[-4000:]}")
    return routes


def _server_env(env: Mapping[str, str]) -> dict[str, str]:
    full_env = {k: v for k, v in os.environ.items() if k not in _ENV_TO_DROP and not k.startswith("PAOR_")}
    full_env.update(LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="true", LANGSMITH_TRACING="false")
    full_env.update(env)
    return full_env


def _dev_arguments(project: Path, port: int) -> list[str]:
    arguments = ["dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)]
    return [*arguments, "--config", str(project / "langgraph.json")]


@contextlib.contextmanager
def scripted_langgraph_dev(workdir: Path, script: Callable[[ScriptedLLM], object]) -> Iterator[str]:
    """`langgraph dev` configured by its environment alone (as a chat front end leaves it) for a scripted model."""
    with ScriptedLLM() as llm:
        script(llm)
        with langgraph_dev(workdir, scripted_env(llm.base_url, workdir / "paor-home")) as url:
            yield url


def _wait_ready(url: str, process: subprocess.Popen[bytes], stdout: Path, stderr: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    port = int(url.rsplit(":", 1)[1])
    last_error = ""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if _listening(port):
                raise PortTaken(f"another process took {url} before langgraph dev could\n{_output(stdout, stderr)}")
            raise ServerFailed(
                f"langgraph dev exited with code {process.returncode} before answering /ok\n{_output(stdout, stderr)}"
            )
        try:
            if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                if _listens(process.pid, port):
                    return
                raise PortTaken(f"another process answers on {url}, not the langgraph dev started for it")
        except httpx.HTTPError as exc:
            last_error = repr(exc)
        time.sleep(0.25)
    raise ServerFailed(
        f"langgraph dev did not answer {url}/ok within {STARTUP_TIMEOUT_S:.0f}s (last error: {last_error})\n"
        f"{_output(stdout, stderr)}"
    )


def _listening(port: int) -> set[str]:
    """The sockets listening on loopback `port`, as /proc names them ("socket:[inode]")."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()  # sl local_address rem_address st … inode (the 10th)
        if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
            found.add(f"socket:[{fields[9]}]")
    return found


def _listens(pid: int, port: int) -> bool:
    """`pid` holds the socket listening on loopback `port`."""
    listening = _listening(port)
    with contextlib.suppress(OSError):  # the process is gone
        return any(os.readlink(fd) in listening for fd in Path(f"/proc/{pid}/fd").iterdir())
    return False


def _output(stdout: Path, stderr: Path, lines: int = 40) -> str:
    def tail(path: Path) -> str:
        try:
            return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no output)"

    return f"--- stderr ---\n{tail(stderr)}\n--- stdout ---\n{tail(stdout)}"
