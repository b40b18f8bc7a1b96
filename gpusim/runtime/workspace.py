"""Work arrays a device-resident input keeps between calls: allocated by its first call, reused after.

A small call's host time is largely its device allocations (a few microseconds each through CuPy's pool or
gpusim's numba pool) and their fills.  A graph already on the device is usually called many times — a pipeline,
a benchmark — so the arrays a call uses only while it runs (Suitor's offers, the BFS levels, a reduction's
partial sums) can be the ones the last call used, as a native program keeps its buffers.  :func:`workspace`
gives a call that store; the driver asks it for each work array by name
(:meth:`Workspace.empty`) and sets, inside a timed phase, those that need a start value
(:meth:`gpusim.Device.fill`: one memset).

What is kept and what is not:

- Kept only for a device-resident input (:class:`~gpusim.types.device_graphs.DeviceBipartiteGraph`,
  :class:`~gpusim.types.device_graphs.DeviceWeightedGraph`,
  :class:`~gpusim.types.device_preferences.DevicePreferenceInstance`) on a GPU backend, in its ``derived`` store
  next to what its first call already kept there (its adopted arrays, the entries' owners), per backend,
  per algorithm and per host thread: two threads calling at once never share a work array.
- A host graph, and any graph on the simulator, gets a fresh workspace every call: the simulator's
  :meth:`~gpusim.Device.empty` arrays are poison, so a kernel reading a work array before writing it
  still fails there on every call.
- Results are never work arrays: the ``mate`` or ``partners`` a call returns is new each call.

The arrays live as long as the graph (or until ``graph.derived.clear()``): at most a few arrays of ``n``
or ``m`` items per algorithm called on it.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim")
>>> scratch = workspace(dev, None, "suitor")   # a host graph, or the simulator: kept for this call only
>>> offers = scratch.empty("offers", 4, np.int32)
>>> scratch.empty("offers", 4, np.int32) is offers, len(offers)
(True, 4)
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from gpusim.runtime.device import Device

__all__ = ["Workspace", "workspace"]


class Workspace:
    """Named device work arrays of one algorithm's calls on ``device`` (see :mod:`gpusim.runtime.workspace`): those
    in ``kept``, a dict kept between calls, or, without one, a dict of this call alone."""

    __slots__ = ("device", "kept")

    def __init__(self, device: Device, kept: dict[str, Any] | None = None):
        self.device, self.kept = device, {} if kept is None else kept

    def empty(self, name: str, n: int, dtype: Any = np.int32) -> Any:
        """The work array ``name`` of ``n`` items of ``dtype``: the one kept under that name when its length and dtype
        are the same, else a new one (:meth:`gpusim.Device.empty`), kept.  Its items are whatever the last call left
        there (poison, on the simulator, for a new one)."""
        found = self.kept.get(name)
        # ``dtype.type is`` first: the drivers pass NumPy scalar types, and comparing a dtype with one costs more
        if found is None or found.size != n or (found.dtype.type is not dtype and found.dtype != dtype):
            found = self.kept[name] = self.device.empty(n, dtype)
        return found


def workspace(device: Device, graph: Any, algorithm: str) -> Workspace:
    """The work arrays of ``algorithm``'s call on ``graph`` with ``device``: those its last call on the same
    device-resident graph, backend and host thread kept, or a fresh store kept nowhere (a host graph, the
    simulator)."""
    kept = getattr(graph, "derived", None)  # a device-resident input's store; host inputs have none
    if device.backend == "sim" or kept is None:
        return Workspace(device)
    return Workspace(device, kept.setdefault(("workspace", device.backend, algorithm, threading.get_ident()), {}))
