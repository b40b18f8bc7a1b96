"""The policy the explorer steers with: run sequentially, switch threads only where a list says.

:class:`Switches` keeps the running thread until it blocks or finishes (then the lowest-numbered
runnable thread goes on), except at the listed global steps, where the listed thread takes over.
Unlike :class:`~gpusim.backends.sim.Preemptions` it names threads, not positions among the
runnable ones, so a switch keeps its meaning when other switches are removed: delta debugging
(:mod:`gpusim.explore.shrink`) and the systematic search (:mod:`gpusim.explore.search`) both rely on
that.  With ``record=True`` it also logs, at every step where the running thread could go on, which
other threads could have run instead: the branching points of a systematic search.

>>> Switches([(5, 1)])
Switches([(5, 1)])
"""

from __future__ import annotations

from collections.abc import Iterable

from gpusim.backends.sim import NEVER, Policy
from gpusim.errors import InvalidArgument

__all__ = ["Switches", "switches_of"]


class Switches(Policy):
    """Sequential, except: at global step ``s`` of an entry ``(s, t)`` thread ``t`` runs (if it can).

    ``forced`` entries ``(s, t)`` name who runs when the running thread blocked or finished at
    step ``s`` (by default the lowest-numbered runnable thread); they cost no preemption.  Several at one step
    (threads that block as soon as they run, at a barrier) are taken in their order.
    """

    def __init__(self, preemptions: Iterable[tuple[int, int]] = (), forced: Iterable[tuple[int, int]] = (),
                 record: bool = False):
        self.preemptions = _clean(preemptions, "preemptions")
        self.forced = _clean(forced, "forced")
        self.record = record
        self._switch = dict(self.preemptions)
        self._hand_over: dict[int, list[int]] = {}  # several at one step: threads that block on arriving, in turn
        for step, thread in self.forced:
            self._hand_over.setdefault(step, []).append(thread)
        self._handed: dict[int, int] = {}
        self._steps = sorted(set(self._switch) | set(self._hand_over))
        self.offset = 0
        self.position = 0
        self.n_threads = 0
        self.branches: list[tuple[int, int, tuple[int, ...]]] = []  # (global step, running, others)

    def compiled_switches(self) -> tuple[tuple, tuple] | None:
        """The switch lists for the compiled engine (:func:`~gpusim.backends.sim.compiled.plan_of`), or ``None``
        while recording the branching points, which only the reference engine sees."""
        if self.record or any(len(threads) > 1 for threads in self._hand_over.values()):
            return None  # the compiled engine takes one hand-over a step
        return self.preemptions, self.forced

    def start(self, launch, n_threads, step_offset):
        self.offset = step_offset
        self.position = 0
        self.n_threads = n_threads

    def _can_run(self, thread: int | None, sim) -> bool:
        """Whether ``thread`` exists in this launch and may run: a switch recorded in a larger launch
        (a 256-thread phase) can land, once others are removed, on a smaller one (a 32-thread fill)."""
        return thread is not None and thread < self.n_threads and sim.is_runnable(thread)

    def _following(self, glob: int) -> int:
        steps, position = self._steps, self.position
        while position < len(steps) and steps[position] <= glob:
            position += 1
        self.position = position
        if self.record:
            return glob + 1 - self.offset
        return steps[position] - self.offset if position < len(steps) else NEVER

    def choose(self, step, current, sim):
        glob = step + self.offset
        if current < 0:
            threads = self._hand_over.get(glob, ())
            turn = self._handed.get(glob, 0)
            wanted = threads[turn] if turn < len(threads) else None
            if threads:
                self._handed[glob] = turn + 1
            thread = wanted if self._can_run(wanted, sim) else sim.first_runnable(0)
        else:
            thread = current
            wanted = self._switch.get(glob)
            if wanted != current and self._can_run(wanted, sim):
                thread = wanted
            if self.record and thread == current and len(sim.runnable) > 1:
                self.branches.append((glob, current, tuple(sorted(t for t in sim.runnable if t != current))))
        return thread, self._following(glob)

    def __repr__(self) -> str:
        forced = f", forced={self.forced!r}" if self.forced else ""
        return f"Switches({self.preemptions!r}{forced})"


def _clean(entries: Iterable[tuple[int, int]], name: str) -> list[tuple[int, int]]:
    cleaned = []
    for entry in entries:
        if (not isinstance(entry, (tuple, list)) or len(entry) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in entry)):
            raise InvalidArgument(f"each of {name} must be a (step, thread) pair of integers >= 0, got {entry!r}")
        cleaned.append((int(entry[0]), int(entry[1])))
    return sorted(cleaned, key=lambda entry: entry[0])  # stable: entries of one step keep their order


def switches_of(runs) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The preemptions and forced hand-overs of recorded runs, in global steps: what :class:`Switches` replays."""
    preemptions, forced, offset = [], [], 0
    for run in runs:
        schedule = run.schedule
        for position in range(0, len(schedule), 2):
            step, thread = schedule[position], schedule[position + 1]
            if thread < 0:
                forced.append((offset + step, -thread - 1))
            else:
                preemptions.append((offset + step, thread))
        offset += run.steps
    return preemptions, forced
