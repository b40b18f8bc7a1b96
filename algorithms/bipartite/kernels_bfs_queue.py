"""GPUBFS-WR over a frontier queue (Deveci et al., Euro-Par 2013, Alg. 4): work proportional to the frontier, not to
the columns; an option of APFB and APsB (``frontier="queue"``, the default on a GPU).

:func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr` sweeps every column at every level to find those at
``bfs_level``: on a graph of 4·10^6 columns whose BFS runs 60 levels of a few hundred columns each, the sweeps are
most of the search.  Here each level's columns are listed in ``queue`` (at most ``nc`` entries a phase: a column joins
the BFS once), and a level reads only its own:

- :func:`init_bfs_queue` is INITBFSARRAY that also lists the free columns with rows, the first level;
- :func:`gpubfs_wr_queue` expands one level: a warp takes 32 listed columns and visits their rows as one list, 32
  rows a round whichever columns they belong to (:func:`scan_warp_rows`: the lanes of a warp whose columns have 1 and
  30 rows would otherwise wait 30 rounds for one of them), and a column of degree ≥ ``warp_degree²`` (1,024 for 32:
  a hub) is set aside for :func:`expand_hubs`, where the rows of 32 hubs at a time are one list for the whole grid;
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
from gpusim.language.reductions import warp_scan_sum

from .kernels_bfs import end_path, search_over, start_columns

__all__ = ["bits_set", "claim_column", "expand_hubs", "gpubfs_wr_queue", "init_bfs_queue", "list_claimed",
           "owner_lane", "scan_warp_rows", "visit_listed_row"]

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
def owner_lane(starts, place):
    """The lane whose rows hold ``place`` of the warp's list: the last lane whose start (``starts``, the lanes'
    exclusive prefix sum of their row counts) is at most ``place``, found in five halvings by shuffles.  A lane of no
    rows starts where the next one does and is never the last such.  Every lane of the warp calls it."""
    owner = 0
    step = 16
    while step > 0:
        if T.shfl_idx(starts, owner + step) <= place:
            owner += step
        step = step // 2
    return owner


@device
def scan_warp_rows(c, my_root, first, degree, done, stride, bfs_level, bfs_array, col_adj, rmatch, predecessor, root,
                   flags, start_level, mark_end, slot, queue, frontier, tail, next_count):
    """Alg. 4 lines 8–21 for the rows of the warp's columns taken as one list (lane ``ℓ``'s column ``c``: rows
    ``first`` to ``first + degree``, none where ``degree`` is 0): the warp visits places ``done``, ``done + stride``,
    ... of the list, 32 consecutive places a round, whichever columns they fall in (:func:`owner_lane`), listing what
    each round claimed (:func:`list_claimed`).  A round visits 32 rows where a lane per column would keep the warp for
    its longest column's rows.  Every lane of the warp calls it."""
    starts = warp_scan_sum(degree) - degree
    total = T.shfl_idx(starts + degree, 31)
    lane = T.lane_id()
    while done < total:
        owner = owner_lane(starts, done + lane)
        col = T.shfl_idx(c, owner)
        col_root = T.shfl_idx(my_root, owner)
        row_at = T.shfl_idx(first - starts, owner) + done + lane
        claimed = -1
        if done + lane < total:
            claimed = visit_listed_row(col_adj[row_at], col, col_root, bfs_level, bfs_array, rmatch, predecessor, root,
                                       flags, start_level, mark_end, slot)
        list_claimed(claimed, queue, frontier, tail, next_count)
        done += stride


@kernel(signature=", ".join([_I, _A, _A, _A, _A, _A, _A, _A, _I, _I, _I, _I, _A, _A, _A, _I]),
        intended_races=_QUEUE_RACES)
def gpubfs_wr_queue(bfs_level, bfs_array, col_ptr, col_adj, rmatch, predecessor, root, flags, start_level, mark_end,
                    slot, stop_on_found, queue, frontier, hubs, warp_degree):
    """GPUBFS-WR (Deveci et al., Euro-Par 2013, Alg. 4 lines 1–22) over the columns listed for ``bfs_level``: a lane
    per column, the rows of a warp's columns visited as one list (:func:`scan_warp_rows`), and a column of degree ≥
    ``warp_degree²`` listed in ``hubs`` for :func:`expand_hubs`.  Flags, early exit and early return as
    :func:`~gpusim.algorithms.bipartite.kernels_bfs.gpubfs_wr`; blocks of whole warps."""
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
        first = 0
        degree = 0
        if base + lane < tail:
            c = queue[base + lane]
            my_root = root[c]
            if bfs_array[my_root] >= start_level - 1:  # lines 6-7: the root has no path yet
                first = col_ptr[c]
                degree = col_ptr[c + 1] - first
                if degree >= warp_degree * warp_degree:
                    hubs[T.atomic_add(frontier, 6 + k, 1)] = c
                    degree = 0
        scan_warp_rows(c, my_root, first, degree, 0, 32, bfs_level, bfs_array, col_adj, rmatch, predecessor, root,
                       flags, start_level, mark_end, slot, queue, frontier, tail, 3 + (k + 1) % 3)
        base += T.num_threads()


@kernel(signature=", ".join([_I, _A, _A, _A, _A, _A, _A, _A, _I, _I, _I, _I, _A, _A, _A]),
        intended_races=_QUEUE_RACES)
def expand_hubs(bfs_level, bfs_array, col_ptr, col_adj, rmatch, predecessor, root, flags, start_level, mark_end,
                slot, stop_on_found, queue, frontier, hubs):
    """The hubs :func:`gpubfs_wr_queue` set aside at ``bfs_level`` (Deveci et al., Euro-Par 2013, Alg. 4 lines
    8–21), 32 at a time, their rows one list of which every warp of the grid visits 32 places in turn
    (:func:`scan_warp_rows`); blocks of whole warps."""
    if search_over(flags, slot, stop_on_found) == 1:
        return
    k = (bfs_level - start_level) % 3
    tail = frontier[k] + frontier[3 + k]
    lane = T.lane_id()
    hub_count = frontier[6 + k]
    group = 0
    while group < hub_count:
        c = -1
        my_root = -1
        first = 0
        degree = 0
        if group + lane < hub_count:
            c = hubs[group + lane]
            my_root = root[c]
            first = col_ptr[c]
            degree = col_ptr[c + 1] - first
        scan_warp_rows(c, my_root, first, degree, T.gtid() - lane, T.num_threads(), bfs_level, bfs_array, col_adj,
                       rmatch, predecessor, root, flags, start_level, mark_end, slot, queue, frontier, tail,
                       3 + (k + 1) % 3)
        group += 32
