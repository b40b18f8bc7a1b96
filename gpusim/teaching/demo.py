"""The lost update: the smallest race, found, explained and replayed (``gpusim demo``).

Every thread of :func:`racy_count` adds one to ``counter[0]`` with a plain load and a plain
store.  Under an interleaving where two threads load the same value before either stores, one
increment is lost.  :func:`find_lost_update` runs the kernel under seeded random schedules until
the total comes out short, then picks from the trace the two threads whose updates collided.

Example
-------
>>> result = find_lost_update(threads=8, seed=0)
>>> result.counter < result.threads
True
>>> a, b = result.collision[:2]
>>> a.op, b.op, a.value == b.value
('load', 'load', True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gpusim import T, kernel
from gpusim.backends.sim import Run, TraceEvent
from gpusim.backends.sim.scheduler import Limits
from gpusim.errors import InvalidArgument
from gpusim.runtime.device import Device, check_block
from gpusim.types.arguments import check_positive_int

__all__ = ["LostUpdate", "check_demo_sizes", "find_lost_update", "racy_count"]


@kernel(signature="int32[:], int32")
def racy_count(counter, n):
    """Each of the first ``n`` threads increments ``counter[0]`` with a plain load and store."""
    i = T.gtid()
    if i < n:
        counter[0] = counter[0] + 1  # a racy read-modify-write


@dataclass
class LostUpdate:
    """A run of :func:`racy_count` that lost updates, and the collision that shows why."""

    threads: int
    counter: int
    seed: int
    schedules_tried: int
    run: Run
    token: str
    collision: list[TraceEvent]  # load A, load B (same value), then both stores


def check_demo_sizes(threads: int, block: int) -> None:
    """Refuse ``threads`` and ``block`` that :func:`racy_count` cannot run with: not positive, fewer than two
    threads, a block beyond the device's limit, or more scheduling points (two per thread) than one
    simulator launch may take (``Limits.max_steps``).

    >>> check_demo_sizes(100_000_000, 32)
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: threads=100000000 needs 200000000 scheduling points, more than ...
    """
    threads, block = check_positive_int("threads", threads), check_block(block)
    if threads < 2:
        raise InvalidArgument(f"a lost update needs at least 2 threads, got threads={threads}")
    if 2 * threads > Limits.max_steps:
        raise InvalidArgument(f"threads={threads} needs {2 * threads} scheduling points, more than one simulator "
                              f"launch may take (max_steps={Limits.max_steps})")


def find_lost_update(threads: int = 64, block: int = 32, seed: int = 0, policy: str = "random",
                     max_schedules: int = 100, progress: Callable[[int, bool], None] | None = None) -> LostUpdate:
    """Run :func:`racy_count` under seeds ``seed, seed + 1, ...`` until an update is lost.

    ``progress`` is the simulator's progress hook (see ``Device("sim", progress=...)``).
    """
    check_demo_sizes(threads, block)
    if isinstance(max_schedules, bool) or not isinstance(max_schedules, int) or max_schedules < 1:
        raise InvalidArgument(f"max_schedules must be a positive integer, got max_schedules={max_schedules!r}")
    for attempt in range(max_schedules):
        dev = Device("sim", policy=policy, seed=seed + attempt, progress=progress)
        counter = dev.zeros(1, np.int32)
        run = dev.launch(racy_count, grid=-(-threads // block), block=block, args=(counter, threads))
        total = int(dev.to_host(counter)[0])
        if total < threads:
            return LostUpdate(threads, total, seed + attempt, attempt + 1, run, dev.token, collision(run.trace))
    raise InvalidArgument(
        f"no lost update in {max_schedules} schedules of policy {policy!r} (the sequential policy never "
        f"loses one); try policy='random'"
    )


def collision(trace: list[TraceEvent]) -> list[TraceEvent]:
    """Two loads of the same value by different threads, each followed by that thread's store."""
    loads_by_value: dict[object, TraceEvent] = {}
    for event in trace:
        who = (event.block, event.thread)
        if event.op == "load":
            other = loads_by_value.get(event.value)
            if other is not None and (other.block, other.thread) != who:
                stores = [e for e in trace if e.op == "store" and e.step > event.step
                          and (e.block, e.thread) in {who, (other.block, other.thread)}]
                return [other, event, *stores[:2]]
            loads_by_value[event.value] = event
    return []
