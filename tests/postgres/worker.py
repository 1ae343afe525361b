"""A paor worker process for the scale-out tests and bench/workers.py: runs (or resumes) the primes scenario on
the given threads against a shared database and the scripted loopback model, holding each thread's lock.

`--claim`: the threads are shared with other workers; a thread another worker holds is skipped ("busy"), one that
is already finished is skipped ("finished") — the check happens under the lock, so no thread is run twice.
Prints one JSON line per thread: {"thread", "outcome", "seconds", "end", "status"?, "steps"?, "error"?}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from core.context import Context
from core.database import DatabaseUnavailable, ThreadBusy
from core.persistence import locked_persistence
from graph.builder import build_graph
from tests.support.scenarios import PRIMES_PROMPT


def run_thread(thread: str, db: str, context: Context, claim: bool) -> dict[str, Any]:
    start = time.perf_counter()
    config: Any = {"configurable": {"thread_id": thread}}
    result: dict[str, Any] = {"thread": thread}
    try:
        with locked_persistence(thread, db) as (saver, store):
            graph = build_graph(checkpointer=saver, store=store)
            snapshot = graph.get_state(config)
            if snapshot.values and not snapshot.next:
                result["outcome"] = "finished"
            else:
                payload = None if snapshot.next else {"prompt": PRIMES_PROMPT}
                out = graph.invoke(payload, config, context=context)
                steps = [h["step"] for h in out["history"]]
                result.update(outcome="resumed" if payload is None else "ran", status=out["status"], steps=steps)
    except ThreadBusy as exc:
        if not claim:
            raise
        result.update(outcome="busy", error=str(exc))
    except DatabaseUnavailable as exc:
        result.update(outcome="unavailable", error=str(exc))
    result["seconds"] = round(time.perf_counter() - start, 4)
    result["end"] = time.time()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--store-dir", required=True)
    parser.add_argument("--threads", required=True, help="comma-separated thread ids")
    parser.add_argument("--claim", action="store_true")
    parser.add_argument("--start-at", type=float, default=0.0, help="wall-clock time to start at (benchmarks)")
    parser.add_argument("--gate", action="store_true", help="print 'ready', then start at a line on stdin")
    args = parser.parse_args(argv)
    context = Context(model="scripted", base_url=args.base_url, max_retries=0, store_dir=args.store_dir)
    if args.gate:  # workers start together, after their imports, however slowly a loaded machine got them there
        print("ready", flush=True)
        sys.stdin.readline()
    time.sleep(max(0.0, args.start_at - time.time()))  # workers start together, after their imports
    for thread in args.threads.split(","):
        print(json.dumps(run_thread(thread, args.db, context, args.claim)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
