"""b-Suitor's slots laid out on the device, for a graph that lives there (issue 18): no O(n) copy either way.

For a host graph, :func:`~gpusim.algorithms.weighted.driver_b_suitor.b_suitor` computes each vertex's
capacity ``min(b(v), degree(v))`` and the slot offsets (their prefix sum) on the host and copies them in.
For a :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` its offsets are on the device, so these
kernels compute the same arrays there and the host reads back two numbers, the slots in all and the
widest row of the partners table:

* :func:`vertex_capacities` — ``caps[v] = min(b(v), ptr[v + 1] - ptr[v])``, and ``caps[n] = 0`` (the idle
  vertex that pads the queues);
* :func:`scan_slots` — one block: ``slot_ptr`` the exclusive prefix sum of ``caps``, ``totals = [slots, width]``;
* :func:`count_up` — ``queue[i] = i``, the first round's queue (every vertex).

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> ptr = dev.array(np.array([0, 3, 4, 4, 6], np.int32))
>>> caps, slot_ptr, totals = dev.zeros(5, np.int32), dev.zeros(5, np.int32), dev.zeros(2, np.int32)
>>> _ = dev.launch(vertex_capacities, grid=1, block=32, args=(ptr, dev.zeros(1, np.int32), 2, 4, caps))
>>> _ = dev.launch(scan_slots, grid=1, block=64, args=(caps, slot_ptr, totals, 4))
>>> dev.to_host(caps).tolist(), dev.to_host(slot_ptr).tolist(), dev.to_host(totals).tolist()
([2, 1, 0, 2, 0], [0, 2, 3, 3, 5], [5, 2])
"""

from __future__ import annotations

from gpusim import T, kernel
from gpusim.language.reductions import warp_scan_sum

__all__ = ["SCAN_ITEMS", "count_up", "scan_slots", "vertex_capacities"]

#: Consecutive values each thread of :func:`scan_slots` adds per pass.
SCAN_ITEMS = 8


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


@kernel(signature="int32[:], int32[:], int32[:], int32")
def scan_slots(caps, slot_ptr, totals, n):
    """One block: ``slot_ptr[v] = caps[0] + ... + caps[v - 1]`` for ``v <= n``, then ``totals[0]`` the sum and
    ``totals[1]`` the largest of ``caps[:n]``.  Each pass the block scans :data:`SCAN_ITEMS` values a thread
    (a warp scan, then the warps' totals in shared memory) and carries the pass's total to the next."""
    warp_sums = T.shared_array(32, T.i32)
    carry = 0
    widest = 0
    start = 0
    while start <= n:
        first = start + T.thread_id() * SCAN_ITEMS
        mine = 0
        for q in range(SCAN_ITEMS):
            if first + q < n:
                mine += caps[first + q]
                widest = max(widest, caps[first + q])
        inclusive = warp_scan_sum(mine)
        if T.lane_id() == 31:
            warp_sums[T.warp_id()] = inclusive
        T.syncthreads()
        running = carry + inclusive - mine
        for q in range(T.block_size() // 32):
            if q < T.warp_id():
                running += warp_sums[q]
            carry += warp_sums[q]
        for q in range(SCAN_ITEMS):
            if first + q <= n:
                slot_ptr[first + q] = running
                if first + q < n:
                    running += caps[first + q]
        T.syncthreads()
        start += T.block_size() * SCAN_ITEMS
    widest = T.reduce_max(widest)
    if T.lane_id() == 0:
        warp_sums[T.warp_id()] = widest
    T.syncthreads()
    if T.thread_id() == 0:
        for q in range(T.block_size() // 32):
            widest = max(widest, warp_sums[q])
        totals[0] = carry
        totals[1] = widest


@kernel(signature="int32[:], int32")
def count_up(values, n):
    """``values[i] = i`` for every ``i < n``."""
    i = T.gtid()
    while i < n:
        values[i] = i
        i += T.num_threads()
