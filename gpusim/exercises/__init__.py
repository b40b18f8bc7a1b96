"""Exercises with checkers: write a kernel, and the simulator says whether it is right under every schedule.

Thirteen exercises, from "map" to "a lock-free matching step", each with a statement, a hint, a
stub (the kernel with its body to fill) and a checker that runs the kernel under many schedules
with the race detector on.  From the command line: ``gpusim exercise list``, ``gpusim exercise N``
(the statement and the stub), ``gpusim exercise N FILE.py`` (the check).

>>> from gpusim.exercises import check, get_exercise, list_exercises, show
>>> len(list_exercises()) >= 12
True
>>> print(show(1).splitlines()[0])
Exercise 1: Map
>>> verdict = check(1, get_exercise(1).solution_path)
>>> verdict.status, verdict.schedules > 1
('correct', True)
"""

from __future__ import annotations

from .catalogue import EXERCISES, get_exercise
from .checker import Verdict, check, load_kernel
from .exercise import Exercise

__all__ = ["EXERCISES", "Exercise", "Verdict", "check", "get_exercise", "list_exercises", "load_kernel", "show"]


def list_exercises() -> list[Exercise]:
    """Every exercise, in order."""
    return list(EXERCISES)


def show(number: int) -> str:
    """Exercise ``number`` as text: title, statement, hint and the stub to start from."""
    ex = get_exercise(number)
    return (f"Exercise {ex.number}: {ex.title}\n\n{ex.statement}\n\nHint: {ex.hint}\n\n"
            f"Launch: grid={ex.grid}, block={ex.block}, arguments ({', '.join(ex.parameters())}).\n"
            f"Start from this stub (save it, fill the body, then: gpusim exercise {ex.number} FILE.py):\n\n"
            f"{ex.stub()}")
