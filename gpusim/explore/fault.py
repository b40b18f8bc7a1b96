"""The events of the fault a failure names: what the checker's and the explorer's "interleaving that matters" shows.

A failure names its fault in its kind and message; :func:`fault_events` picks from the trace the events of
*that* fault, not merely accesses that look suspicious:

* a data race: the two racing accesses (the second one, at which the simulator stopped, rebuilt from the
  report, since it never ran);
* a barrier not every thread reached (``BarrierDivergence``): the threads waiting at that barrier, and the
  last event of each thread that left without reaching it;
* a wrong result on weak memory: the stale load and the store it missed (:func:`stale_read`), which
  :func:`weak_memory_sentence` explains in one sentence.

Anything else returns ``None`` and the caller keeps its own choice (:func:`gpusim.explore.report.interleaving`).

>>> from gpusim.backends.sim import TraceEvent
>>> store = TraceEvent(0, 0, 0, "store", "data", 0, 42, "k.py:6")
>>> load = TraceEvent(5, 0, 1, "load", "data", 0, 0, "k.py:13")
>>> stale_read([store, load]) == (store, load)
True
>>> print(weak_memory_sentence(store, load))                    # doctest: +NORMALIZE_WHITESPACE
Thread (0,1) loaded data[0] = 0 at step 5 (k.py:13), but thread (0,0) had stored 42 there at step 0 (k.py:6):
the store was not yet visible to the reader. The reader needs a fence (T.threadfence() after it sees the
flag) or an atomic load (T.atomic_load) to be sure to see it.
"""

from __future__ import annotations

import re

from gpusim.backends.sim import TraceEvent

__all__ = ["barrier_events", "fault_events", "fault_note", "race_events", "stale_read", "weak_memory_sentence"]

_RACE = re.compile(r"hazard on \w+ (?P<array>\w+)\[(?P<index>-?\d+)\]: (?P<op2>\w+) by thread \(block (?P<b2>\d+), "
                   r"thread (?P<t2>\d+)\) at (?P<at2>.+?) after unordered (?P<op1>\w+) by thread \(block (?P<b1>\d+), "
                   r"thread (?P<t1>\d+)\) at (?P<at1>[^\n]+)")
_SITE = re.compile(r"syncthreads at (\S+?\.py:\d+)")
_THREAD = re.compile(r"thread \(block (\d+), thread (\d+)\)")


def race_events(trace: list[TraceEvent], message: str) -> list[TraceEvent] | None:
    """The two racing accesses named in ``message`` (a ``RaceReport`` as text): the earlier one from the trace,
    the later one rebuilt (the simulator stopped before it ran, so the trace does not hold it)."""
    found = _RACE.search(message)
    if found is None:
        return None
    array, index = found["array"], int(found["index"])
    b1, t1, b2, t2 = (int(found[name]) for name in ("b1", "t1", "b2", "t2"))
    step = trace[-1].step + 1 if trace else 0
    second = TraceEvent(step, b2, t2, found["op2"], array, index, None, found["at2"])
    if trace and trace[-1][:7] == second[:7]:
        second = trace[-1]
    earlier = [e for e in trace if (e.block, e.thread, e.array, e.index) == (b1, t1, array, index)
               and e.op == found["op1"] and e is not second]
    return [*earlier[-1:], second]


def barrier_events(trace: list[TraceEvent], message: str) -> list[TraceEvent] | None:
    """The barrier ``message`` names, as the threads that wait there (each one's last arrival), and the last
    event of each thread it says finished without reaching it: the thread that left."""
    sites = set(_SITE.findall(message))
    if not sites:
        return None
    left, waiting = set(), set()
    for line in message.splitlines():
        for block, thread in _THREAD.findall(line):
            who = (int(block), int(thread))
            (left if re.search(rf"\(block {block}, thread {thread}\) finished", line) else waiting).add(who)
    waiting -= left
    arrivals = {(e.block, e.thread): e for e in trace
                if e.op == "syncthreads" and e.location in sites and (e.block, e.thread) in waiting}
    last = {}
    for event in trace:
        if (event.block, event.thread) in left:
            last[(event.block, event.thread)] = event
    chosen = sorted([*arrivals.values(), *last.values()], key=lambda e: e.step)
    return chosen or None


def stale_read(trace: list[TraceEvent]) -> tuple[TraceEvent, TraceEvent] | None:
    """The first load that read an older value than the last store another thread made to its cell before it
    (weak memory: the store was not yet visible to the reader), as ``(store, load)``; ``None`` if none."""
    last_store: dict[tuple[str, int], TraceEvent] = {}
    for event in trace:
        key = (event.array, event.index)
        if event.op == "store":
            last_store[key] = event
        elif event.op in ("load", "atomic_load") and key in last_store and event.value is not None:
            store = last_store[key]
            if (store.block, store.thread) != (event.block, event.thread) and _differs(store.value, event.value):
                return store, event
    return None


def _differs(stored: object, loaded: object) -> bool:
    try:
        return bool(stored != loaded)
    except (TypeError, ValueError):
        return str(stored) != str(loaded)


def weak_memory_sentence(store: TraceEvent, load: TraceEvent) -> str:
    """One sentence: the load missed the store because it was not yet visible; what the reader needs."""
    return (f"Thread ({load.block},{load.thread}) loaded {load.array}[{load.index}] = {load.value} at step "
            f"{load.step} ({load.location}), but thread ({store.block},{store.thread}) had stored {store.value} "
            f"there at step {store.step} ({store.location}): the store was not yet visible to the reader. The "
            f"reader needs a fence (T.threadfence() after it sees the flag) or an atomic load (T.atomic_load) "
            f"to be sure to see it.")


def fault_events(trace: list[TraceEvent], kind: str | None, message: str) -> list[TraceEvent] | None:
    """The events of the fault that ``kind`` and ``message`` name (module docstring), or ``None`` when the
    fault is none of those this module knows (the caller then chooses)."""
    if kind == "DataRace" or "hazard on " in message:
        return race_events(trace, message)
    if kind == "BarrierDivergence":
        return barrier_events(trace, message)
    if kind == "invariant" and any(e.op == "publish" for e in trace):
        pair = stale_read(trace)
        return list(pair) if pair else None
    return None


def fault_note(trace: list[TraceEvent], kind: str | None, message: str) -> str | None:
    """The sentence that explains a weak-memory failure (:func:`weak_memory_sentence`), when it is one."""
    if kind != "invariant" or not any(e.op == "publish" for e in trace):
        return None
    pair = stale_read(trace)
    return weak_memory_sentence(*pair) if pair else None
