"""`paor serve` (issue 44): paor's graph on Aegra, instances on one PostgreSQL and one Redis, through real processes
in the Python 3.12 venv of the `aegra` extra. Two instances started together on a new database both come up; the key
gate, tenancy, quotas and rates hold across instances; a run made on one is waited on from the other."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg
import pytest

from bench.fairness import script_one_step
from core import history_store
from server.keys import identity_of
from tests.support.paor_serve import AEGRA_PYTHON, DATABASE, MISSING, REPO, Instance, Service, client, service
from tests.support.scripted_llm import Latency, ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEY_A, KEY_B = "engine-key-alice-4d1f", "engine-key-bob-93ae"
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."
ANSWER_TO_DELETE = "Tide tables for a thread that is about to be deleted."


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedLLM]:
    with ScriptedLLM() as llm:
        script_one_step(llm, HAIKU)
        yield llm


@pytest.fixture(scope="module")
def paor(tmp_path_factory: pytest.TempPathFactory, model: ScriptedLLM) -> Iterator[Service]:
    """Two instances, started at once on a new database, sharing one PAOR_HOME."""
    root = tmp_path_factory.mktemp("engine")
    with service(root, model.base_url, f"{KEY_A},{KEY_B}", PAOR_MAX_STEPS="1", WORKER_COUNT="2") as running:
        running.start(2)
        yield running


@pytest.fixture(scope="module")
def instances(paor: Service) -> list[Instance]:
    return paor.instances


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Instance]]:
    """Two instances with small quotas and rates, and a model that takes 8 s per answer (runs stay in flight)."""
    with ScriptedLLM(latency=Latency(base_s=8.0, prompt_tps=1e9, output_tps=1e9, time_scale=1.0)) as llm:
        script_one_step(llm, HAIKU)
        root = tmp_path_factory.mktemp("limited")
        limits = {
            "PAOR_SERVER_MAX_RUNS": "2",
            "PAOR_SERVER_MAX_REQUESTS_PER_S": "2",
            "PAOR_SERVER_MAX_STORE_ITEMS": "3",
        }
        with service(root, llm.base_url, f"{KEY_A},{KEY_B}", PAOR_MAX_STEPS="1", **limits) as running:
            yield running.start(2)


def test_two_instances_started_together_on_a_new_database_both_serve(instances: list[Instance]) -> None:
    """Aegra migrates at start without a lock: two started together on a new database failed one of them."""
    for instance in instances:
        with client(instance, None) as anonymous:
            assert anonymous.get("/ok").status_code == 200
        logged = instance.log.read_text(errors="replace")
        assert "\x1b[" not in logged, "a log written to a file keeps no colour codes (issue 53)"
        assert "behind paor's key gate" in logged, "the start-up warning about custom routes is answered"


def test_a_run_made_on_one_instance_is_waited_on_from_the_other_and_is_its_owners_only(
    instances: list[Instance],
) -> None:
    first, second = instances
    with client(first, KEY_A) as alice_1, client(second, KEY_A) as alice_2, client(second, KEY_B) as bob_2:
        thread = alice_1.post("/threads", json={}).json()["thread_id"]
        run = alice_1.post(f"/threads/{thread}/runs", json={"assistant_id": "paor", "input": {"prompt": PROMPT}})
        assert run.status_code == 200, run.text
        joined = alice_2.get(f"/threads/{thread}/runs/{run.json()['run_id']}/join")
        assert joined.status_code == 200, joined.text
        assert HAIKU in joined.json()["answer"], joined.json()
        assert bob_2.get(f"/threads/{thread}").status_code == 404
        assert bob_2.get(f"/threads/{thread}/runs/{run.json()['run_id']}/join").status_code == 404


def test_every_route_needs_a_key_and_a_client_cannot_write_a_threads_state(instances: list[Instance]) -> None:
    """The key gate on Aegra's routes too; Aegra reports a state write with its body, which paor refuses as on
    langgraph dev (issue 44: a state write once passed there)."""
    first, _ = instances
    with client(first, None) as anonymous, client(first, KEY_A) as alice:
        for path in ("/threads/search", "/assistants/search"):
            assert anonymous.post(path, json={}).status_code == 401, path
        assert anonymous.get("/info").status_code == 401
        thread = alice.post("/threads", json={}).json()["thread_id"]
        ran = alice.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "paor", "input": {"prompt": PROMPT}})
        assert ran.status_code == 200, ran.text  # a thread with a graph: Aegra would write its state
        written = alice.post(f"/threads/{thread}/state", json={"values": {"documents": ["x"]}})
        assert written.status_code == 403, written.text


def _at_once(calls: list[tuple[httpx.Client, str, str, dict[str, object] | None]]) -> list[httpx.Response]:
    with ThreadPoolExecutor(len(calls)) as pool:
        sent = [pool.submit(http.request, method, path, json=body) for http, method, path, body in calls]
        return [future.result() for future in sent]


def test_a_clients_runs_in_flight_are_counted_across_instances(limited: list[Instance]) -> None:
    """Four runs at once, two on each instance, with a quota of two: two start, two are told when to try again
    (Aegra's error handler once dropped the `Retry-After` of every refusal)."""
    first, second = limited
    with client(first, KEY_B) as bob_1, client(second, KEY_B) as bob_2:
        pair = [bob_1, bob_2]
        threads = [pair[n % 2].post("/threads", json={}).json()["thread_id"] for n in range(4)]
        body = {"assistant_id": "paor", "input": {"prompt": PROMPT}}
        answers = _at_once([(pair[n % 2], "POST", f"/threads/{thread}/runs", body) for n, thread in enumerate(threads)])
    assert sorted(answer.status_code for answer in answers) == [200, 200, 429, 429], [a.text for a in answers]
    for refused in [answer for answer in answers if answer.status_code == 429]:
        assert refused.headers.get("retry-after") == "5", refused.headers
        assert "PAOR_SERVER_MAX_RUNS=2" in refused.text, refused.text


def test_a_clients_request_rate_is_the_services_not_each_instances(limited: list[Instance]) -> None:
    """24 requests at once, half to each instance, at 2 a second (bursts of 4) and at most 5 s of waiting: per
    instance each would pass within 4 s; counted for the service, those past the wait are refused."""
    first, second = limited
    with client(first, KEY_A) as alice_1, client(second, KEY_A) as alice_2:
        answers = _at_once([((alice_1, alice_2)[n % 2], "GET", "/info", None) for n in range(24)])
    refused = [answer for answer in answers if answer.status_code == 429]
    assert len(refused) >= 6 and all(a.status_code in (200, 429) for a in answers), [a.status_code for a in answers]
    assert all(answer.headers.get("retry-after") for answer in refused)


def test_a_clients_store_items_are_counted_across_instances(limited: list[Instance]) -> None:
    """Each instance once kept its own ledger of a client's store: items put through both passed the quota."""
    first, second = limited
    namespace = [identity_of(KEY_B), "notes"]
    with client(first, KEY_B) as bob_1, client(second, KEY_B) as bob_2:
        put = [
            (bob_1, bob_2)[n % 2].put("/store/items", json={"namespace": namespace, "key": f"n{n}", "value": {"n": n}})
            for n in range(4)
        ]
    assert [answer.status_code for answer in put[:3]] == [204, 204, 204], [a.text for a in put]
    assert put[3].status_code == 429 and "PAOR_SERVER_MAX_STORE_ITEMS=3" in put[3].text, put[3].text


def _rows(database: str, query: str, *params: object) -> int:
    with psycopg.connect(database) as conn:
        return int(conn.execute(query, params).fetchone()[0])  # type: ignore[index]


def _files_holding(root: Path, text: str) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file() and text.encode() in path.read_bytes()]


def test_a_link_made_on_one_instance_opens_on_the_other_and_a_deletion_there_deletes_everything(
    paor: Service, model: ScriptedLLM
) -> None:
    model.replace("text", ANSWER_TO_DELETE)  # a document no other thread holds
    try:
        _link_then_delete(paor)
    finally:
        model.replace("text", HAIKU)


def _link_then_delete(paor: Service) -> None:
    first, second = paor.instances
    with client(first, KEY_A) as alice_1, client(second, KEY_A) as alice_2, client(second, None) as anonymous:
        thread = alice_1.post("/threads", json={}).json()["thread_id"]
        done = alice_1.post(f"/threads/{thread}/runs/wait", json={"assistant_id": "paor", "input": {"prompt": PROMPT}})
        [deliverable] = done.json()["deliverables"]
        opened = anonymous.get(deliverable["url"])
        assert opened.status_code == 200 and ANSWER_TO_DELETE in opened.text, opened.text
        history = "SELECT count(*) FROM store WHERE prefix = %s"
        steps = ".".join(history_store.namespace(thread))
        assert _rows(paor.database, history, steps) > 0 and _files_holding(paor.root / "paor-home", ANSWER_TO_DELETE)

        assert alice_2.delete(f"/threads/{thread}").status_code in (200, 204)
        assert anonymous.get(deliverable["url"]).status_code == 410
        assert alice_1.get(f"/threads/{thread}").status_code == 404
    assert _rows(paor.database, "SELECT count(*) FROM checkpoints WHERE thread_id = %s", thread) == 0
    assert _rows(paor.database, history, steps) == 0, "the thread's steps stay for a thread made under its id"
    assert _files_holding(paor.root / "paor-home", ANSWER_TO_DELETE) == [], "the deliverable's file stays on disk"


@pytest.mark.parametrize("down", ["PostgreSQL", "Redis"])
def test_a_database_or_redis_that_does_not_answer_is_one_line_naming_it_without_its_password(
    down: str, tmp_path: Path
) -> None:
    closed = "127.0.0.1:9"  # discard: nothing listens
    urls = {
        "PostgreSQL": (f"postgresql://paor:pg-secret-5521@{closed}/paor", "redis://127.0.0.1:9/0"),
        "Redis": (DATABASE, f"redis://:redis-secret-7713@{closed}/0"),
    }[down]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PAOR_HOME": str(tmp_path / "home")}
    env |= {"PAOR_DATABASE_URL": urls[0], "PAOR_REDIS_URL": urls[1]}
    started = subprocess.run(
        [AEGRA_PYTHON, "-m", "cli.app", "serve"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    said = started.stderr.strip()
    assert started.returncode == 2, said
    assert said.count("\n") == 0 and down in said and "secret" not in said and "***" in said, said


def test_the_docs_literal_key_is_refused_at_start_as_paor_run_refuses_it(tmp_path: Path) -> None:
    """Issue 53: `OPENAI_API_KEY=…` pasted from the docs started a service whose every run then failed."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PAOR_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "…"}
    env |= {"PAOR_DATABASE_URL": "postgresql://paor@127.0.0.1:9/paor", "PAOR_REDIS_URL": "redis://127.0.0.1:9/0"}
    started = subprocess.run(
        [AEGRA_PYTHON, "-m", "cli.app", "serve"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert started.returncode == 2 and "OPENAI_API_KEY contains '…'" in started.stderr, started.stderr


def test_an_instance_whose_documents_folder_is_not_the_services_refuses_to_start(paor: Service, tmp_path: Path) -> None:
    """Uploads and links made on one instance must open on every other: a second machine without the shared folder
    would answer them 404 and 410."""
    elsewhere = {**paor.env, "PAOR_STORE_DIR": str(tmp_path / "not-shared")}
    started = subprocess.run(
        [AEGRA_PYTHON, "-m", "cli.app", "serve", "--port", "9"],
        cwd=REPO,
        env=elsewhere,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 2 and "PAOR_STORE_DIR" in started.stderr, started.stderr
    assert f"documents folder {tmp_path / 'not-shared'} (PAOR_STORE_DIR)" in started.stderr, "the value set, named"


def test_an_upload_made_on_one_instance_is_the_clients_on_the_other_and_only_its(instances: list[Instance]) -> None:
    first, second = instances
    with client(first, KEY_B) as bob_1, client(second, KEY_B) as bob_2, client(second, KEY_A) as alice_2:
        made = bob_1.post("/paor/documents?name=tides.txt", content=b"High water at 06:12 and 18:40.")
        assert made.status_code == 201, made.text
        reference = made.json()["reference"]
        assert reference in [u["reference"] for u in bob_2.get("/paor/documents").json()["uploads"]]
        assert reference not in [u["reference"] for u in alice_2.get("/paor/documents").json()["uploads"]]
        assert alice_2.delete(f"/paor/documents/{reference}").status_code == 404
        assert bob_2.delete(f"/paor/documents/{reference}").status_code in (200, 204)
        assert reference not in [u["reference"] for u in bob_1.get("/paor/documents").json()["uploads"]]
