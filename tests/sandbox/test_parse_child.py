"""A parse child reads hostile bytes: it gets code.execute's walls where the machine has them (issue 30) — no
network, a read-only view without paor's files, no privileges — and on every machine rlimits on file size, open
files and processes, besides its memory and CPU time.

First a real parse child, looked at from outside through /proc while it works on a bomb; then the confinement
itself, entered by a forked process that then tries what a hostile parser would.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import deadlines
from tests.support.isolation import needs_isolation
from tests.unit.documents.bombs import server_children, xlsx_bomb
from tools.document import confine
from tools.document.parsing import ParseLimitExceeded, read_document


def _limits(pid: int) -> dict[str, str]:
    found = {}
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]:
        name, soft = line[:26].strip(), line[26:47].strip()
        found[name] = soft
    return found


def _confined(pid: int) -> bool:
    """The child went through its confinement: its capabilities are the last thing it gives up."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return _limits(pid)["Max processes"] == str(confine.PROCESSES) and "CapEff:\t0000000000000000" in status


@pytest.fixture
def working_child() -> Iterator[int]:
    """The PID of a parse child busy with an xlsx bomb until its deadline."""
    read_document(b"warm", "warm.txt", timeout_s=60)
    failed: list[BaseException] = []

    def parse() -> None:
        try:
            read_document(xlsx_bomb(), "bomb.xlsx", timeout_s=6)
        except ParseLimitExceeded as exc:
            failed.append(exc)

    worker = threading.Thread(target=parse, daemon=True)
    worker.start()
    deadline = time.monotonic() + deadlines.PROCESS_S
    while not (children := server_children()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert children, "no parse child started"
    while not _confined(children[0]) and time.monotonic() < deadline:  # freshly forked: it confines itself first
        time.sleep(0.02)
    yield children[0]
    worker.join(deadlines.PROCESS_S)
    assert failed, "the bomb was stopped at its deadline"


def test_a_parse_child_has_its_limits_whatever_the_machine(working_child: int) -> None:
    limits = _limits(working_child)
    assert limits["Max file size"] == str(confine.FILE_MB * 1024 * 1024)
    assert limits["Max open files"] == str(confine.OPEN_FILES)
    assert limits["Max processes"] == str(confine.PROCESSES)
    assert limits["Max core file size"] == "0" and limits["Max address space"] != "unlimited"
    status = Path(f"/proc/{working_child}/status").read_text()
    assert "NoNewPrivs:\t1" in status and "CapEff:\t0000000000000000" in status


@needs_isolation()
def test_a_parse_child_sees_no_network_and_none_of_paors_files(working_child: int) -> None:
    for namespace in ("net", "mnt", "ipc", "uts"):
        assert os.readlink(f"/proc/{working_child}/ns/{namespace}") != os.readlink(f"/proc/self/ns/{namespace}")
    root = Path(f"/proc/{working_child}/root")
    repo = root / str(confine.isolation.PACKAGE_ROOT).lstrip("/")
    shown = {path.name for path in repo.iterdir()}
    assert set(confine.PACKAGES) <= shown <= {*confine.PACKAGES, ".venv"}, "paor's packages (and a venv inside)"
    assert not (repo / ".env").exists() and not (root / "etc" / "passwd").exists()


# --- the confinement, tried from inside ------------------------------------------------------------------------

PROBE_MB = 64


def _probe(listening: int) -> dict[str, str]:
    """Confine a forked child as a parse child is, then let it try to reach the network, write a large file, open
    many files, fill /tmp with files and start a process; what happened to each, as it reports it."""
    mount_point = tempfile.mkdtemp(prefix="paor-parse-test-")
    steps = confine.view()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing here may raise past os._exit
        report: dict[str, str] = {}
        try:
            os.close(read)
            # A parse child is a fresh process with few descriptors; this fork holds every one the test session
            # opened, and past OPEN_FILES of them no new one could be opened at all.
            os.closerange(3, write)
            os.closerange(write + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
            done = confine.confine(2048 * 1024 * 1024, 10, mount_point, steps)
            report["isolated"] = str(done.isolated)
            report["network"] = _attempt(lambda: socket.create_connection(("127.0.0.1", listening), timeout=2))
            report["file"] = _attempt(lambda: _write_file("/tmp/big", confine.FILE_MB * 1024 * 1024 + 1))
            report["open"] = _attempt(_open_many)
            report["files"] = _attempt(lambda: [_write_file(f"/tmp/f{n}", 1) for n in range(2 * confine.TMP_FILES)])
            report["process"] = _attempt(_fork)
            report["thread"] = _attempt(lambda: threading.Thread(target=lambda: None).start())
        except BaseException as exc:  # reported: the test fails on it
            report["error"] = repr(exc)
        os.write(write, json.dumps(report).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        report = json.loads(answer.read() or b"{}")
    os.waitpid(pid, 0)
    os.rmdir(mount_point)
    return report


def _attempt(action: object) -> str:
    try:
        action()  # type: ignore[operator]
    except OSError as exc:
        return f"refused: {exc.strerror or exc}"
    except RuntimeError as exc:
        return f"refused: {exc}"
    return "done"


def _write_file(path: str, size: int) -> None:
    with open(path, "wb") as handle:
        handle.write(b"x" * size)


def _open_many() -> None:
    opened: list[int] = []
    try:
        for _ in range(2 * confine.OPEN_FILES):
            opened.append(os.open("/dev/null", os.O_RDONLY))
    finally:
        for fd in opened:
            os.close(fd)


def _fork() -> None:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def test_the_confinement_refuses_big_files_many_files_and_new_processes() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        report = _probe(server.getsockname()[1])
    assert "error" not in report, report
    assert report["file"].startswith("refused") and report["open"].startswith("refused"), report
    assert report["process"].startswith("refused") and report["thread"].startswith("refused"), report


@needs_isolation()
def test_the_confinement_refuses_the_network_and_a_flood_of_files() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        report = _probe(server.getsockname()[1])
    assert report["isolated"] == "True", report
    assert report["network"].startswith("refused"), report
    assert report["files"].startswith("refused: No space left"), report
