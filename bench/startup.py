"""How fast the `paor` command starts, as ratios against `python -c "import typer, rich"` measured in the same run.

Each command runs in a fresh interpreter, REPEATS times; the median wall time counts. `history` reads a real thread
(a primes run against the scripted loopback model, made first) in a fresh PAOR_HOME.

`--against DIR` compares this checkout with another one (`git worktree add DIR REV`): a one-step run and importing
and building the graph, each checkout's process in turn, RUN_REPEATS times.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.common import print_report, tempdir

REPEATS = 15
RUN_REPEATS = 5  # a whole run takes seconds
RUN = "paor run (the primes request, one step once learned; scripted model)"
THREAD = "startup"
TARGETS = {"paor --help": 1.5, f"paor history {THREAD}": 3.0}


def _paor() -> list[str]:
    script = Path(sys.executable).with_name("paor")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli"]


def _median_seconds(command: list[str], env: dict[str, str], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(
            command, env=env, cwd=env["PAOR_HOME"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@contextmanager
def _scripted_model(env: dict[str, str]) -> Iterator[dict[str, str]]:
    """`env` pointed at the scripted loopback model, answering the primes scenario (one step once learned)."""
    from tests.support.scenarios import script_primes
    from tests.support.scripted_llm import ScriptedLLM

    with ScriptedLLM() as llm:
        script_primes(llm)
        yield {**env, "OPENAI_BASE_URL": llm.base_url, "PAOR_MODEL": "scripted", "PAOR_MAX_RETRIES": "0"}


def run_all() -> dict[str, float]:
    home = tempdir("startup")
    env = {**os.environ, "PAOR_HOME": str(home), "OPENAI_API_KEY": "sk-bench-not-a-real-key"}
    paor = _paor()
    primes = [*paor, "run", "Calculate the first 1000 prime numbers", "--json"]
    with _scripted_model(env) as run_env:
        _median_seconds([*primes, "--thread", THREAD], run_env, repeats=1)  # the thread `history` reads
        run_ms = _median_seconds(primes, run_env, repeats=RUN_REPEATS) * 1000  # each in a new thread
    commands = {
        'python -c "import typer, rich"': [sys.executable, "-c", "import typer, rich"],
        "paor --help": [*paor, "--help"],
        f"paor history {THREAD}": [*paor, "history", THREAD],
        "paor strategies": [*paor, "strategies"],
        # The floor under any command that reads a thread: LangGraph's checkpointer imports langchain_core.
        'python -c "import langgraph.checkpoint.sqlite"': [sys.executable, "-c", "import langgraph.checkpoint.sqlite"],
    }
    return {**{name: _median_seconds(command, env) * 1000 for name, command in commands.items()}, RUN: run_ms}


def table(results: dict[str, float]) -> str:
    baseline = results['python -c "import typer, rich"']
    lines = [
        f"| command (median of {REPEATS}, runs {RUN_REPEATS}; fresh interpreters) | ms | vs `import typer, rich` |",
        "|---|---:|---:|",
    ]
    lines += [f"| `{name}` | {ms:.0f} | {ms / baseline:.2f}× |" for name, ms in results.items()]
    return "\n".join(lines)


def verdicts(results: dict[str, float]) -> list[str]:
    baseline = results['python -c "import typer, rich"']
    lines = []
    for name, target in TARGETS.items():
        ratio = results[name] / baseline
        lines.append(
            f"`{name}` ≤ {target} × `import typer, rich`: {results[name]:.0f} ms vs {baseline:.0f} ms = "
            f"{ratio:.2f}× → {'MET' if ratio <= target else 'NOT MET'}"
        )
    return lines


def compare(other: Path, repeats: int = RUN_REPEATS) -> str:
    """This checkout's one-step run and graph import against `other`'s, alternating; a table of medians."""
    trees = {"this checkout": Path(__file__).resolve().parents[1], str(other): other.resolve()}
    home = tempdir("startup-against")
    env = {**os.environ, "PAOR_HOME": str(home), "OPENAI_API_KEY": "sk-bench-not-a-real-key"}
    work = {
        "one-step `paor run`": [sys.executable, "-m", "cli", "run", "Calculate the first 1000 prime numbers", "--json"],
        "import and build the graph": [sys.executable, "-c", "import graph.builder; graph.builder.build_graph()"],
    }
    seconds: dict[tuple[str, str], list[float]] = {}
    with _scripted_model(env) as run_env:
        for _ in range(repeats):
            for tree, path in trees.items():
                for name, command in work.items():  # PYTHONPATH wins over the editable install's finder
                    runs = seconds.setdefault((tree, name), [])
                    runs.append(_median_seconds(command, {**run_env, "PYTHONPATH": str(path)}, repeats=1))
    lines = [f"| (median of {repeats}, alternating) | {' | '.join(trees)} | ratio |", "|---|---:|---:|---:|"]
    for name in work:
        mine, theirs = (statistics.median(seconds[tree, name]) for tree in trees)
        lines.append(f"| {name} | {mine:.2f} s | {theirs:.2f} s | {mine / theirs:.2f}× |")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--against":
        print(compare(Path(sys.argv[2])))
        return
    results = run_all()
    print_report(table(results), verdicts(results))


if __name__ == "__main__":
    main()
