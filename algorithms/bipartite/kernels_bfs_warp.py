"""GPUBFS-WR with a warp per high-degree column (Deveci et al., Euro-Par 2013, Alg. 4; the thread/warp granularity by
degree of
ECL-MM): an option of APFB and APsB (``warp_degree=``).

In :func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr` a thread scans all the rows of its column, so
one column of high degree keeps its warp's other 31 lanes idle.  Here each lane still owns a column, scans
it alone when its degree is below ``warp_degree``, and otherwise hands it to the whole warp: a ballot
collects the warp's high-degree columns, and for each, in lane order, the 32 lanes scan its rows together
(lane ``k`` takes rows ``k``, ``k + 32``, ...).  Every row is visited by
:func:`~gpusim.algorithms.bipartite.kernels_bfs.visit_row`, Alg. 4 lines 9–21 as GPUBFS-WR visits it, and
the early exit (lines 6–7) is tested once per column before its scan, as in the thread version, so a level
reaches the same columns; which column of a level becomes a row's predecessor or a column's root may differ,
as it may between two schedules of the thread version (intended races).

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges(list(range(40)), [0] * 40)   # one column, 40 rows
>>> dev = Device("sim", seed=0)
>>> bfs_array, root = dev.array(np.array([2], np.int32)), dev.array(np.array([0], np.int32))
>>> rmatch, predecessor, flags = dev.full(40, -1), dev.zeros(40), dev.zeros(2)
>>> args = (2, bfs_array, dev.array(g.col_ptr), dev.array(g.col_adj), 1, rmatch, predecessor, root, flags,
...         2, 0, 0, 0, 8)
>>> _ = dev.launch(gpubfs_wr_warp, 1, 32, args)
>>> (dev.to_host(rmatch) == -2).sum(), dev.to_host(flags).tolist(), dev.to_host(bfs_array).tolist()
(np.int64(40), [0, 1], [0])
"""

from __future__ import annotations

from gpusim import T, kernel

from .kernels_bfs import search_over, visit_row

__all__ = ["gpubfs_wr_warp", "has_hub"]

_I = "int32"
_A = "int32[:]"


@kernel(signature=", ".join([_I, _A, _A, _A, _I, _A, _A, _A, _A, _I, _I, _I, _I, _I]), intended_races={
    "bfs_array": "several columns may visit one column in a level, all writing the same level",
    "predecessor": "several columns may reach one row; any of them is a valid predecessor",
    "rmatch": "a free row may be marked -2 by several columns (the same value) while others read it",
    "flags": "flags: every writer writes 1",
    "root": "several columns may claim one column for their roots; any one is a valid root"})
def gpubfs_wr_warp(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, root, flags, start_level,
                   mark_end, slot, stop_on_found, warp_degree):
    """GPUBFS-WR (Deveci et al., Euro-Par 2013, Alg. 4 lines 1–22) with the warp scanning each column of degree ≥
    ``warp_degree``
    (lines 8–21 split among 32 lanes); arguments, flags and early return as
    :func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr`, plus ``warp_degree``."""
    if search_over(flags, slot, stop_on_found) == 1:
        return
    lane = T.lane_id()
    base = T.gtid() - lane
    while base < nc:
        c = base + lane
        big = 0
        my_root = -1
        if c < nc:
            if bfs_array[c] == bfs_level:
                my_root = root[c]
                if bfs_array[my_root] >= start_level - 1:
                    if col_ptr[c + 1] - col_ptr[c] >= warp_degree:
                        big = 1
                    else:
                        for j in range(col_ptr[c], col_ptr[c + 1]):
                            visit_row(col_adj[j], c, my_root, bfs_level, bfs_array, rmatch, predecessor, root,
                                      flags, start_level, mark_end, slot)
        wanted = T.ballot(big == 1)
        for src in range(32):
            if T.i32((wanted >> T.u32(src)) & T.u32(1)) == 1:
                col = T.shfl_idx(c, src)
                col_root = T.shfl_idx(my_root, src)
                j = col_ptr[col] + lane
                while j < col_ptr[col + 1]:
                    visit_row(col_adj[j], col, col_root, bfs_level, bfs_array, rmatch, predecessor, root, flags,
                              start_level, mark_end, slot)
                    j += 32
        base += T.num_threads()


@kernel(signature=", ".join([_A, _I, _I, _A]), intended_races={"found": "every writer writes 1"})
def has_hub(col_ptr, nc, hub_degree, found):
    """``found[0] = 1`` when some column has ``hub_degree`` rows or more: ``warp_degree="auto"``'s test of
    whether the warp scan is worth its ballots (``HUB_DEGREE`` of :mod:`~gpusim.algorithms.bipartite.augmenting`)."""
    c = T.gtid()
    while c < nc:
        if col_ptr[c + 1] - col_ptr[c] >= hub_degree:
            found[0] = 1
        c += T.num_threads()
