"""How many blocking calls paor makes at once in one process.

paor's nodes are synchronous: waiting on the model, a web page or an MCP server holds a thread. Under
`langgraph dev` LangGraph runs every sync node on the event loop's default thread pool, which Python sizes to
min(32, cores + 4) — 6 on 2 cores — so with 10 or 50 jobs per worker no more than 6 model requests were ever in
flight (issue 34). A thread that waits on the network costs a few MB and no CPU, so the pools are sized for every
job the server may run at once instead: PAOR_THREADS, else twice N_JOBS_PER_WORKER (the jobs `langgraph dev
--n-jobs-per-worker` runs at once; langgraph-api sets it) plus room for the server's own work, at least 32.
CPU-bound work keeps its own bounds: documents parse in child processes, programs in the sandbox.
"""

from __future__ import annotations

import os

THREADS_ENV = "PAOR_THREADS"
JOBS_ENV = "N_JOBS_PER_WORKER"
#: The fewest threads a pool gets: what Python's default pool has on a large machine.
MIN_THREADS = 32


def blocking_threads() -> int:
    """Threads for calls that wait (nodes under the server, tool calls): PAOR_THREADS, else sized for the jobs."""
    configured = os.environ.get(THREADS_ENV, "").strip()
    if configured:
        return max(1, int(configured))
    jobs = os.environ.get(JOBS_ENV, "").strip()
    return max(MIN_THREADS, 2 * int(jobs) + 16) if jobs.isdigit() else MIN_THREADS
