"""`paor serve` (issue 44): paor's graph on Aegra, instances on one PostgreSQL and one Redis, through real processes
in the Python 3.12 venv of the `aegra` extra. Two instances started together on a new database both come up; the key
gate, tenancy, quotas and rates hold across instances; a run made on one is waited on from the other."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.fairness import script_one_step
from tests.support.paor_serve import MISSING, Instance, client, service
from tests.support.scripted_llm import ScriptedLLM

pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
KEY_A, KEY_B = "engine-key-alice-4d1f", "engine-key-bob-93ae"
PROMPT = "Write a haiku about the sea"
HAIKU = "Grey waves fold and break; salt wind combs the empty shore; gulls write on the foam."


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Instance]]:
    """Two instances, started at once on a new database, sharing one PAOR_HOME."""
    with ScriptedLLM() as llm:
        script_one_step(llm, HAIKU)
        root = tmp_path_factory.mktemp("engine")
        with service(root, llm.base_url, f"{KEY_A},{KEY_B}", PAOR_MAX_STEPS="1", WORKER_COUNT="2") as running:
            yield running.start(2)


def test_two_instances_started_together_on_a_new_database_both_serve(instances: list[Instance]) -> None:
    """Aegra migrates at start without a lock: two started together on a new database failed one of them."""
    for instance in instances:
        with client(instance, None) as anonymous:
            assert anonymous.get("/ok").status_code == 200


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
