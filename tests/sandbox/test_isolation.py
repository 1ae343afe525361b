"""The process isolation holds by itself: hostile programs run with the import gate switched off."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from tests.sandbox.conftest import SHORT_WALL_S, TIGHT
from tests.support import deadlines
from tests.support.isolation import each_isolation, needs_isolation
from tests.support.loopback import LoopbackServer
from tools.code import available, isolation
from tools.code.limits import Limits
from tools.code.runner import run_program

pytestmark = needs_isolation()
KINDS = each_isolation()


BOMB_NAME = "paor-leftover"  # the name the programs that fork give themselves (a process name holds 15 characters)
#: How those programs start: PR_SET_NAME gives the process the name, and the processes it forks inherit it.
NAMED = f"import ctypes, os, time\nctypes.CDLL(None).prctl(15, {BOMB_NAME!r}.encode(), 0, 0, 0)\n"


def _raw(source: str, kind: isolation.Kind | None = None, limits: Limits = TIGHT) -> tuple[str, str, str | None]:
    result = run_program(source, limits=limits, kind=kind or available.detect().kind, gate=False)
    return result.stdout.decode("utf-8", errors="replace"), result.stderr, result.reason


@pytest.mark.parametrize("kind", [*KINDS, "none"])
def test_environment_is_empty_so_the_canary_never_reaches_the_program(canary: str, kind: isolation.Kind) -> None:
    program = (
        "import os\n"
        "print(dict(os.environ))\n"
        "for pid in ('self', '1'):\n"
        "    try:\n"
        "        print(open(f'/proc/{pid}/environ', 'rb').read())\n"
        "    except OSError as exc:\n"
        "        print(exc)\n"
    )
    out, _, reason = _raw(program, kind)
    assert reason is None
    assert canary not in out and "OPENAI" not in out and "PAOR" not in out and "PROXY" not in out.upper()


def test_a_file_outside_the_working_folder_cannot_be_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret", encoding="utf-8")
    secret.chmod(0o644)
    out, _, reason = _raw(f"print(open({str(secret)!r}).read())")
    assert "top secret" not in out
    assert reason is not None and ("No such file" in reason or "Permission denied" in reason)


@pytest.mark.parametrize("kind", KINDS)
def test_a_loopback_server_sees_no_connection(loopback_server: LoopbackServer, kind: isolation.Kind) -> None:
    program = (
        "import socket\n"
        "s = socket.socket()\n"
        "s.settimeout(1)\n"
        f"s.connect(('127.0.0.1', {loopback_server.port}))\n"
        "print('connected')\n"
    )
    out, _, reason = _raw(program, kind)
    assert "connected" not in out
    assert reason is not None and ("Network is unreachable" in reason or "Connection refused" in reason), reason
    assert loopback_server.connections == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_fork_bomb_is_bounded_by_the_process_limit(kind: isolation.Kind) -> None:
    """Each child holds its place: a child that spun into its 1-second CPU limit and died freed its place for one
    more fork, so the count of forks exceeded the limit whenever a child died before the parent (CI: five of four)."""
    program = (
        NAMED + "while True:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        continue\n"  # the parent spins on the refused forks until its own CPU limit ends the run
        "    if pid:\n"
        "        print('forked', flush=True)\n"
        "    else:\n"
        "        time.sleep(3600)\n"
    )
    out, _, reason = _raw(program, kind)
    assert reason is not None and "limit" in reason
    assert 0 < out.count("forked") <= TIGHT.processes
    assert not _left_behind()


@pytest.mark.parametrize("kind", KINDS)
def test_a_fork_bomb_leaves_a_run_beside_it_its_processes(kind: isolation.Kind) -> None:
    """Run as root, every program was nobody, and one run's fork bomb took the processes of all the others."""
    bomb = (
        NAMED + "while True:\n"
        "    try:\n"
        "        os.fork()\n"
        "    except OSError:\n"
        "        time.sleep(3600)\n"  # each process holds its place until this test kills it
    )
    neighbour = "import os\nif os.fork() == 0:\n    os._exit(0)\nos.wait()\nprint('forked')\n"
    with ThreadPoolExecutor(1) as pool:
        bombing = pool.submit(_raw, bomb, kind)
        try:
            _wait_until_the_bomb_is_done_forking()
            out, err, reason = _raw(neighbour, kind)
            held = bool(_left_behind())
        finally:
            for pid in _left_behind():
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)
        bombing.result()
    assert held  # the bomb still held its processes while the neighbour ran
    assert reason is None and out.strip() == "forked", (reason, out, err)
    assert not _left_behind()


@pytest.mark.parametrize("kind", KINDS)
def test_children_the_program_leaves_behind_are_gone_when_the_run_returns(kind: isolation.Kind) -> None:
    """Children holding memory take the kernel a moment to kill; the run must not return before they are gone."""
    program = (
        NAMED + "ready, told = os.pipe()\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0:\n"
        "        block = bytearray(150 * 1024 * 1024)\n"
        "        print('child', flush=True)\n"
        "        os.write(told, b'.')\n"
        "        time.sleep(60)\n"
        "heard = b''\n"
        "while len(heard) < 3:\n"  # the program ends as soon as its three children hold their memory
        "    heard += os.read(ready, 3)\n"
    )
    for _ in range(3):
        # Room beyond the program's four processes: inside a user namespace the launcher and its init count too.
        out, err, reason = _raw(program, kind, replace(TIGHT, memory_mb=1024, processes=8))
        assert reason is None and out.count("child") == 3, (reason, out, err)
        assert not _left_behind()


def test_an_infinite_loop_is_killed_by_the_time_limits() -> None:
    _, _, reason = _raw("while True:\n    pass\n")
    assert reason is not None and ("CPU-time limit" in reason or "wall-time limit" in reason)


def test_a_sleeping_program_is_killed_at_the_wall_time_limit() -> None:
    _, _, reason = _raw("import time\ntime.sleep(3600)\n", limits=replace(TIGHT, wall_s=SHORT_WALL_S))
    assert reason is not None and "wall-time limit" in reason


def test_allocating_8_gb_hits_the_memory_limit() -> None:
    _, _, reason = _raw("block = bytearray(8 * 1024**3)\nprint(len(block))\n")
    assert reason is not None and "memory limit" in reason


def test_writing_a_1_gb_file_stops_at_the_file_size_limit() -> None:
    program = "with open('big.bin', 'wb') as f:\n    for _ in range(1024):\n        f.write(b'x' * 1024 * 1024)\n"
    result = run_program(program, limits=TIGHT, kind=available.detect().kind, gate=False)
    assert result.reason is not None and "file-size limit" in result.reason
    assert all(len(data) <= TIGHT.file_mb * 1024 * 1024 for _, data in result.files)


def test_many_files_stop_at_the_folder_limit() -> None:
    program = (
        "import time\n"
        "for i in range(10_000):\n"
        "    with open(f'part{i}.bin', 'wb') as f:\n"
        "        f.write(b'x' * 1024 * 1024)\n"
        "    time.sleep(0.01)\n"
    )
    result = run_program(program, limits=TIGHT, kind=available.detect().kind, gate=False)
    assert result.reason is not None and "disk limit" in result.reason


def test_program_runs_in_its_own_folder_with_read_only_input_copies() -> None:
    program = (
        "import os\n"
        "print(sorted(os.listdir('.')))\n"
        "print(open('numbers.csv').read().strip())\n"
        "try:\n"
        "    open('numbers.csv', 'a').write('4\\n')\n"
        "except OSError as exc:\n"
        "    print('read-only', type(exc).__name__)\n"
    )
    result = run_program(program, [("numbers.csv", b"1\n2\n3\n")], TIGHT, kind=available.detect().kind, gate=False)
    assert result.reason is None, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[:4] == ["['numbers.csv']", "1", "2", "3"]
    assert any(line.startswith("read-only") for line in lines)
    assert result.files == []  # the unchanged input is not an output


def _left_behind() -> list[str]:
    """Processes named BOMB_NAME (the programs above name themselves so): the suite's other workers run sandboxes
    and parse children meanwhile."""
    left = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            lines = status.read_text().splitlines()
        except OSError:
            continue
        if f"Name:\t{BOMB_NAME}" in lines:
            left.append(status.parent.name)
    return left


def _wait_until_the_bomb_is_done_forking() -> None:
    """Until the count of its processes holds still for half a second (each sleeps once a fork fails)."""
    deadline = time.monotonic() + deadlines.PROCESS_S
    seen, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        count = len(_left_behind())
        if count != seen:
            seen, since = count, time.monotonic()
        elif count and time.monotonic() - since >= 0.5:
            return
        time.sleep(0.05)
    raise AssertionError(f"the fork bomb never settled ({seen} processes)")


@pytest.mark.parametrize("kind", KINDS)
def test_a_program_slipping_past_the_gate_still_meets_the_isolation(
    canary: str, loopback_server: LoopbackServer, tmp_path: Path, kind: isolation.Kind
) -> None:
    """sympy's sympify evaluates strings with Python's eval and full builtins: a known way around the gate."""
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret", encoding="utf-8")
    program = (
        f"PORT = {loopback_server.port}\n"
        "import sympy\n"
        "def escape(expression):\n"
        "    try:\n"
        "        return 'ok ' + str(sympy.parse_expr(expression, transformations=()))\n"
        "    except Exception as exc:\n"
        "        return 'refused ' + str(exc)\n"
        "print('uid', escape(\"__import__('os').getuid()\"))\n"
        "print('env', escape(\"__import__('os').environ.get('OPENAI_API_KEY', 'absent')\"))\n"
        f"print('file', escape(\"open({str(secret)!r}).read()\"))\n"
        "print('net', escape(\"__import__('socket').create_connection(('127.0.0.1', PORT), 1).close() "
        "or 'connected'\".replace('PORT', str(PORT))))\n"
    )
    result = run_program(program, limits=replace(TIGHT, cpu_s=10, wall_s=20), kind=kind)
    out = result.stdout.decode()
    assert result.reason is None, result.stderr
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    assert lines["uid"].startswith("ok")  # the gate was bypassed: only the isolation stands
    assert lines["env"] == "ok absent"
    assert lines["file"].startswith("refused") and lines["net"].startswith("refused")
    assert "top secret" not in out
    assert loopback_server.connections == 0


@pytest.mark.parametrize("kind", KINDS)
def test_the_attrgetter_walk_to_os_system_stops_at_the_gate(kind: isolation.Kind) -> None:
    """With only allowed modules, operator.attrgetter once walked to _wrap_close.__init__.__globals__['system']."""
    program = (
        "from operator import attrgetter as get\n"
        "classes = get('__class__.__base__.__subclasses__')(())()\n"
        "wrap = [c for c in classes if get('__name__')(c) == '_wrap_close'][0]\n"
        "print(get('__init__.__globals__')(wrap)['system']('echo escaped'))\n"
    )
    result = run_program(program, limits=TIGHT, kind=kind)
    assert result.reason is not None and "__class__" in result.reason and "invalid attribute name" in result.reason
    assert result.stdout == b""
