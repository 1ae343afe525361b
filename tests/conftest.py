"""Shared fixtures: an isolated PAOR_HOME, the scripted loopback model, SQLite persistence.

The suite takes nothing from the caller's environment: a shell set up as README says exports OPENAI_BASE_URL,
OPENAI_API_KEY, PAOR_MODEL, PAOR_HOME and more, and the tests must pass the same there. `pytest_configure` removes
every such setting from `os.environ` before anything is collected, so the subprocesses the tests start (which
inherit `os.environ`) see none of them either; each test then sets what it needs.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.sqlite import SqliteStore

from core.context import Context
from tests.support.loopback import LoopbackServer
from tests.support.scripted_llm import ScriptedLLM

#: Prefixes of the settings paor and the libraries it drives read from the environment (every `PAOR_<FIELD>` of
#: Context, the database and server settings, the OpenAI and Tavily clients, LangSmith tracing, the log format
#: `paor serve` gives Aegra).
CALLER_SETTINGS = ("PAOR_", "OPENAI_", "TAVILY_", "LANGSMITH_", "LANGCHAIN_", "ENV_MODE")
#: Settings of the suite itself, which stay: a PostgreSQL server to test against, the browser tests' Chromium.
SUITE_SETTINGS = ("PAOR_TEST_", "PAOR_CHROMIUM", "PAOR_BROWSER_SCREENSHOT")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def pytest_configure(config: pytest.Config) -> None:
    scrub_caller_settings(os.environ)
    # Hundreds of `paor`, server and helper processes import the project: with the caller's
    # PYTHONDONTWRITEBYTECODE (CI machines set it) each compiled its ~150 modules again (0.1–0.2 s a process).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


#: The units of work that take minutes (the PostgreSQL folder, paor processes killed and resumed, real models, a soak
#: run), longest first: each goes to one worker in collection order (`--no-loadscope-reorder`), so they start first.
#: xdist's default order, most tests first, started these few-test files last, and for minutes at the end one or
#: two workers ran them while the others had nothing left.
LONG_FIRST = (  # python -m pytest --durations=0, summed per file (docs/development.md "The suite's time")
    "tests/engine/test_crash.py",
    "tests/postgres/",
    "tests/local/test_real_models.py",
    "tests/local/test_local_smoke.py",
    "tests/mcp/test_cli.py",
    "tests/reliability/test_process_faults.py",
    "tests/engine/test_redis_outage.py",
    "tests/browser/test_chat_page.py",
    "tests/engine/test_paor_serve.py",
    "tests/cli/test_console_script.py",
    "tests/engine/test_one_door.py",
    "tests/server/test_tenancy.py",
    "tests/engine/test_workers.py",
    "tests/reliability/test_soak.py",
    "tests/engine/test_database_restart.py",
    "tests/server/test_capacity.py",
    "tests/reliability/test_budgets.py",
    "tests/engine/test_mcp_serve.py",
    "tests/server/test_chat_http.py",
    "tests/mcp/test_langgraph_dev.py",
    "tests/mcp/test_servers.py",
    "tests/reliability/test_parse_bombs.py",
)


#: Folders whose files run on one worker, one after the other: the PostgreSQL tests stop and restart the one test
#: server, which a test of another file on another worker would find down.
SERIAL_FOLDERS = ("tests/postgres/",)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile`, with each of SERIAL_FOLDERS one unit of work (xdist's loadgroup marks have no effect
    under pytest 9.2)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SerialFolders(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return next((folder for folder in SERIAL_FOLDERS if scope.startswith(folder)), scope)

    return SerialFolders(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        return next((i for i, unit in enumerate(LONG_FIRST) if item.nodeid.startswith(unit)), len(LONG_FIRST))

    items.sort(key=rank)  # stable: the rest keep their order


def scrub_caller_settings(env: MutableMapping[str, str]) -> None:
    """Drop the caller's paor, OpenAI, Tavily and LangSmith settings; keep a proxy away from loopback traffic
    (every model, web site and server the tests talk to is on loopback)."""
    for name in [name for name in env if name.startswith(CALLER_SETTINGS) and not name.startswith(SUITE_SETTINGS)]:
        del env[name]
    for name in ("NO_PROXY", "no_proxy"):
        hosts = [host.strip() for host in env.get(name, "").split(",") if host.strip()]
        env[name] = ",".join([*hosts, *(host for host in LOOPBACK_HOSTS if host not in hosts)])


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own PAOR_HOME and a key that is no real one (the caller's settings are gone)."""
    home = tmp_path / "paor-home"
    monkeypatch.setenv("PAOR_HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    return home


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as llm:
        yield llm


@pytest.fixture
def context(scripted_llm: ScriptedLLM, tmp_path: Path) -> Context:
    """A Context that talks to the scripted server through the real ChatOpenAI client."""
    return Context(
        model="scripted",
        base_url=scripted_llm.base_url,
        max_retries=0,
        store_dir=str(tmp_path / "store"),
        documents_dir=str(tmp_path / "docs"),
    )


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "paor.sqlite"


@pytest.fixture
def checkpointer(sqlite_path: Path) -> Iterator[SqliteSaver]:
    with SqliteSaver.from_conn_string(str(sqlite_path)) as saver:
        yield saver


@pytest.fixture
def store(sqlite_path: Path) -> Iterator[SqliteStore]:
    with SqliteStore.from_conn_string(str(sqlite_path)) as sqlite_store:
        sqlite_store.setup()
        yield sqlite_store


@pytest.fixture
def loopback_server() -> Iterator[LoopbackServer]:
    """A loopback TCP server that records connections (sandboxed programs must reach none)."""
    server = LoopbackServer()
    yield server
    server.close()


@pytest.fixture
def make_read_only() -> Iterator[Callable[[Path], None]]:
    """`make_read_only(path)`: nobody may write the file or folder any more. Root ignores permission bits, so for
    root the path is also made immutable (`chattr +i`); where that is impossible the test is skipped, saying so."""
    locked: list[Path] = []
    as_root = os.geteuid() == 0

    def lock(path: Path) -> None:
        path.chmod(path.stat().st_mode & ~0o222)
        locked.append(path)
        if as_root:
            try:
                subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
            except (OSError, subprocess.CalledProcessError) as exc:
                pytest.skip(f"as root only an immutable file is read-only, and `chattr +i` failed here: {exc}")

    yield lock
    for path in reversed(locked):
        if as_root:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        path.chmod(path.stat().st_mode | 0o200)
