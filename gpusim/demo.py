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

from dataclasses import dataclass

import numpy as np

from gpusim import T, kernel
from gpusim.backends.sim import Run, TraceEvent
from gpusim.device import Device
from gpusim.errors import InvalidArgument

__all__ = ["LostUpdate", "find_lost_update", "racy_count"]


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


def find_lost_update(threads: int = 64, block: int = 32, seed: int = 0, policy: str = "random",
                     max_schedules: int = 100) -> LostUpdate:
    """Run :func:`racy_count` under seeds ``seed, seed + 1, ...`` until an update is lost."""
    for name, value in (("threads", threads), ("block", block), ("max_schedules", max_schedules)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"{name} must be a positive integer, got {name}={value!r}")
    if threads < 2:
        raise InvalidArgument(f"a lost update needs at least 2 threads, got threads={threads}")
    for attempt in range(max_schedules):
        dev = Device("sim", policy=policy, seed=seed + attempt)
        counter = dev.zeros(1, np.int32)
        run = dev.launch(racy_count, grid=-(-threads // block), block=block, args=(counter, threads))
        total = int(dev.to_host(counter)[0])
        if total < threads:
            return LostUpdate(threads, total, seed + attempt, attempt + 1, run, dev.token, _collision(run.trace))
    raise InvalidArgument(
        f"no lost update in {max_schedules} schedules of policy {policy!r} (the sequential policy never "
        f"loses one); try policy='random'"
    )


def _collision(trace: list[TraceEvent]) -> list[TraceEvent]:
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
