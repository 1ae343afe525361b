"""The first sign of life of a chat run, and the first run after a server starts against the second (issue 31, 8).

A real `langgraph dev` (tests/support/langgraph_dev.py) with the scripted loopback model answering at once, so what
is measured is paor's own time: for each request kind, a run on a new thread streamed as Agent Chat UI streams it
(`messages-tuple` and `values`), timed from the request to the first event that shows the user text of an AI
message (a streamed token of the answer, or the "Working on it" message) and to the run's end. The first run of
each kind goes right after the server answered `/ok`, so it pays whatever the server did not load at start; learning
is off, so a strategy learned by the first run does not shorten the later ones.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass
from typing import Any

from bench.common import print_report, tempdir

ASSISTANT = "paor"
REPEATS = 5
#: A question answered by the bare call; a request the loop works on (the primes scenario: two steps).
KINDS = {"direct question": "What is the capital of France?", "loop request": None}
SIGN_OF_LIFE_S = 1.0
#: The first run may take at most this many times the later runs' median (it took 7.7 s against 0.1 s).
FIRST_RUN_RATIO = 1.5


@dataclass
class Timing:
    first_text_s: float
    total_s: float


def _shows_text(part: Any) -> bool:
    """An AI message (or chunk) with text, as a chat renders it."""
    if part.event == "messages":
        chunk = part.data[0] if isinstance(part.data, list) and part.data else {}
        return isinstance(chunk, dict) and chunk.get("type") in ("AIMessageChunk", "ai") and bool(chunk.get("content"))
    if part.event == "values" and isinstance(part.data, dict):
        messages = part.data.get("messages") or []
        return bool(messages) and messages[-1].get("type") == "ai" and bool(messages[-1].get("content"))
    return False


async def _timed_run(client: Any, prompt: str) -> Timing:
    thread = await client.threads.create()
    message = {"type": "human", "content": [{"type": "text", "text": prompt}]}
    start = time.perf_counter()
    first = float("nan")
    async for part in client.runs.stream(
        thread["thread_id"],
        ASSISTANT,
        input={"messages": [message]},
        stream_mode=["messages-tuple", "values"],
        context={"learning": False},  # every run takes the same steps: a learned strategy would shorten the later
    ):
        if first != first and _shows_text(part):  # nan: not seen yet
            first = time.perf_counter() - start
    return Timing(first, time.perf_counter() - start)


async def _measure(url: str, prompts: dict[str, str]) -> dict[str, list[Timing]]:
    from langgraph_sdk import get_client

    client = get_client(url=url)
    return {kind: [await _timed_run(client, prompt) for _ in range(REPEATS)] for kind, prompt in prompts.items()}


def run() -> dict[str, list[Timing]]:
    from tests.support.langgraph_dev import langgraph_dev, scripted_env
    from tests.support.scenarios import PRIMES_PROMPT, script_primes
    from tests.support.scripted_llm import ScriptedLLM

    root = tempdir("first-light")
    results: dict[str, list[Timing]] = {}
    for kind, prompt in KINDS.items():  # each kind on a server of its own: its first run is the server's first
        with ScriptedLLM() as llm:
            if prompt is None:
                script_primes(llm)
            else:
                llm.on("text", "Paris.")
            folder = root / kind.replace(" ", "-")
            with langgraph_dev(folder, scripted_env(llm.base_url, folder / "paor-home")) as url:
                results.update(asyncio.run(_measure(url, {kind: prompt or PRIMES_PROMPT})))
    return results


def table(results: dict[str, list[Timing]]) -> str:
    lines = [
        "| request (scripted model, answers at once) | first run after start: first text / whole run | later runs "
        "(median): first text / whole run | first run ÷ later |",
        "|---|---:|---:|---:|",
    ]
    for kind, timings in results.items():
        first, later = timings[0], timings[1:]
        text = statistics.median(t.first_text_s for t in later)
        total = statistics.median(t.total_s for t in later)
        lines.append(
            f"| {kind} | {first.first_text_s:.2f} s / {first.total_s:.2f} s | {text:.2f} s / {total:.2f} s "
            f"| {first.total_s / total:.2f} × |"
        )
    return "\n".join(lines)


def verdicts(results: dict[str, list[Timing]]) -> list[str]:
    out = []
    for kind, timings in results.items():
        slowest = max(t.first_text_s for t in timings)
        later = statistics.median(t.total_s for t in timings[1:])
        ratio = timings[0].total_s / later
        out.append(
            f"{kind}: first sign of life ≤ {SIGN_OF_LIFE_S:g} s in every run: slowest {slowest:.2f} s → "
            f"{'MET' if slowest <= SIGN_OF_LIFE_S else 'NOT MET'}"
        )
        out.append(
            f"{kind}: first run after start ≤ {FIRST_RUN_RATIO:g} × the later runs: {ratio:.2f} × → "
            f"{'MET' if ratio <= FIRST_RUN_RATIO else 'NOT MET'}"
        )
    return out


def main() -> None:
    results = run()
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
