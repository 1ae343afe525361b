"""`paor serve` after its PostgreSQL restarts (maintenance, a failover): the next run completes. Every idle
connection of the checkpointer's pool was broken then, and psycopg's pool, checking one per attempt with a growing
backoff, gave the run none within its 30 s: the run failed, "couldn't get a connection after 30.00 sec"
(server/engine_aegra.py `Aegra.upkeep`). On a server of the test's own, which it restarts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.fairness import script_one_step
from tests.support.paor_serve import MISSING, Service, client, service, tail
from tests.support.postgres_cluster import PgCtl, private_cluster, server_binaries
from tests.support.scripted_llm import ScriptedLLM

BINARIES = server_binaries()
pytestmark = pytest.mark.skipif(bool(MISSING) or BINARIES is None, reason=MISSING or "no PostgreSQL server binaries")
KEY = "restart-key-erin-2c90"
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."


@pytest.fixture
def paor(tmp_path: Path) -> Iterator[tuple[Service, PgCtl]]:
    assert BINARIES is not None
    with private_cluster(BINARIES) as (server, pg_ctl), ScriptedLLM() as llm:
        script_one_step(llm, HAIKU)
        with service(tmp_path, llm.base_url, KEY, server=server, PAOR_MAX_STEPS="1") as running:
            running.start(1)
            yield running, pg_ctl


def test_after_postgresql_restarts_the_next_run_completes(paor: tuple[Service, PgCtl]) -> None:
    running, pg_ctl = paor
    [instance] = running.instances
    with client(instance, KEY) as erin:
        for restarted in (False, True):
            if restarted:
                pg_ctl("restart", "-m", "fast")
            thread = erin.post("/threads", json={})
            assert thread.status_code == 200, (thread.text, tail(instance))
            body = {"assistant_id": "paor", "input": {"prompt": PROMPT}}
            ran = erin.post(f"/threads/{thread.json()['thread_id']}/runs/wait", json=body)
            assert ran.status_code == 200 and HAIKU in ran.text, (restarted, ran.text, tail(instance))
