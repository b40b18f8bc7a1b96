"""The weak memory mode (``Device("sim", memory="weak")``): stores reach other threads late.

The default memory of the simulator is sequentially consistent: a store is seen by every thread
at once.  A GPU is weaker (PTX's memory model, relaxed accesses): a plain store sits in the
issuing thread's *pending stores* and reaches memory — and so other threads — later, and a plain
load may see an old value.  This module models that, GPU-like (not x86-TSO):

* **Stores.**  A plain store goes to the thread's pending stores.  At every scheduling point of
  the launch the model may *publish* one pending store of some thread (the choice of thread and of
  store, and whether to publish at all, come from the launch's seeded random source).  Pending
  stores of one thread to *different* locations may be published in any order (store buffering;
  message passing fails); to the *same* location they are published in program order.  A thread
  reads its own pending stores (read-your-writes).
* **Loads.**  Every location keeps the values published to it, in order (its coherence order).  A
  plain load returns one of them not older than what this thread last observed or wrote there
  (per-location coherence: CoRR holds), nor older than the newest value published before this
  thread's last fence.  Each thread draws per launch how eagerly its loads advance to newer
  values; one draw never advances without a fence, which is what a compiler that keeps a plain
  load in a register does: a spin on a plain load may spin forever.
* **Fences.**  ``T.threadfence()`` publishes the thread's pending stores and refreshes its view:
  its later loads see every value published before the fence.  ``syncthreads`` (and ``syncwarp``)
  does the same for the block (warp): every arriving thread publishes, and every released thread's
  view is refreshed.  A shuffle or vote publishes and refreshes nothing (it exchanges registers).
* **Atomics** act on memory directly: an atomic first publishes the thread's own pending stores to
  that one location, then reads and writes the newest value (coherence), and the thread's view of
  that location is the newest afterwards.  An atomic is not a fence for other locations.
* A launch ends with every pending store published (a kernel boundary is a full fence).

What it can show: stale reads, message passing without fences failing, store buffering
(both threads reading the old value), a lock released before the protected stores are visible
(Hovland, MSc thesis 2020, atomicFlip without ``__threadfence``), spins on plain loads that never end.

What it cannot show: load buffering (a load never reads a store that comes later in another
thread's program order that has not been issued yet — loads are performed in program order, so
the LB outcome ``r0 = r1 = 1`` is never produced), out-of-thin-air values, non-multi-copy-atomic
behaviour (a published store is visible to every thread at once; threads only differ by how
stale their views are), and scoped subtleties (a block-scope barrier publishes device-wide; a
fence refreshes a view to *everything* published so far, which is stronger than PTX's
fence-to-fence synchronisation, so some outcomes PTX allows after a fence are not reached).

Every choice comes from ``random.Random(seed)`` with the seed recorded in the launch's replay
token, so the same token replays the same run bit for bit.

>>> import random
>>> model = WeakMemory(n_threads=2, seed="doc")
>>> model.seed
'doc'
"""

from __future__ import annotations

import random
from bisect import bisect_right

__all__ = ["EAGERNESS", "PUBLISH_RATES", "WeakMemory"]

#: The chance, per scheduling point, that one pending store is published (one drawn per launch).
PUBLISH_RATES = (0.02, 0.1, 0.3, 0.8)
#: The chance that a plain load advances to a newer value it may see (one drawn per thread and
#: launch); 0.0 is a load hoisted into a register: it never advances without a fence.
EAGERNESS = (1.0, 0.5, 0.1, 0.0)


class WeakMemory:
    """The pending stores, coherence orders and views of one launch (see the module docstring)."""

    def __init__(self, n_threads: int, seed: str):
        self.seed = seed
        self.rng = random.Random(seed)
        self.publish_rate = self.rng.choice(PUBLISH_RATES)
        self._eagerness_rng = random.Random(f"{seed}:eagerness")
        self.eagerness = [-1.0] * n_threads  # drawn when the thread first loads
        self.pending: dict[int, list] = {}  # thread -> [[key, proxy, index, value], ...] in program order
        self.n_pending = 0
        self.clock = 0  # publications so far
        self.history: dict[tuple, tuple[list, list]] = {}  # key -> (publication times, values)
        self.view: dict[tuple, int] = {}  # (thread, key) -> the position it last observed
        self.fenced = [0] * n_threads  # the clock at each thread's last fence
        self.published_events: list[tuple] = []  # (step, thread, proxy, index, value) when tracing

    # -- plain accesses ----------------------------------------------------------------------
    def load(self, thread: int, proxy, index: int):
        key = (id(proxy), index)
        own = self.pending.get(thread)
        if own:
            for entry in reversed(own):
                if entry[0] == key:
                    return entry[3]
        found = self.history.get(key)
        if found is None:
            return proxy.items[index]
        times, values = found
        newest = len(values) - 1
        low = max(self.view.get((thread, key), 0), bisect_right(times, self.fenced[thread]) - 1)
        if low < newest:
            eagerness = self.eagerness[thread]
            if eagerness < 0:
                eagerness = self.eagerness[thread] = self._eagerness_rng.choice(EAGERNESS)
            if eagerness > 0.0 and self.rng.random() < eagerness:
                low = self.rng.randint(low + 1, newest)
        self.view[(thread, key)] = low
        return values[low]

    def store(self, thread: int, proxy, index: int, value, where=None) -> None:
        """A plain store joins the thread's pending stores (``where``: its ``(code, line)``, for the trace)."""
        own = self.pending.get(thread)
        if own is None:
            own = self.pending[thread] = []
        own.append([(id(proxy), index), proxy, index, value, where])
        self.n_pending += 1

    def atomic_begin(self, thread: int, proxy, index: int) -> None:
        """Before an atomic: publish this thread's pending stores to that one location."""
        own = self.pending.get(thread)
        if own:
            key = (id(proxy), index)
            for entry in [e for e in own if e[0] == key]:
                self._publish(thread, entry)

    def atomic_end(self, thread: int, proxy, index: int, old, new) -> None:
        """After an atomic: its write (if any) joins the coherence order; the thread saw the newest value."""
        key = (id(proxy), index)
        if new != old:
            self._append(key, old, new)
        found = self.history.get(key)
        if found is not None:
            self.view[(thread, key)] = len(found[1]) - 1

    # -- ordering ----------------------------------------------------------------------------
    def fence(self, thread: int) -> None:
        """Publish the thread's pending stores and refresh its view."""
        self.flush(thread)
        self.fenced[thread] = self.clock

    def flush(self, thread: int) -> None:
        own = self.pending.get(thread)
        while own:
            self._publish(thread, own[0])

    def refresh(self, thread: int) -> None:
        self.fenced[thread] = self.clock

    def flush_all(self) -> None:
        for thread in sorted(self.pending):
            self.flush(thread)

    def maybe_publish(self, sim) -> None:
        """At a scheduling point: perhaps publish one pending store (the random source decides)."""
        rng = self.rng
        if rng.random() >= self.publish_rate:
            return
        threads = [t for t, own in self.pending.items() if own]
        thread = threads[int(rng.random() * len(threads))]
        own = self.pending[thread]
        seen = set()
        heads = []
        for entry in own:  # the oldest pending store of each location may go first
            if entry[0] not in seen:
                seen.add(entry[0])
                heads.append(entry)
        entry = heads[int(rng.random() * len(heads))]
        self._publish(thread, entry)
        if sim.tracing:
            sim.record_publish(thread, entry[1], entry[2], entry[3], entry[4])

    def _publish(self, thread: int, entry: list) -> None:
        own = self.pending[thread]
        own.remove(entry)
        if not own:
            del self.pending[thread]
        self.n_pending -= 1
        key, proxy, index, value, _ = entry
        old = proxy.items[index]
        proxy.items[index] = value
        self._append(key, old, value)
        self.view[(thread, key)] = len(self.history[key][1]) - 1
        if old != value:
            proxy.sim.progress = proxy.sim.step

    def _append(self, key: tuple, old, new) -> None:
        self.clock += 1
        found = self.history.get(key)
        if found is None:
            found = self.history[key] = ([0], [old])
        found[0].append(self.clock)
        found[1].append(new)
