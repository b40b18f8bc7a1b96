"""b-Suitor's slots laid out on the device, for a graph that lives there: no O(n) copy either way.

For a host graph, :func:`~gpusim.algorithms.weighted.driver_b_suitor.b_suitor` computes each vertex's
capacity ``min(b(v), degree(v))`` and the slot offsets (their prefix sum) on the host and copies them in.
For a :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` its offsets are on the device, so these
kernels compute the same arrays there and the host reads back two numbers, the slots in all and the
widest row of the partners table:

* :func:`vertex_capacities` — ``caps[v] = min(b(v), ptr[v + 1] - ptr[v])``, and ``caps[n] = 0`` (the idle
  vertex that pads the queues);
* :func:`~gpusim.runtime.device_scan.scan_in_one_block` then gives ``slot_ptr``, the exclusive prefix sum of
  ``caps``, and ``totals = [slots, width]``;
* :func:`gpusim.runtime.launcher.count_up` — ``queue[i] = i``, the first round's queue (every vertex).

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> ptr = dev.array(np.array([0, 3, 4, 4, 6], np.int32))
>>> from gpusim.runtime.device_scan import exclusive_scan_in_one_block
>>> caps = dev.zeros(5, np.int32)
>>> _ = dev.launch(vertex_capacities, grid=1, block=32, args=(ptr, dev.zeros(1, np.int32), 2, 4, caps))
>>> slot_ptr, totals = exclusive_scan_in_one_block(dev, caps, 4)
>>> dev.to_host(caps).tolist(), dev.to_host(slot_ptr).tolist(), dev.to_host(totals).tolist()
([2, 1, 0, 2, 0], [0, 2, 3, 3, 5], [5, 2])
"""

from __future__ import annotations

from gpusim import T, kernel

__all__ = ["vertex_capacities"]


@kernel(signature="int32[:], int32[:], int32, int32, int32[:]")
def vertex_capacities(ptr, b_each, b, n, caps):
    """``caps[v] = min(b(v), degree(v))`` for ``v < n`` and ``caps[n] = 0``; ``b(v)`` is ``b``, or ``b_each[v]``
    when ``b < 0`` (a capacity per vertex)."""
    v = T.gtid()
    while v <= n:
        cap = 0
        if v < n:
            cap = ptr[v + 1] - ptr[v]
            limit = b
            if b < 0:
                limit = b_each[v]
            cap = min(cap, limit)
        caps[v] = cap
        v += T.num_threads()
