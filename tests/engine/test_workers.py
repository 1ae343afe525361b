"""`paor serve --workers N`: N worker processes serve on one port, and they end with their supervisor — after a
`kill -9` of `paor serve` they went on serving, unsupervised, on its port (server/supervised.py)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from bench.fairness import script_one_step
from tests.support import deadlines
from tests.support.paor_serve import MISSING, Instance, client, service, tail
from tests.support.scripted_llm import ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEY = "workers-key-dave-77c1"
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."


def _processes_of(instance: Instance) -> set[int]:
    """The live processes of the instance's process group (its supervisor and the workers it started)."""
    found = set()
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):  # ended meanwhile
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) == instance.process.pid:  # state, ppid, pgrp
                found.add(int(entry))
    return found


def test_workers_serve_on_one_port_and_end_with_their_supervisor(tmp_path: Path) -> None:
    with ScriptedLLM() as llm:
        script_one_step(llm, HAIKU)
        with service(tmp_path, llm.base_url, KEY, PAOR_MAX_STEPS="1") as running:
            [instance] = running.start(1, workers=2)
            workers = _processes_of(instance) - {instance.process.pid}
            assert len(workers) >= 2, tail(instance)  # uvicorn also starts a resource tracker
            with client(instance, KEY) as dave:
                thread = dave.post("/threads", json={}).json()["thread_id"]
                body = {"assistant_id": "paor", "input": {"prompt": PROMPT}}
                ran = dave.post(f"/threads/{thread}/runs/wait", json=body)
                assert ran.status_code == 200 and HAIKU in ran.json()["answer"], ran.text

            os.kill(instance.process.pid, signal.SIGKILL)  # the supervisor only, as an OOM kill does
            instance.process.wait()
            deadline = time.monotonic() + deadlines.PROCESS_S
            while left := _processes_of(instance):
                assert time.monotonic() < deadline, f"workers {sorted(left)} outlived their supervisor"
                time.sleep(0.2)
            with pytest.raises(httpx.ConnectError):
                httpx.get(f"{instance.url}/ok", timeout=5)
