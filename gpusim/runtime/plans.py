"""A call's plan — what it works out before its first launch — kept by a device-resident input for its next call.

Before its first launch a call checks its options, chooses its device, adopts the graph and looks up its work
arrays (:mod:`gpusim.runtime.workspace`).  That is O(1) host work, but it is Python: 10 to 16 us on the H200's host,
which a small input feels against device phases of 0.1 to 0.2 ms.  A graph already on the device is
usually called many times with the same options — a pipeline's loop, a benchmark — so the work can be done once, as
a native program sets up once and launches many times (or as a cuFFT plan is made once and executed many times).

A driver splits itself in two: ``plan()`` does all of that and returns ``(launch, run)``, the
:class:`~gpusim.runtime.launcher.Launcher` it made and ``run(launch)``, a function of the rest: the launches and the
result.  :func:`kept_plan` keeps ``run`` on the graph and gives it back to the next call whose options are the
same — equal *and* of the same types, so ``True`` never passes for ``1`` nor ``16.0`` for ``16``: a kept plan's
options were checked by the call that made it.  The drivers that keep their plan are those whose calls can be the
shortest: G-PR, APFB and APsB (:mod:`gpusim.algorithms.bipartite.gpu_push_relabel`,
:mod:`gpusim.algorithms.bipartite.augmenting`) and Suitor (:mod:`gpusim.algorithms.weighted.driver_suitor`).

What is kept, and what is not:

- Only where the work arrays are kept: a device-resident input on a GPU backend (its ``derived`` store), per
  algorithm and host thread, one plan at a time (a call with other options makes and keeps its own).  A host
  input, and any input on the simulator, is planned every call.
- Only options that are plain values (strings, numbers, booleans, ``None``, a :class:`~gpusim.Device`, or tuples
  of them); a call with ``kernels=`` or any other object is planned every call.
- ``run`` must not keep anything of one call for the next but the work arrays: every result array is made by
  ``run``, every count by its own launcher.

Example
-------
>>> from gpusim import Device
>>> from gpusim.runtime.launcher import Launcher
>>> class Input:                                  # a device-resident input's ``derived`` store
...     derived = {}
>>> made = []
>>> def plan(dev):
...     made.append(dev.backend)
...     return Launcher(dev), lambda launch: f"ran on {launch.device.backend}"
>>> gpu = Device("sim"); gpu.backend = "cupy"    # (a stand-in for a GPU device)
>>> for _ in range(3):
...     launch, run = kept_plan(Input, "demo", (gpu, "warp", 4), lambda: plan(gpu))
>>> run(launch), made                             # planned once, run three times
('ran on cupy', ['cupy'])
>>> _ = kept_plan(Input, "demo", (gpu, "warp", 4.0), lambda: plan(gpu)); made  # 4.0 is not 4: planned again
['cupy', 'cupy']
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from gpusim.runtime.device import Device
from gpusim.runtime.launcher import Launcher

__all__ = ["kept_plan"]

#: The types of the options a kept plan may be looked up by: values compared by ``==`` that never change.
_PLAIN = frozenset((str, int, float, bool, type(None), Device))
_PLAIN_OR_TUPLE = _PLAIN | {tuple}


def kept_plan(graph: Any, algorithm: str, options: tuple, plan: Callable[[], tuple[Launcher, Callable]]
              ) -> tuple[Launcher, Callable]:
    """``(launch, run)`` for a call of ``algorithm`` on ``graph`` with ``options``: ``plan()``'s, made now and kept
    on a device-resident ``graph`` on a GPU backend, or, when the last call kept one for the same options, that
    ``run`` with a new launcher (:meth:`~gpusim.runtime.launcher.Launcher.fresh`).  See
    :mod:`gpusim.runtime.plans`."""
    store = getattr(graph, "derived", None)  # a device-resident input's store; host inputs have none
    key = None if store is None else _key(options)
    if key is None:
        return plan()
    slot = ("plan", algorithm, threading.get_ident())
    kept = store.get(slot)
    if kept is not None and kept[0] == key:
        return kept[1].fresh(), kept[2]
    launch, run = plan()
    if launch.device.backend != "sim":  # the simulator's work arrays are new (poison) every call
        store[slot] = (key, launch, run)
    return launch, run


def _key(options: tuple) -> tuple | None:
    """``options`` with the type of each, as a kept plan is looked up by; None when one is not a plain value or a
    tuple of them (G-PR's ``relabel=("adaptive", 0.7)``: its items' types count too)."""
    types = tuple(map(type, options))
    if _PLAIN.issuperset(types):  # the common case, in one pass of C
        return types, options
    if not _PLAIN_OR_TUPLE.issuperset(types):
        return None
    items = tuple(_key(value) if kind is tuple else (kind, value)
                  for kind, value in zip(types, options, strict=True))
    return None if None in items else (tuple, items)
