"""APFB and APsB in one launch of one block (Deveci et al., Euro-Par 2013, Alg. 1 whole): the host loop moved onto
the GPU.

On a small graph a BFS level is a few microseconds of work and its launch ten or more: the host loop of
:mod:`~gpusim.algorithms.bipartite.augmenting` spends its time launching.  :func:`augment_in_one_block`
runs the same steps, in the same order, as one block whose ``syncthreads`` stand where the host loop has
kernel boundaries: INITBFSARRAY (:func:`~.kernels_bfs.start_columns`), GPUBFS-WR levels
(:func:`~.kernels_bfs.expand_level`) until a level inserts no column (or, for APsB, finds a path), ALTERNATE
(:func:`~.kernels_bfs.alternate_paths`) and FIXMATCHING (:func:`fix_matching`), phase after phase, until a phase
finds no augmenting path.  A grid of
one block makes ``T.gtid()`` the thread's index in the block, so the bodies are the kernels' own.  Within one
block ``syncthreads`` also makes every thread's writes to global memory visible to the others, which is all
the host loop's kernel boundaries gave.  Two boundaries need no barrier.  FIXMATCHING's column side and the next
phase's INITBFSARRAY both stride over the columns from ``T.gtid()``, so INITBFSARRAY reads only the ``cmatch``
entries its own thread has just fixed, and writes ``bfs_array`` and ``root``, which FIXMATCHING does not touch;
the barrier after INITBFSARRAY orders the rest.  And FIXMATCHING's two sides decide the same whichever runs first
(:func:`fix_matching`), so they run as one step.

Each array's intended races are declared within the steps that race on it by design
(:func:`~gpusim.language.kernels.within`: GPUBFS-WR's, ALTERNATE's, FIXMATCHING's), not over the whole kernel: a race
between two steps is a barrier missing, and the simulator reports it.

The flags of a level (*vertex_inserted*, *augmenting_path_found*) rotate through three slots, so that one
barrier a level suffices: level ``L`` writes slot ``L % 3``; after the barrier every thread reads it; thread 0
clears slot ``(L + 1) % 3`` for the next level *before* that barrier, when every thread has read it (two
levels ago) and none may write it yet (next level).  With two slots thread 0's clearing would race with a
fast thread's first write of the next level.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1, 2], [0, 1, 0, 2])   # rows, columns
>>> dev = Device("sim", seed=0)
>>> rmatch, cmatch = dev.full(3, -1), dev.full(3, -1)
>>> work = [dev.zeros(3) for _ in range(3)]                       # bfs_array, root, predecessor
>>> flags, counts = dev.zeros(6), dev.zeros(3)
>>> args = (dev.array(g.col_ptr), dev.array(g.col_adj), 3, 3, rmatch, cmatch, *work, flags, counts, 2, 0, 0)
>>> _ = dev.launch(augment_in_one_block, 1, 32, args)
>>> int((dev.to_host(rmatch) >= 0).sum()), dev.to_host(counts).tolist()   # size; phases, levels, size
(3, [2, 2, 3])
"""

from __future__ import annotations

from gpusim import T, device, kernel
from gpusim.language.kernels import within

from .kernels_bfs import alternate_paths, expand_level, fix_column_side, fix_row_side, start_columns

__all__ = ["add_matched_rows", "augment_in_one_block", "clear_flags", "fix_matching"]

_I = "int32"
_A = "int32[:]"


@device
def clear_flags(flags, slot):
    """Both flags of ``slot`` (*vertex_inserted*, *augmenting_path_found*) back to 0."""
    flags[2 * slot] = 0
    flags[2 * slot + 1] = 0


@device
def fix_matching(cmatch, rmatch, nr, nc):
    """FIXMATCHING (Deveci et al., Euro-Par 2013, §3), both sides with no barrier between them: each side's test
    reads the same answer before or after the other side's writes.  A pair ``rmatch[r] == c``, ``cmatch[c] == r``
    is kept by both sides and written by neither; every other entry that either side reads is already one side
    of a broken pair, which the reset of its other side (to -1) leaves broken: the row side resets ``rmatch[r]``
    when ``cmatch[rmatch[r]] != r`` (true of the old value and of -1, as ``r >= 0``), the column side
    ``cmatch[c]`` when ``rmatch[cmatch[c]] != c`` (likewise, as ``c >= 0``)."""
    fix_row_side(cmatch, rmatch, nr)
    fix_column_side(cmatch, rmatch, nc)


@device
def add_matched_rows(rmatch, nr, counts, at):
    """``counts[at] +=`` the rows matched (``rmatch[r] >= 0``): the threads' counts summed by warp, one atomic a
    warp.  Every thread of the block calls it."""
    matched = 0
    r = T.gtid()
    while r < nr:
        if rmatch[r] >= 0:
            matched += 1
        r += T.num_threads()
    matched = T.reduce_add(matched)
    if T.lane_id() == 0:
        T.atomic_add(counts, at, matched)


@kernel(signature=", ".join([_A, _A, _I, _I, _A, _A, _A, _A, _A, _A, _A, _I, _I, _I]), intended_races={
    "bfs_array": within(expand_level, why="several columns may visit one column in a level, all writing the same "
                                          "level"),
    "predecessor": within(expand_level, why="several columns may reach one row; any of them is a valid predecessor"),
    "rmatch": within(expand_level, alternate_paths, fix_matching,
                     why="a free row is marked -2 by several columns (the same value) while others read it; "
                         "ALTERNATE may re-match a row read as -2, and FIXMATCHING repairs it, its two sides "
                         "deciding the same in either order"),
    "cmatch": within(alternate_paths, fix_matching,
                     why="two paths may re-match one column; the predecessor check stops most, FIXMATCHING repairs "
                         "the rest (Deveci et al., Euro-Par 2013, Alg. 3 and §3), its two sides deciding the same "
                         "in either order"),
    "flags": within(expand_level, why="flags: every writer writes 1"),
    "root": within(expand_level, why="several columns may claim one column for their roots; any one is a valid "
                                     "root")})
def augment_in_one_block(col_ptr, col_adj, nc, nr, rmatch, cmatch, bfs_array, root, predecessor, flags, counts,
                         start_level, mark_end, stop_on_found):
    """Deveci et al. (Euro-Par 2013), Alg. 1 (lines 3–14) by one block: phases of GPUBFS-WR levels, ALTERNATE and
    FIXMATCHING until no
    augmenting path is found; ``counts`` (three ints, zero at launch) receives the phases run, the BFS levels run
    and the rows matched at the end (per-warp sums added atomically), so the host reads the result's size with
    the counts.

    ``flags`` holds three slots of two flags (six ints, zero at launch); ``mark_end`` and ``stop_on_found``
    are APsB's (1) or APFB's (0), as the host loop passes them.  Launch with a grid of one block.
    """
    lead = T.thread_id()
    slot = 0
    phases = 0
    levels = 0
    searching = 1
    while searching == 1:
        start_columns(bfs_array, cmatch, root, nc, start_level)          # line 4
        T.syncthreads()
        bfs_level = start_level
        found = 0
        expanding = 1
        while expanding == 1:                                            # lines 6-11
            expand_level(bfs_level, bfs_array, col_ptr, col_adj, nc, rmatch, predecessor, root, flags, start_level,
                         mark_end, slot)
            if lead == 0:
                clear_flags(flags, (slot + 1) % 3)                       # the next level's, before the barrier
            T.syncthreads()
            if flags[2 * slot + 1] == 1:
                found = 1
            if flags[2 * slot] == 0:                                     # line 6: no column inserted
                expanding = 0
            if stop_on_found == 1 and found == 1:                        # lines 9-10 (APsB)
                expanding = 0
            levels += 1
            bfs_level += 1
            slot = (slot + 1) % 3
        phases += 1
        if found == 0:                                                   # line 12: no augmenting path
            searching = 0
        else:
            alternate_paths(cmatch, rmatch, nr, predecessor, bfs_array, root, mark_end)   # line 13
            T.syncthreads()
            fix_matching(cmatch, rmatch, nr, nc)                         # no barrier after it: see the notes
    add_matched_rows(rmatch, nr, counts, 2)                              # the size, for the host's one read
    if lead == 0:
        counts[0] = phases
        counts[1] = levels
