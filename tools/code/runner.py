"""One sandboxed run: program in, stdout, stderr, written files and — when it failed — the reason out.

The launcher (`child`) runs in its own session under the isolation `available.detect()` found. Inside an isolation,
the program's working folder, /tmp and /dev/shm are one tmpfs of the run's size and number of files
(tools/code/scratch.py): a write past either fails with "No space left on device", the launcher copies the
program's outputs back to the host folder when it ends, and the tmpfs goes with the namespace, so cleaning up takes
no time whatever the program made. The runner watches the wall time (and, for a run without isolation, the size of
those folders); past it, the sandbox is killed, and with it, through the PID namespace, everything the program
started. stdout and stderr go to files the file-size limit also bounds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from tools.code import environment, isolation
from tools.code.child import BOOT, EXIT_GATE
from tools.code.limits import MB, Limits
from tools.code.scratch import EXIT_SCRATCH

STDERR_CHARS = 4000
REAP_TIMEOUT_S = 10.0
WATCH_INTERVAL_S = 0.1


@dataclass
class RunResult:
    exit_code: int
    stdout: bytes
    stderr: str
    files: list[tuple[str, bytes]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reason: str | None = None  # why the run failed; None when it succeeded

    @property
    def ok(self) -> bool:
        return self.reason is None


def run_program(
    source: str,
    inputs: Sequence[tuple[str, bytes]] = (),
    limits: Limits | None = None,
    *,
    kind: isolation.Kind,
    gate: bool = True,
) -> RunResult:
    """Run `source` with read-only copies of `inputs` in its working folder, under `kind` (the one
    tools/code/available.py found, for code.execute). `gate=False` exists for tests that prove the isolation holds
    by itself."""
    if kind not in (*isolation.KINDS, "none"):
        raise ValueError(f"no isolation is called {kind!r}: one of {isolation.KINDS} or 'none'")
    limits = limits or Limits()
    owner = isolation.sandbox_user()
    with environment.workspace(inputs, owner) as space:
        where = isolation.Space(space.folder, space.tmp, space.shm, space.mount_point)
        namespaced = kind != "none"
        max_bytes = limits.file_mb * MB
        notes_read, notes_write = os.pipe()  # the launcher's notes on outputs it left in the tmpfs
        spec = {"gate": gate, "limits": limits.as_dict(), "user": owner, "namespace": _namespace(kind, where, owner)}
        if namespaced:
            spec["scratch"] = {
                "size_mb": limits.folder_mb,
                "files": limits.files,
                "max_files": environment.MAX_OUTPUT_FILES,
                "max_bytes": max_bytes,
                "notes_fd": notes_write,
                "host_mounts": os.stat("/proc/self/ns/mnt").st_ino,  # the launcher mounts only outside it
            }
        python_args = ["-I", "-X", "utf8", "-c", BOOT, isolation.launcher_root(kind), json.dumps(spec)]
        out_path, err_path = space.logs / "stdout", space.logs / "stderr"
        info_read, info_write = os.pipe()  # bubblewrap's only: no other sandbox hands the program this pipe
        info_fd = info_write if kind == "bubblewrap" else None
        passed = tuple(fd for fd in (info_fd, notes_write if namespaced else None) if fd is not None)
        with (
            out_path.open("wb") as out,
            err_path.open("wb") as err,
            open(info_read, "rb") as info,
            open(notes_read, "rb") as launcher_notes,
        ):
            try:
                process = subprocess.Popen(
                    isolation.command(kind, where, python_args, info_fd=info_fd),
                    cwd=space.folder,
                    env=environment.SANDBOX_ENV,
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                    pass_fds=passed,
                )
            finally:
                os.close(info_write)
                os.close(notes_write)
            watched = () if namespaced else space.writable  # the tmpfs bounds an isolated run's folders itself
            killed = _feed_and_wait(process, source, limits, watched, namespaced=namespaced)
            _await_namespace_end(info)
            left_out = _read_notes(launcher_notes)
        stdout = environment.read_capped(out_path, max_bytes)
        stderr = environment.read_capped(err_path, max_bytes).decode("utf-8", errors="replace")[-STDERR_CHARS:]
        files, notes = environment.collect_outputs(space, max_bytes)
    code = process.returncode
    return RunResult(code, stdout, stderr, files, left_out + notes, killed or _reason(code, stderr, limits))


def _read_notes(pipe: BinaryIO) -> list[str]:
    """What the launcher left out of the outputs (nothing when it was killed before it could say)."""
    os.set_blocking(pipe.fileno(), False)
    try:
        notes = json.loads(pipe.read(64 * 1024) or b"[]")
    except (OSError, ValueError, TypeError):
        return []
    return [str(note) for note in notes][:50] if isinstance(notes, list) else []


def _namespace(kind: isolation.Kind, where: isolation.Space, owner: int | None) -> dict[str, object] | None:
    """What the launcher needs to enter the `unshare` isolation itself; None for the others."""
    if kind != "unshare":
        return None
    return {
        "mount_point": str(where.mount_point),
        "steps": isolation.view(where),
        "home": isolation.SANDBOX_HOME,
        "new_user": owner is None,
    }


def _feed_and_wait(
    process: subprocess.Popen[bytes], source: str, limits: Limits, folders: Sequence[Path], *, namespaced: bool
) -> str | None:
    """Send the program on stdin and wait, watching the clock and the size of the folders it may write (its
    working folder, /tmp and /dev/shm); the reason it was killed, or None when it ended by itself."""
    try:
        assert process.stdin is not None
        process.stdin.write(source.encode("utf-8"))
        process.stdin.close()
    except BrokenPipeError:
        pass
    deadline = time.monotonic() + limits.wall_s
    killed = None
    while process.poll() is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            killed = f"wall-time limit: the program ran longer than {limits.wall_s:g}s and was killed"
        elif environment.folder_bytes(folders, limits.folder_mb * MB) > limits.folder_mb * MB:
            killed = f"disk limit: the program wrote more than {limits.folder_mb} MB into its folder, /tmp and /dev/shm"
        if killed:
            if namespaced:
                _stop(process)
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=min(WATCH_INTERVAL_S, remaining))
    with contextlib.suppress(ProcessLookupError):  # whatever a program without a PID namespace left behind
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return killed


def _await_namespace_end(info: BinaryIO) -> None:
    """bubblewrap's wrapper exits as soon as the program has, while the kernel may still be killing what the
    program started: wait until the namespace's first process — which goes only after all the others — has."""
    os.set_blocking(info.fileno(), False)
    try:
        pid = int(json.loads(info.read() or b"{}").get("child-pid", 0))
    except (OSError, ValueError, TypeError):
        return
    deadline = time.monotonic() + REAP_TIMEOUT_S
    while pid and time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state in ("Z", "X"):  # a zombie: everything in its namespace is gone
            return
        time.sleep(0.005)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the sandbox from the inside out: the namespace's first process first — the kernel then kills every
    process in the PID namespace before that one is reaped — then the wrapper, which exits once it has reaped it."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    with contextlib.suppress(OSError):
        for pid in children.read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=REAP_TIMEOUT_S)


def _reason(code: int, stderr: str, limits: Limits) -> str | None:
    last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
    if code == 0:
        return None
    if code in (EXIT_GATE, EXIT_SCRATCH):
        return last
    if "No space left on device" in stderr:
        return (
            f"disk limit: the program wrote more than {limits.folder_mb} MB or {limits.files} files into its folder, "
            "/tmp and /dev/shm"
        )
    signalled = -code if code < 0 else code - 128 if code > 128 else 0
    if signalled == signal.SIGXCPU:
        return f"CPU-time limit: the program used more than {limits.cpu_s}s of CPU and was killed"
    if signalled == signal.SIGKILL and not last:
        return f"killed: the CPU-time limit ({limits.cpu_s}s) or the memory ran out"
    if "MemoryError" in last:
        return f"memory limit: the program needed more than {limits.memory_mb} MB"
    if "File too large" in stderr:
        return f"file-size limit: the program wrote more than {limits.file_mb} MB to one file"
    if signalled:
        return f"the program was killed by {signal.Signals(signalled).name}"
    return last or f"the program exited with status {code}"
