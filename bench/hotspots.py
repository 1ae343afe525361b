"""Where paor's own per-iteration overhead goes: pyinstrument over the overhead benchmark's paor run.

The instant model and tool of `bench.overhead` leave only framework work. Time is attributed inclusively to
functions in paor's source folders (graph/, nodes/, tools/, prompts/), and to the library calls those functions
make, per iteration. Only the calling thread is sampled (LangGraph's checkpoint writes in its background thread
show up as waiting). Profiling slows everything down, so compare the rows with each other, not with the
overhead table.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench.common import prepare_environment, tempdir

STEPS = 20
REPEATS = 3
TOP = 8
_SOURCE = ("core", "graph", "nodes", "tools", "prompts")


@dataclass
class Profile:
    iterations: int
    total_s: float
    own: dict[tuple[str, str], float] = field(default_factory=dict)  # (function, file) → seconds, inclusive
    calls: dict[tuple[str, str, str], float] = field(default_factory=dict)  # (paor fn, callee, callee file) → s


def _relative(path: str) -> str:
    from bench.overhead import __file__ as here

    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    repo = here.rsplit("/bench/", 1)[0] + "/"
    if path.startswith(repo):
        return path[len(repo) :]
    return path.rsplit("/lib/python3.11/", 1)[-1]


def _walk(frame: Any, profile: Profile, stack: frozenset[tuple[str, str]], caller: str | None) -> None:
    path = _relative(frame.file_path or "")
    key = (frame.function or "?", path)
    own = path.split("/", 1)[0] in _SOURCE and path.endswith(".py")
    if own and key not in stack:  # inclusive time, counted once per recursion
        profile.own[key] = profile.own.get(key, 0.0) + frame.time
    if caller is not None and not own:
        edge = (caller, frame.function or "?", path)
        profile.calls[edge] = profile.calls.get(edge, 0.0) + frame.time
    for child in frame.children:
        _walk(child, profile, stack | {key} if own else stack, f"{key[0]} ({key[1]})" if own else None)


def run_all() -> Profile:
    from pyinstrument import Profiler

    from bench.overhead import time_paor

    prepare_environment(tempdir("hotspots"))
    time_paor(2)  # imports and caches
    profiler = Profiler(interval=0.0005)
    profiler.start()
    for _ in range(REPEATS):
        time_paor(STEPS)
    profiler.stop()
    session = profiler.last_session
    if session is None:
        raise RuntimeError("pyinstrument recorded no session")
    profile = Profile(iterations=STEPS * REPEATS, total_s=session.duration)
    root = session.root_frame()
    if root is not None:
        _walk(root, profile, frozenset(), None)
    profile.own = dict(defaultdict(float, profile.own))
    return profile


def _node_time(profile: Profile) -> float:
    return profile.own.get(("node", "graph/instrument.py"), 0.0) or sum(profile.own.values())


def table(profile: Profile) -> str:
    per = 1000 / profile.iterations
    nodes = _node_time(profile)
    lines = [
        f"Sampled {profile.iterations} iterations ({STEPS} × {REPEATS} runs): {profile.total_s * per:.1f} ms per "
        f"iteration under the profiler, of which {nodes * per:.1f} ms inside paor's nodes.",
        "",
        "| paor function (inclusive) | ms / iteration | share of node time |",
        "|---|---:|---:|",
    ]
    skip = {("node", "graph/instrument.py")}
    ranked = sorted(((k, v) for k, v in profile.own.items() if k not in skip), key=lambda kv: -kv[1])[:TOP]
    lines += [f"| `{fn}` ({path}) | {v * per:.2f} | {v / nodes:.0%} |" for (fn, path), v in ranked]
    lines += [
        "",
        "| library call made from paor code | ms / iteration | share of node time |",
        "|---|---:|---:|",
    ]
    calls = sorted(profile.calls.items(), key=lambda kv: -kv[1])[:TOP]
    lines += [
        f"| `{caller}` → `{callee}` ({path}) | {v * per:.2f} | {v / nodes:.0%} |" for (caller, callee, path), v in calls
    ]
    return "\n".join(lines)


def main() -> None:
    print(table(run_all()))


if __name__ == "__main__":
    main()
