"""Bottom-up BFS levels for APFB and APsB: direction-optimising BFS (Beamer, Asanović, Patterson, SC 2012)
on GPUBFS-WR (Deveci et al., Euro-Par 2013, Alg. 4), an option of both (``direction=``).

A top-down level (:func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr`) has every frontier column
scan all its rows.  When the frontier is a large share of the columns, most of those rows are already
taken, and the scans cost the whole edge set.  A bottom-up level turns the search around: each row that
is still *waiting* — free (a possible path end) or matched to a column no level has reached — scans its own
columns (the row side's CSR) for one in the frontier whose tree is still growing, and stops at the first.
The step it then takes is Alg. 4 lines 9–21 as the top-down level takes it
(:func:`~gpusim.algorithms.bipartite.kernels_bfs.visit_row`): the row's column joins the next level in the
frontier column's tree, or a free row ends that tree's path.

What changes: a row is visited once, by its own thread, so its ``predecessor`` and ``rmatch`` and the
``root`` of its column have one writer; and a tree whose root found a path during the level stops
recruiting rows at once (the early exit of Alg. 4 lines 6–7 is tested for each frontier column a row
finds), where a top-down column already scanning keeps going.  Either way a phase that finds no path
has run the whole BFS, so APFB and APsB stay maximum.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1])   # column 0 free; row 1 matched to column 1
>>> dev = Device("sim", seed=0)
>>> bfs_array, root = dev.array(np.array([2, 1], np.int32)), dev.array(np.array([0, -1], np.int32))
>>> rmatch, predecessor, flags = dev.array(np.array([-1, 1], np.int32)), dev.full(2, -1), dev.zeros(2)
>>> args = (2, bfs_array, dev.array(g.row_ptr), dev.array(g.row_adj), 2, rmatch, predecessor, root, flags,
...         2, 0, 0, 0)
>>> _ = dev.launch(gpubfs_wr_bottom_up, 1, 32, args)
>>> dev.to_host(rmatch).tolist(), dev.to_host(predecessor).tolist(), dev.to_host(flags).tolist()
([-2, 1], [0, -1], [0, 1])
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .kernels_bfs import search_over, visit_row

__all__ = ["count_level", "gpubfs_wr_bottom_up", "waiting_row"]

_I = "int32"
_A = "int32[:]"


@device
def waiting_row(r, rmatch, bfs_array, start_level):
    """1 when row ``r`` may still be reached: free (``rmatch = -1``), or matched to a column that no level has
    reached (``bfs_array = L0 - 1``); 0 for a row already on a path (-2) or whose column is in a tree."""
    waiting = 0
    col_match = rmatch[r]
    if col_match == -1:
        waiting = 1
    elif col_match > -1:
        if bfs_array[col_match] == start_level - 1:
            waiting = 1
    return waiting


@kernel(signature=", ".join([_I, _A, _A, _A, _I, _A, _A, _A, _A, _I, _I, _I, _I]), intended_races={
    "bfs_array": "a root's entry is marked finished (Alg. 4 line 19) while other rows read whether it is in the "
                 "frontier; a row that reads it late joins a tree that has just found its path",
    "flags": "flags: every writer writes 1"})
def gpubfs_wr_bottom_up(bfs_level, bfs_array, row_ptr, row_adj, nr, rmatch, predecessor, root, flags, start_level,
                        mark_end, slot, stop_on_found):
    """One BFS level bottom-up: each waiting row (:func:`waiting_row`) looks for a column at ``bfs_level`` whose
    root has no path yet (Alg. 4 lines 6–7) and takes Alg. 4's step from the first it finds (lines 9–21,
    :func:`~gpusim.algorithms.bipartite.kernels_bfs.visit_row`).  ``row_ptr``/``row_adj`` are the row side's
    CSR; the other arguments, the flags and the early return are those of
    :func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr`.
    """
    if search_over(flags, slot, stop_on_found) == 1:
        return
    r = T.gtid()
    while r < nr:
        if waiting_row(r, rmatch, bfs_array, start_level) == 1:
            for j in range(row_ptr[r], row_ptr[r + 1]):
                c = row_adj[j]
                if bfs_array[c] == bfs_level:
                    my_root = root[c]
                    if bfs_array[my_root] >= start_level - 1:
                        visit_row(r, c, my_root, bfs_level, bfs_array, rmatch, predecessor, root, flags,
                                  start_level, mark_end, slot)
                        break
        r += T.num_threads()


@kernel(signature=", ".join([_I, _A, _I, _A, _I]))
def count_level(level, bfs_array, nc, counts, index):
    """``counts[index] +=`` the number of columns at ``level``: the next level's frontier, for the choice of
    direction (``direction="auto"``).  Each thread counts its own columns and adds them once."""
    mine = 0
    c = T.gtid()
    while c < nc:
        if bfs_array[c] == level:
            mine += 1
        c += T.num_threads()
    if mine > 0:
        T.atomic_add(counts, index, mine)
