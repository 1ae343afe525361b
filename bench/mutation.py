"""`python -m bench.mutation [MODULE ...]`: mutation testing of the modules that carry README's guarantees.

Runs mutmut (`pip install -e '.[mutation]'`, configured in pyproject's `[tool.mutmut]`) one module at a time, with
one worker unless `--children N`, then prints the score per module and every mutant that survived (`mutmut show
NAME` prints its diff). Each mutant runs only the selected tests that executed the function it changed. Slow (about
2 500 mutants, several seconds each) and CPU-bound: not part of CI. A stopped run goes on where it stopped;
`--survivors` re-runs the last survivors once tests were written for them; `--sample N` runs N mutants per module,
drawn with a fixed seed, for an estimate; `--report` prints the last results without running.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: mutmut's verdicts that count as "a test noticed the change".
KILLED = frozenset({"killed", "timeout", "caught by type check", "segfault"})


@dataclass
class ModuleScore:
    module: str
    statuses: Counter[str] = field(default_factory=Counter)
    survivors: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(n for status, n in self.statuses.items() if status not in ("skipped", "not checked"))

    @property
    def killed(self) -> int:
        return sum(n for status, n in self.statuses.items() if status in KILLED)

    @property
    def score(self) -> str:
        return f"{self.killed / self.total:.0%}" if self.total else "—"


def guarded_modules() -> list[str]:
    """The files `[tool.mutmut] only_mutate` names, as dotted module names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    return [path.removesuffix(".py").replace("/", ".") for path in config["only_mutate"]]


def mutmut(*args: str, capture: bool = False) -> str:
    command = [sys.executable, "-m", "mutmut", *args]
    done = subprocess.run(command, cwd=ROOT, text=True, capture_output=capture, check=False)
    return done.stdout if capture else ""


def run(
    module: str, sample: int | None = None, again: bool = False, children: int = 1, survivors: bool = False
) -> None:
    """Mutate one module and run its mutants (or a sample of them, or the survivors of the last run).

    A run stopped half-way goes on where it stopped: mutants with a verdict are left alone unless `again`
    (mutmut re-runs every mutant it is given by name).
    """
    names = verdicts().get(module, {})
    if survivors:
        chosen = sorted(name for name, status in names.items() if status == "survived")
        if not chosen:
            return
    elif sample and names:
        chosen = sorted(random.Random(module).sample(sorted(names), min(sample, len(names))))
    elif names and not again:
        chosen = sorted(name for name, status in names.items() if status == "not checked")
        if not chosen:
            print(f"== {module}: every mutant has a verdict (--again re-runs them)", file=sys.stderr, flush=True)
            return
    else:
        chosen = []
    print(f"== {module}: {len(chosen) if chosen else 'all'} mutants", file=sys.stderr, flush=True)
    mutmut("run", "--max-children", str(children), *(chosen or [f"{module}.*"]))


def verdicts() -> dict[str, dict[str, str]]:
    """module → mutant → its last verdict (`mutmut results --all true` prints `name: status` lines)."""
    found: dict[str, dict[str, str]] = {}
    for line in mutmut("results", "--all", "true", capture=True).splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name and status:
            found.setdefault(name.split(".x", 1)[0], {})[name] = status
    return found


def scores(modules: list[str]) -> list[ModuleScore]:
    """The checked mutants' verdicts per module; mutants never run are left out."""
    results = []
    all_verdicts = verdicts()
    for module in modules:
        score = ModuleScore(module)
        for name, status in sorted(all_verdicts.get(module, {}).items()):
            score.statuses[status] += 1
            if status not in KILLED and status not in ("skipped", "not checked"):
                score.survivors.append(f"{name} ({status})")
        results.append(score)
    return results


def table(results: list[ModuleScore]) -> str:
    lines = [
        "| module | mutants | checked | killed | survived | no tests | score |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        lines.append(
            f"| `{r.module}` | {r.total + r.statuses['not checked']} | {r.total} | {r.killed} | "
            f"{r.statuses['survived']} | {r.statuses['no tests']} | {r.score} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="dotted module names (default: every [tool.mutmut] module)")
    parser.add_argument("--sample", type=int, metavar="N", help="run N mutants per module (seeded), for an estimate")
    parser.add_argument("--report", action="store_true", help="print the last results without running mutmut")
    parser.add_argument("--again", action="store_true", help="re-run mutants that already have a verdict")
    parser.add_argument("--children", type=int, default=1, metavar="N", help="mutants run at once (default 1)")
    parser.add_argument("--survivors", action="store_true", help="re-run the last run's survivors (after new tests)")
    args = parser.parse_args(argv)
    modules = args.modules or guarded_modules()
    if not args.report:
        for module in modules:
            run(module, args.sample, args.again, args.children, args.survivors)
    results = scores(modules)
    print(table(results))
    for r in results:
        if r.survivors:
            print(f"\nsurvivors in {r.module} (`mutmut show NAME` for the diff):")
            print("\n".join(f"- {name}" for name in r.survivors))


if __name__ == "__main__":
    main()
