"""`paor serve`, second round (issue 51): every run path through paor's checks, listings that cannot flood, quotas that
hold across instances, the store and health routes as documented, absolute links. Each test is the hostile request
of the red team's report, through real `paor serve` processes; each failed on the code before it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import psycopg
import pytest

from bench.fairness import script_one_step
from server.keys import identity_of
from server.route_classes import PAOR_SERVE, Kind
from tests.support.paor_serve import MISSING, Service, client, service, tail
from tests.support.scripted_llm import Latency, ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEYS = [f"door-key-{name}-{n}c1e" for n, name in enumerate(("ann", "ben", "cat", "dan", "eve", "fay", "gus"))]
ANN, BEN, CAT, DAN, EVE, FAY, GUS = KEYS
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."
#: A cron that fires at the start of each year: only its first run, made when it is created, runs in a test.
YEARLY = "0 0 1 1 *"
LIMITS = {
    "PAOR_SERVER_MAX_RUNS": "2",
    "PAOR_SERVER_MAX_THREADS": "6",
    "PAOR_SERVER_MAX_PAGE": "3",
    "CRON_ENABLED": "true",
    "CRON_POLL_INTERVAL_SECONDS": "1",
    "CRON_ALLOW_SECONDS_SCHEDULE": "true",
}


@pytest.fixture(scope="module")
def paor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """Two instances with small quotas, the cron scheduler polling each second, and a model that takes 4 s per
    answer, so a run stays in flight for several seconds."""
    with ScriptedLLM(latency=Latency(base_s=4.0, prompt_tps=1e9, output_tps=1e9, time_scale=1.0)) as llm:
        script_one_step(llm, HAIKU)
        root = tmp_path_factory.mktemp("door")
        with service(root, llm.base_url, ",".join(KEYS), PAOR_MAX_STEPS="1", **LIMITS) as running:
            running.start(2)
            yield running


def _in_flight(database: str, key: str) -> int:
    with psycopg.connect(database) as conn:
        query = "SELECT count(*) FROM runs WHERE user_id = %s AND status IN ('pending', 'running')"
        return int(conn.execute(query, (identity_of(key),)).fetchone()[0])  # type: ignore[index]


def _cron(http: httpx.Client, schedule: str = YEARLY) -> httpx.Response:
    return http.post("/runs/crons", json={"assistant_id": "paor", "schedule": schedule, "input": {"prompt": PROMPT}})


def test_a_crons_first_run_counts_against_the_runs_quota_and_a_refused_cron_is_not_kept(paor: Service) -> None:
    """Creating crons fired one run each, counted by no quota: 12 runs in flight at a quota of 4."""
    first, _ = paor.instances
    with client(first, ANN) as ann:
        made = [_cron(ann) for _ in range(2)]
        assert [answer.status_code for answer in made] == [200, 200], [answer.text for answer in made]
        refused = _cron(ann)
        assert refused.status_code == 429, refused.text
        assert "PAOR_SERVER_MAX_RUNS=2" in refused.text and refused.headers.get("retry-after") == "5", refused.text
        assert _in_flight(paor.database, ANN) == 2
        assert ann.post("/runs/crons/count", json={}).json() == 2, "the refused cron would fire later"


def test_a_crons_scheduled_firings_count_against_the_runs_quota(paor: Service) -> None:
    """The scheduler prepares its runs without any request: each firing passes the door all the same."""
    _, second = paor.instances
    with client(second, BEN) as ben:
        made = _cron(ben, "* * * * * *")  # every second
        assert made.status_code == 200, made.text
        try:
            seen = []
            for _ in range(16):
                seen.append(_in_flight(paor.database, BEN))
                time.sleep(0.5)
        finally:
            for cron in ben.post("/runs/crons/search", json={}).json():
                ben.delete(f"/runs/crons/{cron['cron_id']}")
    assert max(seen) <= 2, (seen, tail(second))
    assert max(seen) == 2, f"the scheduler fired nothing: {seen}"


def test_the_v2_command_routes_are_off_and_say_why(paor: Service) -> None:
    """`/commands` answered a pending approval with `update: {selection: code.execute…}` and `goto: act`: code ran."""
    first, _ = paor.instances
    with client(first, CAT) as cat:
        thread = cat.post("/threads", json={}).json()["thread_id"]
        forged = {
            "id": 1,
            "method": "input.respond",
            "params": {
                "response": {"approved": True},
                "update": {"selection": {"action": "code.execute"}, "parameters": {"code": "print(1)"}},
                "goto": "act",
                "assistant_id": "paor",
            },
        }
        for path, body in ((f"/threads/{thread}/commands", forged), (f"/threads/{thread}/stream/events", {})):
            answer = cat.post(path, json=body)
            assert answer.status_code == 404 and "v2 event streaming is off" in answer.text, answer.text
        started = {"id": 2, "method": "run.start", "params": {"assistant_id": "paor", "input": {"prompt": PROMPT}}}
        assert cat.post(f"/threads/{thread}/commands", json=started).status_code == 404
        assert cat.get(f"/threads/{thread}/runs").json() == []


def test_every_route_in_the_servers_openapi_is_classified_and_an_unknown_route_is_refused(paor: Service) -> None:
    """A route an Aegra upgrade adds fails here until someone decides which checks stand in front of it."""
    first, _ = paor.instances
    with client(first, CAT) as cat:
        spec = cat.get("/openapi.json").json()
        served = {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}
        unknown = cat.post("/threads/00000000-0000-4000-8000-000000000000/teleport", json={})
    assert not served - PAOR_SERVE.keys(), f"routes nobody classified: {sorted(served - PAOR_SERVE.keys())}"
    assert {kind for key, kind in PAOR_SERVE.items() if key in served} >= {Kind.READ, Kind.WRITE, Kind.RUN, Kind.OFF}
    assert unknown.status_code == 404 and "not a route paor serves" in unknown.text, unknown.text


def test_a_clients_threads_made_at_once_on_two_instances_stay_within_its_quota(paor: Service) -> None:
    """Counted, then inserted: creations at once over two instances passed on the same count (44 of 40)."""
    first, second = paor.instances
    with client(first, DAN) as dan_1, client(second, DAN) as dan_2, ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda n: (dan_1, dan_2)[n % 2].post("/threads", json={}), range(12)))
    statuses = sorted(answer.status_code for answer in answers)
    decisions = [line for i in paor.instances for line in tail(i, 200_000).splitlines() if identity_of(DAN) in line]
    assert statuses == [200] * 6 + [429] * 6, ([answer.text for answer in answers], decisions)
    with psycopg.connect(paor.database) as conn:
        query = "SELECT count(*) FROM thread WHERE user_id = %s"
        assert conn.execute(query, (identity_of(DAN),)).fetchone()[0] == 6  # type: ignore[index]


def test_a_client_searches_and_lists_its_own_store_and_bad_names_are_refused_plainly(paor: Service) -> None:
    """Searching or listing its own namespaces was 403 (Aegra sends `namespace_prefix` and `prefix`); a long key or
    a label with periods was a 500 and a reset connection."""
    first, _ = paor.instances
    mine = identity_of(EVE)
    with client(first, EVE) as eve:
        put = eve.put("/store/items", json={"namespace": [mine, "notes"], "key": "tides", "value": {"high": "06:12"}})
        assert put.status_code == 204, put.text
        found = eve.post("/store/items/search", json={"namespace_prefix": [mine]})
        assert found.status_code == 200 and [item["key"] for item in found.json()["items"]] == ["tides"], found.text
        listed = eve.post("/store/namespaces", json={"prefix": [mine]})
        assert listed.status_code == 200 and any(ns[-1] == "notes" for ns in listed.json()["namespaces"]), listed.text
        assert eve.post("/store/items/search", json={"namespace_prefix": [identity_of(FAY)]}).status_code == 403
        for namespace, key in (([mine, "notes"], "k" * 600), ([mine, "a..b"], "k"), ([mine, ""], "k")):
            bad = eve.put("/store/items", json={"namespace": namespace, "key": key, "value": {}})
            assert bad.status_code == 422, (namespace, bad.status_code, bad.text[:200])


def test_listings_are_paged_whatever_limit_a_client_asks(paor: Service) -> None:
    """One search with `limit: 1000` over 60 KB metadata each had the server send 60 MB for one request."""
    _, second = paor.instances
    with client(second, FAY) as fay:
        for _ in range(5):
            assert fay.post("/threads", json={"metadata": {"note": "x" * 1000}}).status_code == 200
        searched = fay.post("/threads/search", json={"limit": 1000})
        history = fay.post(f"/threads/{searched.json()[0]['thread_id']}/history", json={"limit": 1000})
        unpaged = [fay.get(path, params={"limit": 1000}) for path in ("/threads", "/assistants")]
    assert searched.status_code == 200 and len(searched.json()) == 3, searched.text[:300]
    assert history.status_code == 200, history.text[:300]
    for answer in unpaged:  # Aegra lists every one of them whatever `limit` says
        assert answer.status_code == 404 and "use POST" in answer.text, answer.text[:300]


def test_a_runs_deliverable_links_are_absolute_from_the_clients_request(paor: Service) -> None:
    """A relative link in a chat answer opens on the chat's own origin (Aegra passes no headers to runs)."""
    first, _ = paor.instances
    with client(first, GUS) as gus, client(first, None) as anonymous:
        thread = gus.post("/threads", json={}).json()["thread_id"]
        done = gus.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "paor", "input": {"prompt": PROMPT}})
        assert done.status_code == 200, done.text
        [deliverable] = done.json()["deliverables"]
        assert deliverable["url"].startswith(f"{first.url}/paor/threads/"), deliverable
        assert anonymous.get(deliverable["url"]).status_code == 200


def test_only_ok_is_open_without_a_key_and_health_names_each_service(paor: Service) -> None:
    first, _ = paor.instances
    with client(first, None) as anonymous, client(first, GUS) as gus:
        assert anonymous.get("/ok").status_code == 200
        for path in ("/health", "/ready", "/live"):
            assert anonymous.get(path).status_code == 401, path
        health = gus.get("/health")
    assert health.status_code == 200 and health.json() == {"status": "healthy", "PostgreSQL": "ok", "Redis": "ok"}
