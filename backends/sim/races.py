"""The happens-before data-race detector (``Device("sim", races="report" | "raise")``).

Every thread carries a vector clock.  Two accesses to one element of a global or shared array
*race* when neither happens before the other and at least one is a plain write; the report
names the hazard as compute-sanitizer's racecheck does: RAW (a read after an unordered write),
WAR (a write after an unordered read), WAW (two unordered writes).

What orders accesses (happens-before edges), and what is assumed:

* program order within a thread;
* ``syncthreads``: everything a thread of the block did before the barrier happens before
  everything any thread of the block does after it; ``syncwarp`` does the same for the warp's
  lanes.  The other warp collectives (shuffles, votes, reductions) exchange values but order no
  memory with independent warps (the default, Volta and later: CUDA promises ordering among a
  warp's lanes only at ``__syncwarp``), so lanes that write, shuffle, then read each other's
  writes race.  With lockstep warps (``warps="lockstep"``, before Volta) the lanes run each
  instruction together, and there every collective orders them as ``syncwarp`` does;
* atomics are *acquire-release on their location*: an atomic on ``a[i]`` happens after every
  earlier atomic on ``a[i]`` (in the order they ran), and everything before it in its thread
  happens before everything after any later atomic on ``a[i]``.  This is what the papers'
  kernels assume of a lock taken with ``atomic_cas`` and released with ``atomic_exch`` (CUDA's
  atomics are relaxed; those kernels pair them with ``__threadfence``, which the weak memory mode
  checks separately).  Atomics never race with each other; an atomic and a plain write race;
* ``threadfence`` is treated as a sequentially consistent fence: a fence happens after every
  earlier fence of any thread.  This can hide a race that needs the flag actually read (a
  detector that never reports a false race was preferred);
* a kernel launch boundary orders everything (each launch starts with fresh clocks).

Races a kernel intends (the papers' kernels race on purpose and repair afterwards) are marked
per array: ``@kernel(..., intended_races={"visited": "why"})`` names kernel parameters or shared
arrays whose accesses are not checked.  ``{"visited": within(step, why="...")}``
(:func:`gpusim.language.kernels.within`) is finer: the array is checked, and a race on it is not
reported only when both accesses were made inside ``step`` (the ``@device`` function, at any depth
of calls below it; the frames of the calling thread say so).  A kernel that runs several steps
between barriers, each racing by design, so still has a race between two steps reported: the
barrier between them missing.

>>> report = RaceReport("RAW", "global", "counter", 0, ((0, 1), "store", "k.py:5"), ((0, 2), "load", "k.py:5"))
>>> print(report)
RAW hazard on global counter[0]: load by thread (block 0, thread 2) at k.py:5 after unordered store by thread \
(block 0, thread 1) at k.py:5
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["RACE_MODES", "RaceDetector", "RaceReport", "explain_race", "phase_bits"]

#: The values of ``races=``.
RACE_MODES = ("off", "report", "raise")


class RaceReport(NamedTuple):
    """One data race: ``kind`` (RAW/WAR/WAW), the element, and both accesses.

    Each access is ``((block, thread), operation, "file.py:line")``; ``first`` is the earlier one.
    """

    kind: str
    memory: str  # "global" or "shared"
    array: str
    index: int
    first: tuple
    second: tuple

    def __str__(self) -> str:
        (b1, t1), op1, at1 = self.first
        (b2, t2), op2, at2 = self.second
        return (f"{self.kind} hazard on {self.memory} {self.array}[{self.index}]: {op2} by thread (block {b2}, "
                f"thread {t2}) at {at2} after unordered {op1} by thread (block {b1}, thread {t1}) at {at1}")

    def explain(self) -> str:
        """What each side is and the fix that applies, in plain words (:func:`explain_race`)."""
        return explain_race(self)


def _side(op: str) -> str:
    """An access as the explanation names it: ``a plain load``, ``an atomic_cas``, ..."""
    return f"an {op}" if op.startswith("atomic") else f"a plain {op}"


def explain_race(report: RaceReport) -> str:
    """The race in plain words: what each of the two accesses is (a plain load, an ``atomic_cas``, ...), why
    nothing orders them, and the fix that applies to that pair.

    >>> mixed = RaceReport("RAW", "global", "best", 0, ((0, 0), "atomic_cas", "k.py:7"), ((0, 1), "load", "k.py:6"))
    >>> print(explain_race(mixed))                 # doctest: +NORMALIZE_WHITESPACE
    The two sides: a plain load of best[0] by thread (0,1) at k.py:6, and an atomic_cas of it by thread (0,0)
    at k.py:7. An atomic orders only the atomics on its cell; the plain load is not one, so it may read the
    cell before, during or after the atomic_cas. Fix: read it with T.atomic_load(best, 0) (and retry the
    atomic_cas with the value it returns).
    """
    (b1, t1), op1, at1 = report.first
    (b2, t2), op2, at2 = report.second
    cell = f"{report.array}[{report.index}]"
    text = (f"The two sides: {_side(op2)} of {cell} by thread ({b2},{t2}) at {at2}, and {_side(op1)} of it by "
            f"thread ({b1},{t1}) at {at1}.")
    atomic = [op for op in (op1, op2) if op.startswith("atomic")]
    plain = [op for op in (op1, op2) if not op.startswith("atomic")]
    if atomic:
        other = plain[0]
        text += (f" An atomic orders only the atomics on its cell; the plain {other} is not one, so it may "
                 f"{'read' if other == 'load' else 'write'} the cell before, during or after the {atomic[0]}.")
        if other == "load":
            return text + (f" Fix: read it with T.atomic_load({report.array}, {report.index}) (and retry the "
                           f"{atomic[0]} with the value it returns).")
        return text + (f" Fix: make the store atomic too (T.atomic_exch({report.array}, {report.index}, value), "
                       f"or T.atomic_cas when it depends on what was there).")
    same_block = b1 == b2
    text += " Neither is atomic, and no barrier or fence orders them: on a GPU they can happen in either order."
    if "load" in (op1, op2):
        if same_block:
            return text + (" Fix: a barrier (T.syncthreads()) between them when one thread must see the other's "
                           "value; when many threads update the cell (a load, then a store), one atomic instead "
                           f"(T.atomic_add({report.array}, {report.index}, 1)).")
        return text + (" Fix: threads of different blocks meet at no barrier: make the update one atomic "
                       f"(T.atomic_add({report.array}, {report.index}, 1), T.atomic_cas), or publish the value "
                       "with T.threadfence() and an atomic flag that the reader reads with T.atomic_load.")
    return text + (" Fix: let one thread write the cell, or make the writes atomic "
                   f"(T.atomic_exch, T.atomic_max, ...){', or order them with T.syncthreads()' if same_block else ''}.")


class RaceDetector:
    """Vector clocks of one launch, and the races found (deduplicated per array, lines and kind)."""

    def __init__(self, n_threads: int, block: int, intended=frozenset(), kernel_name: str = ""):
        """``intended``: array name -> ``None`` (races intended anywhere: not checked) or the names of the steps
        within which they are (:func:`~gpusim.language.kernels.race_scopes`); a set of names means anywhere.
        ``kernel_name``: where the walk up a thread's frames for its steps stops."""
        self.n = n_threads
        self.block = block
        scopes = intended if isinstance(intended, dict) else dict.fromkeys(intended)
        self.intended = frozenset(array for array, phases in scopes.items() if phases is None)
        self.phase_bits = phase_bits(scopes)
        # array -> bit mask of the steps within which its races are intended (arrays checked, with exceptions)
        self.within = {array: sum(self.phase_bits[name] for name in phases)
                       for array, phases in scopes.items() if phases}
        self.kernel_name = kernel_name
        self.clocks = [None] * n_threads  # created lazily: [0] * n with own entry 1
        self.atomic_clocks: dict[tuple, list] = {}
        self.fence_clock = [0] * n_threads
        # key -> [write (thread, epoch, op, code, line) or None, {reader: (epoch, op, code, line)}]
        self.shadow: dict[tuple, list] = {}
        self.races: list[RaceReport] = []
        self._seen: set = set()

    def _clock(self, thread: int) -> list:
        clock = self.clocks[thread]
        if clock is None:
            clock = self.clocks[thread] = [0] * self.n
            clock[thread] = 1
        return clock

    # -- accesses ------------------------------------------------------------------------------
    def checks(self, proxy) -> bool:
        return proxy.name not in self.intended

    def _steps(self, frame) -> int:
        """The bit mask of the declared steps (:func:`~gpusim.language.kernels.within`) the access at ``frame`` is
        made inside: the functions on the thread's frames up to the kernel's."""
        bits, kernel, mask = self.phase_bits, self.kernel_name, 0
        while frame is not None:
            name = frame.f_code.co_name
            if name == kernel:
                break
            mask |= bits.get(name, 0)
            frame = frame.f_back
        return mask

    def access(self, thread: int, proxy, index: int, op: str, is_write: bool, frame) -> RaceReport | None:
        """Record a plain access (or an atomic, ``op`` starting with ``atomic``); return a new race, if any.

        On an array whose races are intended within some steps, a race is not reported when both accesses were
        made inside one of them (the masks of both sides share one of the array's bits)."""
        clock = self._clock(thread)
        key = (id(proxy), index)
        cell = self.shadow.get(key)
        if cell is None:
            cell = self.shadow[key] = [None, {}, proxy]
        found = None
        atomic = op.startswith("atomic")
        allowed = self.within.get(proxy.name, 0)
        steps = self._steps(frame) & allowed if allowed else 0
        write = cell[0]
        if write is not None and write[0] != thread and write[1] > clock[write[0]] and not (atomic and write[5]) \
                and not steps & write[6]:
            if is_write:
                found = self._report("WAW", proxy, index, write, thread, op, frame)
            else:
                found = self._report("RAW", proxy, index, write, thread, op, frame)
        if is_write:
            for reader, (epoch, rop, code, line, ratomic, rsteps) in cell[1].items():
                if reader != thread and epoch > clock[reader] and not (atomic and ratomic) and not steps & rsteps:
                    found = found or self._report("WAR", proxy, index, (reader, epoch, rop, code, line), thread,
                                                  op, frame)
                    break
            cell[0] = (thread, clock[thread], op, frame.f_code, frame.f_lineno, atomic, steps)
            cell[1] = {}
        else:
            cell[1][thread] = (clock[thread], op, frame.f_code, frame.f_lineno, atomic, steps)
        return found

    def _report(self, kind: str, proxy, index: int, earlier: tuple, thread: int, op: str, frame):
        first_at = _where(earlier[3], earlier[4])
        second_at = _where(frame.f_code, frame.f_lineno)
        dedupe = (proxy.name, first_at, second_at, kind)
        if dedupe in self._seen:
            return None
        self._seen.add(dedupe)
        report = RaceReport(kind, proxy.kind, proxy.name, index, (divmod(earlier[0], self.block), earlier[2], first_at),
                            (divmod(thread, self.block), op, second_at))
        self.races.append(report)
        return report

    # -- synchronisation -------------------------------------------------------------------------
    def atomic(self, thread: int, proxy, index: int) -> None:
        """Acquire then release on the atomic's location."""
        clock = self._clock(thread)
        key = (id(proxy), index)
        sync = self.atomic_clocks.get(key)
        if sync is None:
            self.atomic_clocks[key] = list(clock)
        else:
            _join(clock, sync)
            sync[:] = clock
        clock[thread] += 1

    def fence(self, thread: int) -> None:
        clock = self._clock(thread)
        _join(clock, self.fence_clock)
        self.fence_clock[:] = clock
        clock[thread] += 1

    def barrier(self, members) -> None:
        """Every member's past happens before every member's future (a released barrier)."""
        members = list(members)
        joined = [0] * self.n
        for thread in members:
            _join(joined, self._clock(thread))
        for thread in members:
            clock = self.clocks[thread]
            clock[:] = joined
            clock[thread] += 1


def phase_bits(scopes: dict) -> dict[str, int]:
    """One bit for each step named in ``scopes`` (array -> ``None`` or step names), in sorted order: the race
    detectors' (this one's and the compiled engine's) numbering of the steps.

    >>> phase_bits({"a": ("expand", "alternate"), "b": None, "c": ("expand",)})
    {'alternate': 1, 'expand': 2}
    """
    names = sorted({name for phases in scopes.values() if phases for name in phases})
    if len(names) > 62:
        raise ValueError(f"at most 62 steps may be named in within() declarations of one kernel, got {len(names)}")
    return {name: 1 << k for k, name in enumerate(names)}


def _join(into: list, other: list) -> None:
    for i, value in enumerate(other):
        if value > into[i]:
            into[i] = value


def _where(code, line: int) -> str:
    return f"{code.co_filename.rsplit('/', 1)[-1]}:{line}"
