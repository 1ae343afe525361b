"""bench.overhead's instant models drive paor through every step of its task: a model that asked for the same
section each step ran into paor's never-repeat rule at step 3, and `python -m bench` stopped there."""

from __future__ import annotations

from bench.overhead import time_paor


def test_paor_runs_every_step_of_the_overhead_task() -> None:
    assert time_paor(steps=5) > 0  # raises, naming the stop reason, unless all five steps ran
