"""GPUBFS-WR over a frontier queue (Deveci et al., Euro-Par 2013, Alg. 4): work proportional to the frontier, not to
the columns; an option of APFB and APsB (``frontier="queue"``, the default on a GPU).

:func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr` sweeps every column at every level to find those at
``bfs_level``: on a graph of 4·10^6 columns whose BFS runs 60 levels of a few hundred columns each, the sweeps are
most of the search.  Here each level's columns are listed in ``queue`` (at most ``nc`` entries a phase: a column joins
the BFS once), and a level reads only its own:

- :func:`init_bfs_queue` is INITBFSARRAY that also lists the free columns with rows, the first level;
- :func:`gpubfs_wr_queue` expands one level: a thread per listed column, the whole warp for a column of degree ≥
  ``warp_degree`` (as :func:`~gpusim.algorithms.bipartite.kernels_bfs_warp.gpubfs_wr_warp`), and a column of degree
  ≥ ``warp_degree²`` (1,024 for 32: a hub) is set aside for :func:`expand_hubs`, where every thread of the grid takes
  a share of its rows;
- a row's matched column joins the next level by a CAS on its ``bfs_array`` entry (:func:`claim_column`), so it is
  listed once; the paper's plain store lets several threads claim it, which a sweep tolerates and a list would not;
- a warp lists what its lanes claimed in one atomic add (:func:`list_claimed`), its lanes visiting a row each a
  round: one counter a level, met by every claim, would otherwise be where the time goes.

The levels of a batch run without the host (Alg. 1's loop, batched as
:func:`~gpusim.algorithms.bipartite.augmenting.levels_run` says), so each level finds where its columns are on the
device: ``frontier`` holds three starts (``frontier[k % 3]``), three counts (``frontier[3 + k % 3]``) and three hub
counts (``frontier[6 + k % 3]``) for levels ``k`` (from 0, the free columns) in turn.  Level ``k`` reads its start
and count, appends to the count of ``k + 1``, and its first thread records where level ``k + 1`` starts and clears
the count of ``k + 2`` and the hubs of ``k + 1``: slots that no thread of level ``k`` reads or writes.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> bfs_array, root, queue, frontier = dev.zeros(4), dev.zeros(4), dev.full(4, -1), dev.zeros(9)
>>> cmatch, col_ptr = dev.array(np.array([-1, 0, -1, 1], np.int32)), dev.array(np.arange(5, dtype=np.int32))
>>> _ = dev.launch(init_bfs_queue, 1, 32, (bfs_array, cmatch, root, col_ptr, 4, 2, queue, frontier))
>>> sorted(dev.to_host(queue)[:2].tolist()), dev.to_host(frontier)[3], dev.to_host(bfs_array).tolist()
([0, 2], np.int32(2), [2, 1, 2, 1])
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .kernels_bfs import end_path, search_over, start_columns

__all__ = ["bits_set", "claim_column", "expand_hubs", "gpubfs_wr_queue", "init_bfs_queue", "list_claimed",
           "scan_by_warp", "scan_own_rows", "visit_listed_row"]

_I = "int32"
_A = "int32[:]"

#: Fewer than GPUBFS-WR's: a column is claimed by one thread, which alone writes its root and its row's predecessor.
_QUEUE_RACES = {
    "bfs_array": "a root's end of path written by several columns of its tree (the same kind of value); a column "
                 "read unvisited by a plain load while another thread claims it (the CAS decides)",
    "predecessor": "several columns may reach one free row; any of them is a valid predecessor",
    "rmatch": "a free row may be marked -2 by several columns (the same value) while others read it",
    "flags": "flags: every writer writes 1",
}


@kernel(signature=", ".join([_A, _A, _A, _A, _I, _I, _A, _A]))
def init_bfs_queue(bfs_array, cmatch, root, col_ptr, nc, start_level, queue, frontier):
    """INITBFSARRAY (Deveci et al., Euro-Par 2013, Alg. 1 line 4) that also lists the free columns with rows, level 0
    of the queue, in ``queue[0:frontier[3]]`` (``frontier`` zero before; blocks of whole warps).  A column without
    rows starts no path: on a Kronecker graph most free columns are such, and listing them costs the first level of
    every phase a millisecond."""
    start_columns(bfs_array, cmatch, root, nc, start_level)
    lane = T.lane_id()
    base = T.gtid() - lane
    while base < nc:
        free = -1
        if base + lane < nc:
            if cmatch[base + lane] < 0:
                if col_ptr[base + lane + 1] > col_ptr[base + lane]:
                    free = base + lane
        list_claimed(free, queue, frontier, 0, 3)
        base += T.num_threads()


@device
def bits_set(word):
    """How many bits of the 32-bit ``word`` are 1 (``__popc``): the bits summed in pairs, nibbles, then bytes."""
    word = word - ((word >> T.u32(1)) & T.u32(0x55555555))
    word = (word & T.u32(0x33333333)) + ((word >> T.u32(2)) & T.u32(0x33333333))
    word = (word + (word >> T.u32(4))) & T.u32(0x0F0F0F0F)
    return T.i32((word & T.u32(0xFF)) + ((word >> T.u32(8)) & T.u32(0xFF)) + ((word >> T.u32(16)) & T.u32(0xFF))
                 + (word >> T.u32(24)))


@device
def list_claimed(claimed, queue, frontier, tail, next_count):
    """The warp's claimed columns (``claimed`` -1 in a lane without one) listed in consecutive slots from ``tail`` +
    ``frontier[next_count]``, which one atomic add a warp advances (a warp-aggregated append: a counter that every
    claim of a level meets is the contention of a list); a lane's slot is the number of claiming lanes below it.
    Every lane of the warp calls it."""
    wanted = T.ballot(claimed >= 0)
    if wanted != T.u32(0):
        start = 0
        if T.lane_id() == 0:
            start = T.atomic_add(frontier, next_count, bits_set(wanted))
        start = T.shfl_idx(start, 0)
        if claimed >= 0:
            below = wanted & ((T.u32(1) << T.u32(T.lane_id())) - T.u32(1))
            queue[tail + start + bits_set(below)] = claimed


@device
def claim_column(col_match, row, c, my_root, bfs_level, bfs_array, predecessor, root, flags, start_level, slot):
    """Alg. 4 lines 10–13 for a row matched to ``col_match``: the column joins the next level in ``my_root``'s tree;
    ``col_match`` for the one thread whose CAS claims it (it lists the column), else -1."""
    claimed = -1
    if bfs_array[col_match] == start_level - 1:
        # equivalent cas-to-exchange: only a claim writes a matched column's level in a phase, always bfs_level + 1,
        # and the load above saw start_level - 1: an exchange returns start_level - 1 to the first claimer and the
        # same bfs_level + 1 it writes to the others, who then leave the column alone as after a failed CAS.
        if T.atomic_cas(bfs_array, col_match, start_level - 1, bfs_level + 1) == start_level - 1:
            flags[2 * slot] = 1
            root[col_match] = my_root
            predecessor[row] = c
            claimed = col_match
    return claimed


@device
def visit_listed_row(row, c, my_root, bfs_level, bfs_array, rmatch, predecessor, root, flags, start_level, mark_end,
                     slot):
    """GPUBFS-WR's step for one row of a listed column (Deveci et al., Euro-Par 2013, Alg. 4 lines 9–21), as
    :func:`~gpusim.algorithms.bipartite.kernels_bfs.visit_row` with the column claimed: the column to list, or -1."""
    claimed = -1
    col_match = rmatch[row]
    if col_match > -1:
        claimed = claim_column(col_match, row, c, my_root, bfs_level, bfs_array, predecessor, root, flags,
                               start_level, slot)
    elif col_match == -1:
        end_path(row, c, my_root, bfs_array, rmatch, predecessor, flags, start_level, mark_end, slot)
    return claimed


@device
def scan_own_rows(j, end, c, my_root, bfs_level, bfs_array, col_adj, rmatch, predecessor, root, flags, start_level,
                  mark_end, slot, queue, frontier, tail, next_count):
    """Alg. 4 lines 8–21 for each lane's own column (rows ``j`` to ``end``), the lanes a row each a round, listing what
    each round claimed (:func:`list_claimed`).  Every lane of the warp calls it (``j == end``: no column)."""
    while T.any(j < end) == 1:
        claimed = -1
        if j < end:
            claimed = visit_listed_row(col_adj[j], c, my_root, bfs_level, bfs_array, rmatch, predecessor, root, flags,
                                       start_level, mark_end, slot)
        list_claimed(claimed, queue, frontier, tail, next_count)
        j += 1


@device
def scan_by_warp(wanted, c, my_root, bfs_level, bfs_array, col_ptr, col_adj, rmatch, predecessor, root, flags,
                 start_level, mark_end, slot, queue, frontier, tail, next_count):
    """Alg. 4 lines 8–21 for the columns of the lanes set in ``wanted``, in lane order, the 32 lanes taking rows
    ``lane``, ``lane + 32``, ... of each (as :func:`~gpusim.algorithms.bipartite.kernels_bfs_warp.gpubfs_wr_warp`).
    Every lane of the warp calls it."""
    lane = T.lane_id()
    for src in range(32):
        if T.i32((wanted >> T.u32(src)) & T.u32(1)) == 1:
            col = T.shfl_idx(c, src)
            col_root = T.shfl_idx(my_root, src)
            first = col_ptr[col]
            while first < col_ptr[col + 1]:
                claimed = -1
                if first + lane < col_ptr[col + 1]:
                    claimed = visit_listed_row(col_adj[first + lane], col, col_root, bfs_level, bfs_array, rmatch,
                                               predecessor, root, flags, start_level, mark_end, slot)
                list_claimed(claimed, queue, frontier, tail, next_count)
                first += 32


@kernel(signature=", ".join([_I, _A, _A, _A, _A, _A, _A, _A, _I, _I, _I, _I, _A, _A, _A, _I]),
        intended_races=_QUEUE_RACES)
def gpubfs_wr_queue(bfs_level, bfs_array, col_ptr, col_adj, rmatch, predecessor, root, flags, start_level, mark_end,
                    slot, stop_on_found, queue, frontier, hubs, warp_degree):
    """GPUBFS-WR (Deveci et al., Euro-Par 2013, Alg. 4 lines 1–22) over the columns listed for ``bfs_level``: a
    thread per column (the warp's lanes a row each a round), the warp for a column of degree ≥ ``warp_degree``, and
    a column of degree ≥ ``warp_degree²`` listed in ``hubs`` for :func:`expand_hubs`.  Flags, early exit and early
    return as :func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr`; blocks of whole warps."""
    if search_over(flags, slot, stop_on_found) == 1:
        return
    k = (bfs_level - start_level) % 3
    tail = frontier[k] + frontier[3 + k]
    if T.gtid() == 0:
        frontier[(k + 1) % 3] = tail  # where level k + 1 starts
        frontier[3 + (k + 2) % 3] = 0  # level k + 2 counts from 0
        frontier[6 + (k + 1) % 3] = 0  # and level k + 1's hubs
    lane = T.lane_id()
    base = frontier[k] + T.gtid() - lane
    while base < tail:
        c = -1
        my_root = -1
        big = 0
        j = 0
        end = 0
        if base + lane < tail:
            c = queue[base + lane]
            my_root = root[c]
            if bfs_array[my_root] >= start_level - 1:  # lines 6-7: the root has no path yet
                degree = col_ptr[c + 1] - col_ptr[c]
                if degree >= warp_degree * warp_degree:
                    hubs[T.atomic_add(frontier, 6 + k, 1)] = c
                elif degree >= warp_degree:
                    big = 1
                else:
                    j = col_ptr[c]
                    end = col_ptr[c + 1]
        scan_own_rows(j, end, c, my_root, bfs_level, bfs_array, col_adj, rmatch, predecessor, root, flags,
                      start_level, mark_end, slot, queue, frontier, tail, 3 + (k + 1) % 3)
        scan_by_warp(T.ballot(big == 1), c, my_root, bfs_level, bfs_array, col_ptr, col_adj, rmatch, predecessor, root,
                     flags, start_level, mark_end, slot, queue, frontier, tail, 3 + (k + 1) % 3)
        base += T.num_threads()


@kernel(signature=", ".join([_I, _A, _A, _A, _A, _A, _A, _A, _I, _I, _I, _I, _A, _A, _A]),
        intended_races=_QUEUE_RACES)
def expand_hubs(bfs_level, bfs_array, col_ptr, col_adj, rmatch, predecessor, root, flags, start_level, mark_end,
                slot, stop_on_found, queue, frontier, hubs):
    """The hubs :func:`gpubfs_wr_queue` set aside at ``bfs_level`` (Deveci et al., Euro-Par 2013, Alg. 4 lines
    8–21), one after another, every warp of the grid taking 32 rows of each in turn; blocks of whole warps."""
    if search_over(flags, slot, stop_on_found) == 1:
        return
    k = (bfs_level - start_level) % 3
    tail = frontier[k] + frontier[3 + k]
    lane = T.lane_id()
    for h in range(frontier[6 + k]):
        c = hubs[h]
        my_root = root[c]
        first = col_ptr[c] + T.gtid() - lane
        while first < col_ptr[c + 1]:
            claimed = -1
            if first + lane < col_ptr[c + 1]:
                claimed = visit_listed_row(col_adj[first + lane], c, my_root, bfs_level, bfs_array, rmatch,
                                           predecessor, root, flags, start_level, mark_end, slot)
            list_claimed(claimed, queue, frontier, tail, 3 + (k + 1) % 3)
            first += T.num_threads()
