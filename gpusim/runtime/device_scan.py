"""An exclusive prefix sum on the device by one block, with no read back: CSR offsets from counts.

Checks and drivers that lay out per-vertex segments on the device (the women's lists of a device preference
instance, b-Suitor's slots of a device graph) need ``out[i] = values[0] + ... + values[i - 1]`` without
copying the counts to the host.  :func:`scan_in_one_block` does it in one launch of one block, pass after
pass over the values, and also leaves the total and the largest value in ``totals``;
:func:`exclusive_scan_in_one_block` launches it.  (Louvain's contraction scans far longer arrays and has its
own tiled scan, :mod:`gpusim.algorithms.louvain.kernels_scan`.)

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> out, totals = exclusive_scan_in_one_block(dev, dev.array(np.array([2, 0, 3, 1], np.int32)), 4)
>>> dev.to_host(out).tolist(), dev.to_host(totals).tolist()
([0, 2, 2, 5, 6], [6, 3])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.language import interface as T
from gpusim.language.kernels import kernel
from gpusim.language.reductions import warp_scan_sum
from gpusim.runtime.device import Device

__all__ = ["SCAN_BLOCK", "SCAN_ITEMS", "exclusive_scan_in_one_block", "scan_in_one_block"]

#: Consecutive values each thread of :func:`scan_in_one_block` adds per pass.
SCAN_ITEMS = 8
#: Threads of the one block, per backend.
SCAN_BLOCK = {"sim": 64, "numba": 1024, "cupy": 1024}


@kernel(signature="int32[:], int32[:], int32[:], int32")
def scan_in_one_block(values, out, totals, n):
    """One block: ``out[i] = values[0] + ... + values[i - 1]`` for ``i <= n``, then ``totals[0]`` the sum and
    ``totals[1]`` the largest of ``values[:n]``.  Each pass the block scans :data:`SCAN_ITEMS` values a thread
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
                mine += values[first + q]
                widest = max(widest, values[first + q])
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
                out[first + q] = running
                if first + q < n:
                    running += values[first + q]
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


def exclusive_scan_in_one_block(dev: Device, values: Any, n: int, launch: Any = None) -> tuple[Any, Any]:
    """``(out, totals)`` on the device: ``out`` (``n + 1`` int32) the exclusive prefix sum of ``values[:n]``,
    ``totals`` = ``[sum, largest]``; nothing read back.  ``launch`` (a :class:`~gpusim.runtime.launcher.Launcher`)
    counts the launch when given."""
    out, totals = dev.zeros(n + 1, np.int32), dev.zeros(2, np.int32)
    args = (values, out, totals, n)
    if launch is None:
        dev.launch(scan_in_one_block, 1, SCAN_BLOCK[dev.backend], args)
    else:
        launch(scan_in_one_block, 1, SCAN_BLOCK[dev.backend], *args)
    return out, totals
