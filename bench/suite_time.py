"""`python -m bench.suite_time BASE HEAD [TEST ...]`: what a change costs the test suite, as a ratio.

Runs the whole suite of commit BASE and of commit HEAD (each in a scratch git worktree, with this interpreter),
alternately, ROUNDS times, and compares the median wall times; TEST paths of the current tree (tests written for the
same change after HEAD) are timed the same way and added to HEAD's figure. Measured in one run so that both sides
meet the same machine load: issue #16 allows its tests 20 % over the suite they were added to.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import tempdir

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 3


def _pytest_seconds(cwd: Path, tests: list[str]) -> float:
    """Wall seconds of one pytest run in `cwd` (its own packages first on sys.path: `python -m` puts cwd there)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:  # a test that fails under load still ran with the suite: say which, keep the time
        failed = [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
        print(f"note: pytest exit {done.returncode} in {cwd}: {failed}", file=sys.stderr, flush=True)
    return time.perf_counter() - start


def _worktree(commit: str, where: Path) -> Path:
    command = ["git", "worktree", "add", "--detach", str(where), commit]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return where


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("head")
    parser.add_argument("tests", nargs="*", help="test paths of the current tree added to HEAD's time")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args(argv)
    scratch = tempdir("suite-time")
    trees = {name: _worktree(commit, scratch / name) for name, commit in (("base", args.base), ("head", args.head))}
    times: dict[str, list[float]] = {"base": [], "head": [], "later": []}
    try:
        for _ in range(args.rounds):
            for name, tree in trees.items():
                times[name].append(_pytest_seconds(tree, []))
            if args.tests:
                times["later"].append(_pytest_seconds(ROOT, args.tests))
            print({k: [round(t) for t in v] for k, v in times.items()}, file=sys.stderr, flush=True)
    finally:
        for tree in trees.values():
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
        shutil.rmtree(scratch, ignore_errors=True)
    base = statistics.median(times["base"])
    head = statistics.median(times["head"]) + (statistics.median(times["later"]) if times["later"] else 0.0)
    print(f"suite of {args.base[:10]}: {base:.0f} s (median of {args.rounds})")
    print(f"suite of {args.head[:10]}{' + ' + ' '.join(args.tests) if args.tests else ''}: {head:.0f} s")
    print(f"ratio: {head / base:.2f} (target ≤ 1.20)")


if __name__ == "__main__":
    main()
