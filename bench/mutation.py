"""`python -m bench.mutation [MODULE ...]`: mutation testing of the modules that carry README's guarantees.

Runs mutmut (`pip install -e '.[mutation]'`, configured in pyproject's `[tool.mutmut]`) one module at a time with
one worker, then prints the score per module and every mutant that survived (`mutmut show NAME` prints its diff).
Each mutant runs only the selected tests that executed the function it changed. Slow (minutes per module) and
CPU-bound: not part of CI. `--report` prints the last results without running anything.
"""

from __future__ import annotations

import argparse
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
    def score(self) -> float:
        return self.killed / self.total if self.total else 1.0


def guarded_modules() -> list[str]:
    """The files `[tool.mutmut] only_mutate` names, as dotted module names."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    return [path.removesuffix(".py").replace("/", ".") for path in config["only_mutate"]]


def mutmut(*args: str, capture: bool = False) -> str:
    command = [sys.executable, "-m", "mutmut", *args]
    done = subprocess.run(command, cwd=ROOT, text=True, capture_output=capture, check=False)
    return done.stdout if capture else ""


def run(module: str) -> None:
    """Mutate one module and run its mutants, one at a time (the machine is shared)."""
    print(f"== {module}", file=sys.stderr, flush=True)
    mutmut("run", "--max-children", "1", f"{module}.*")


def scores(modules: list[str]) -> list[ModuleScore]:
    """Every mutant's last verdict, grouped by module (`mutmut results --all true`: `name: status` lines)."""
    by_module = {module: ModuleScore(module) for module in modules}
    for line in mutmut("results", "--all", "true", capture=True).splitlines():
        name, _, status = line.strip().rpartition(": ")
        module = next((m for m in modules if name.startswith(f"{m}.")), None)
        if module is None or not status:
            continue
        by_module[module].statuses[status] += 1
        if status not in KILLED and status != "skipped":
            by_module[module].survivors.append(f"{name} ({status})")
    return list(by_module.values())


def table(results: list[ModuleScore]) -> str:
    lines = ["| module | mutants | killed | survived | no tests | score |", "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(
            f"| `{r.module}` | {r.total} | {r.killed} | {r.statuses['survived']} | {r.statuses['no tests']} "
            f"| {r.score:.0%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="dotted module names (default: every [tool.mutmut] module)")
    parser.add_argument("--report", action="store_true", help="print the last results without running mutmut")
    args = parser.parse_args(argv)
    modules = args.modules or guarded_modules()
    if not args.report:
        for module in modules:
            run(module)
    results = scores(modules)
    print(table(results))
    for r in results:
        if r.survivors:
            print(f"\nsurvivors in {r.module} (`mutmut show NAME` for the diff):")
            print("\n".join(f"- {name}" for name in r.survivors))


if __name__ == "__main__":
    main()
