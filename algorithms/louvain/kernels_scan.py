"""Exclusive prefix sums on the device, the ``prefixSum`` of Naim et al. (IPDPS 2017), Algorithm 3 (lines 12, 14, 16).

The paper calls Thrust; here it is written in ``T``: each 128-thread block scans tiles of :data:`TILE`
values (eight a thread, then a warp scan by ``shfl_up`` and the warps' totals in shared memory),
writes each tile's total, and the host scans the tile totals the same way and adds them back
(:func:`exclusive_scan`).  ``out`` has ``n + 1`` entries: ``out[n]`` is the total.

>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> out, total = exclusive_scan(dev, dev.array(np.array([3, 0, 2, 5], np.int32)), 4)
>>> dev.to_host(out).tolist(), total
([0, 3, 3, 5, 10], 10)
"""

from __future__ import annotations

import numpy as np

from gpusim import T, kernel
from gpusim.language.reductions import warp_scan_sum

__all__ = ["TILE", "add_tile_offsets", "exclusive_scan", "read_entry", "scan_tiles"]

#: Values one block scans at a time: 128 threads x 8.
TILE = 1024


@kernel(signature="int32[:], int32[:], int32[:], int32")
def scan_tiles(values, out, tile_sums, n):
    """``out[i]`` = the sum of ``values`` before ``i`` within its tile, for ``i <= n`` (``values[n]`` reads as 0);
    ``tile_sums[t]`` = tile ``t``'s total.  128 threads a block, eight consecutive values a thread."""
    warp_sums = T.shared_array(4, T.i32)
    tile = T.block_id()
    while tile * TILE <= n:
        start = tile * TILE + T.thread_id() * 8
        mine = 0
        for q in range(8):
            if start + q < n:
                mine += values[start + q]
        inclusive = warp_scan_sum(mine)
        if T.lane_id() == 31:
            warp_sums[T.warp_id()] = inclusive
        T.syncthreads()
        running = inclusive - mine
        for q in range(T.warp_id()):
            running += warp_sums[q]
        for q in range(8):
            if start + q <= n:
                out[start + q] = running
                if start + q < n:
                    running += values[start + q]
        if T.thread_id() == T.block_size() - 1:
            tile_sums[tile] = running
        T.syncthreads()
        tile += T.grid_size()


@kernel(signature="int32[:], int32[:], int32")
def add_tile_offsets(out, tile_prefix, n):
    """``out[i] += tile_prefix[i // TILE]``: the tiles' own prefix sums, added back (``i <= n``)."""
    i = T.gtid()
    while i <= n:
        out[i] += tile_prefix[i // TILE]
        i += T.num_threads()


@kernel(signature="int32[:], int32, int32[:]")
def read_entry(values, index, target):
    """``target[0] = values[index]``: one number for the host to read back."""
    if T.gtid() == 0:
        target[0] = values[index]


def exclusive_scan(dev, values, n: int, launch=None, total: bool = True) -> tuple[object, int | None]:
    """``(out, total)``: the exclusive prefix sum of ``values[:n]`` in a new device array of ``n + 1`` int32, and
    ``out[n]`` read back, or ``None`` with ``total=False`` (no wait for the device: the tile totals' own scan, and
    the offsets whose total the caller knows)."""
    run = launch if launch is not None else (lambda k, grid, block, *args: dev.launch(k, grid, block, args))
    tiles = n // TILE + 1
    out = dev.zeros(n + 1, np.int32)
    tile_sums = dev.zeros(tiles, np.int32)
    run(scan_tiles, min(tiles, 1024), 128, values, out, tile_sums, n)
    if tiles > 1:
        tile_prefix, _ = exclusive_scan(dev, tile_sums, tiles, launch, total=False)
        run(add_tile_offsets, min(-(-(n + 1) // 128), 4096), 128, out, tile_prefix, n)
    if not total:
        return out, None
    target = dev.zeros(1, np.int32)
    run(read_entry, 1, 32, out, n, target)
    return out, int(dev.to_host(target)[0])
