"""One exercise: the statement, the hint, the launch, the inputs, and how its result is judged.

An :class:`Exercise` knows how to run a learner's kernel once on a simulator ``Device``: it builds
fresh inputs, launches the kernel with them, reads the outputs back and compares them with an
independent reference written in plain Python (or, where many answers are right, checks a property
of the answer).  :meth:`Exercise.run_once` returns ``None`` when the result is right and otherwise a
message in plain words: the inputs, what was expected, what the kernel left.

>>> import numpy as np
>>> ex = Exercise(0, "copy", "Copy", "copy", "Copy a into out.", "out[i] = a[i]", grid=1, block=2,
...               inputs=lambda: {"a": np.array([5, 6], np.int32), "out": np.zeros(2, np.int32)},
...               outputs=("out",), expected=lambda given: {"out": list(given["a"])})
>>> print(ex.wrong({"a": np.array([5, 6], np.int32)}, {"out": [5, 6]}, {"out": [0, 0]}))
wrong result: with a=[5, 6] the kernel left out=[0, 0]; expected out=[5, 6]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.runtime.device import Device

__all__ = ["Exercise", "show_value"]

_HERE = Path(__file__).resolve().parent


def show_value(value: Any) -> str:
    """A value as the learner wrote it: arrays as Python lists, numbers as numbers."""
    if isinstance(value, np.ndarray):
        return str(value.tolist())
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


@dataclass(frozen=True)
class Exercise:
    """A numbered exercise.

    Parameters
    ----------
    number, slug, title:
        ``gpusim exercise NUMBER``; the stub and solution files are ``eNN_slug.py``.
    kernel:
        The name of the kernel the stub defines (a file with several kernels is checked on this one).
    statement, hint:
        What to write, and a nudge towards it.
    grid, block:
        The launch.
    inputs:
        Fresh arguments, in the kernel's parameter order: arrays (copied to the device) and numbers.
    outputs:
        The arrays read back after the launch.
    expected:
        The reference: from the inputs, the outputs a right kernel leaves (lists).
    judge:
        Instead of ``expected`` where many answers are right: ``judge(inputs, got)`` returns ``None`` or
        what is wrong.
    options:
        Simulator options beyond the checker's own (``memory="weak"`` for the fence exercise).
    forbidden:
        Members of ``T`` the kernel may not use (the exercise is about doing without them).
    schedules:
        How many schedules the checker tries: a systematic search, then random ones (each at most).
    """

    number: int
    slug: str
    title: str
    kernel: str
    statement: str
    hint: str
    grid: int
    block: int
    inputs: Callable[[], dict[str, Any]]
    outputs: tuple[str, ...]
    expected: Callable[[dict[str, Any]], dict[str, list]] | None = None
    judge: Callable[[dict[str, Any], dict[str, list]], str | None] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    forbidden: tuple[str, ...] = ()
    schedules: int = 40

    @property
    def filename(self) -> str:
        """The name of the stub and of the solution, ``eNN_slug.py``."""
        return f"e{self.number:02d}_{self.slug}.py"

    @property
    def stub_path(self) -> Path:
        """Where the stub is, the kernel with its body to fill."""
        return _HERE / "stubs" / self.filename

    @property
    def solution_path(self) -> Path:
        """Where a solution is (kept apart; the tests check it passes)."""
        return _HERE / "solutions" / self.filename

    def stub(self) -> str:
        """The stub's source text."""
        return self.stub_path.read_text()

    def parameters(self) -> list[str]:
        """The kernel's parameters, in order."""
        return list(self.inputs())

    def run_once(self, dev: Device, kernel) -> str | None:
        """Launch ``kernel`` on ``dev`` with fresh inputs; ``None`` if the result is right, else what is wrong."""
        given = self.inputs()
        args = tuple(dev.array(v) if isinstance(v, np.ndarray) else v for v in given.values())
        dev.launch(kernel, grid=self.grid, block=self.block, args=args)
        names = list(given)
        got = {name: dev.to_host(args[names.index(name)]).tolist() for name in self.outputs}
        if self.judge is not None:
            return self.judge(given, got)
        want = self.expected(given)
        if got == want:
            return None
        return self.wrong(given, want, got)

    def wrong(self, given: dict[str, Any], want: dict[str, list], got: dict[str, list]) -> str:
        """The wrong-result message: the inputs, what the kernel left, what was expected."""
        shown = ", ".join(f"{name}={show_value(value)}" for name, value in given.items() if name not in self.outputs)
        left = ", ".join(f"{name}={got[name]}" for name in self.outputs if got[name] != want[name])
        expected = ", ".join(f"{name}={want[name]}" for name in self.outputs if got[name] != want[name])
        return f"wrong result: with {shown} the kernel left {left}; expected {expected}"
