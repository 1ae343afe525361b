"""`paor serve` while its Redis is away (killed, or restarting empty) or hangs (a partition): what needs counting is
refused with 503 and `Retry-After`, saying why, never a bare 500 nor served uncounted (before, the connection was
dropped without an answer, and a hung Redis held every request for good); health checks still answer; a run under
way goes on; `/health` answers within a second naming Redis; and the service serves again, runs included, once
Redis answers. Its own service: the Redis is taken away."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
import pytest

from bench.fairness import script_one_step
from tests.support import deadlines
from tests.support.paor_serve import MISSING, Instance, Service, client, service, tail
from tests.support.redis_server import away, hung
from tests.support.scripted_llm import Latency, ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEY = "outage-key-carol-51b7"
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."


@pytest.fixture
def paor(tmp_path: Path) -> Iterator[Service]:
    """One instance and a model that takes 3 s per answer, so a run is still under way while Redis is away."""
    with ScriptedLLM(latency=Latency(base_s=3.0, prompt_tps=1e9, output_tps=1e9, time_scale=1.0)) as llm:
        script_one_step(llm, HAIKU)
        with service(tmp_path, llm.base_url, KEY, PAOR_MAX_STEPS="1") as running:
            running.start(1)
            yield running


def _start_haiku(http: httpx.Client) -> tuple[str, str]:
    """A new thread and a run on it, under way: (thread id, run id)."""
    thread = http.post("/threads", json={})
    assert thread.status_code == 200, thread.text
    thread_id = thread.json()["thread_id"]
    run = http.post(f"/threads/{thread_id}/runs", json={"assistant_id": "paor", "input": {"prompt": PROMPT}})
    assert run.status_code == 200, run.text
    return thread_id, run.json()["run_id"]


def _answer(http: httpx.Client, thread_id: str, run_id: str) -> str:
    joined = http.get(f"/threads/{thread_id}/runs/{run_id}/join")
    assert joined.status_code == 200, joined.text
    return str(joined.json().get("answer"))


def _until_served(instance: Instance, http: httpx.Client) -> None:
    deadline = time.monotonic() + deadlines.PROCESS_S
    while (answer := http.post("/threads/search", json={})).status_code != 200:
        assert answer.status_code == 503 and time.monotonic() < deadline, (answer.text, tail(instance))
        time.sleep(0.5)


@pytest.mark.parametrize("outage", [away, hung], ids=["killed", "hung"])
def test_while_redis_is_away_requests_are_refused_with_503_and_when_to_retry_then_served_again(
    paor: Service, outage: Callable[[str], AbstractContextManager[None]]
) -> None:
    [instance] = paor.instances
    with client(instance, KEY) as carol, client(instance, None) as health:
        thread_id, run_id = _start_haiku(carol)
        deadline = time.monotonic() + deadlines.PROCESS_S
        while carol.get(f"/threads/{thread_id}/runs/{run_id}").json()["status"] != "running":
            assert time.monotonic() < deadline, tail(instance)
            time.sleep(0.2)
        with outage(paor.redis):
            for method, path in (("POST", "/threads"), ("POST", "/threads/search"), ("GET", "/info")):
                refused = carol.request(method, path, json={} if method == "POST" else None)
                assert refused.status_code == 503, (path, refused.status_code, refused.text, tail(instance))
                assert refused.headers.get("retry-after") == "5", refused.headers
                assert "Redis" in refused.json()["detail"], refused.text
            assert health.get("/ok").status_code == 200
            asked = time.monotonic()
            described = carol.get("/health")  # not counted: it answers at once, naming the service that is away
            assert time.monotonic() - asked < 2.5 and described.status_code == 503, described.text
            assert described.json()["PostgreSQL"] == "ok" and described.json()["Redis"] != "ok", described.text
        _until_served(instance, carol)
        assert HAIKU in _answer(carol, thread_id, run_id), tail(instance)
        assert HAIKU in _answer(carol, *_start_haiku(carol)), tail(instance)
