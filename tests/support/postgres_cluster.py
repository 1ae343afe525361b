"""A PostgreSQL cluster of one test's own (Debian's server binaries), for tests that stop or restart their server:
done to the suite's shared cluster, a stop broke every other test using it at that moment — `paor serve` instances
of tests/engine among them, which then timed out waiting for connections."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.processes import free_port
from tests.support import deadlines


def server_binaries() -> Path | None:
    """The folder of pg_ctl and initdb: PAOR_TEST_PGCTL's (.ci/run), else the newest Debian server's."""
    if named := os.environ.get("PAOR_TEST_PGCTL"):
        return Path(named).parent
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda path: int(path.split("/")[4]))
    return Path(found[-1]).parent if found else None


@dataclass
class PgCtl:
    """pg_ctl of a cluster, run as the data directory's owner (pg_ctl refuses to run as root)."""

    binary: str
    data: str
    options: str = ""  # the server's command-line options: `pg_ctl start` would not reuse them

    def __call__(self, action: str, *args: str) -> None:
        """`pg_ctl ACTION -w`; a (re)started server logs next to the data dir, so it holds none of our pipes."""
        log = str(Path(self.data).parent / "server.log")
        wait = ["-w", "-t", str(int(deadlines.SERVER_START_S))]  # pg_ctl's own 60 s would be a speed limit
        command = [self.binary, "-D", self.data, *wait, action, *args, *(["-l", log] if action != "stop" else [])]
        if action == "start" and self.options:
            command += ["-o", self.options]
        _run_as_owner(command, Path(self.data))


def _run_as_owner(command: list[str], path: Path) -> None:
    if os.geteuid() == 0:
        command = ["runuser", "-u", pwd.getpwuid(path.stat().st_uid).pw_name, "--", *command]
    done = subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=deadlines.PROCESS_S
    )
    assert done.returncode == 0, f"{shlex.join(command)} failed: {done.stdout}{done.stderr}"


@contextlib.contextmanager
def private_cluster(binaries: Path) -> Iterator[tuple[str, PgCtl]]:
    """A new cluster on a loopback port, started: its URL and its pg_ctl; stopped and deleted at the end."""
    folder = Path(tempfile.mkdtemp(prefix="paor-pg-"))  # not under pytest's root-only tmp: postgres must reach it
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", free_port()
    _run_as_owner([str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync"], folder)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    ctl = PgCtl(str(binaries / "pg_ctl"), str(data), options)
    ctl("start")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres", ctl
    finally:
        with contextlib.suppress(AssertionError):
            ctl("stop", "-m", "immediate")
        shutil.rmtree(folder, ignore_errors=True)
