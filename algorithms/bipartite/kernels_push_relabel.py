"""The kernels of G-PR (Deveci et al., ICPP 2013 [001]_, Alg. 3–9): global relabelling by BFS levels, pushes, active
lists.

Written once in ``T``; the host loop is :mod:`gpusim.algorithms.bipartite.gpu_push_relabel`.  ``rmatch``
and ``cmatch`` are the paper's μ on rows and columns (``cmatch[v] = -2``: column ``v`` cannot reach
a free row), ``psi_r`` and ``psi_c`` its labels ψ, ``infinity`` its m + n.

References
----------
.. [001] M. Deveci, K. Kaya, B. Uçar, Ü. V. Çatalyürek, "A push-relabel-based maximum
   cardinality bipartite matching algorithm on GPUs", ICPP 2013.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim", seed=0)
>>> rmatch = dev.array(np.array([-1, 0], np.int32))
>>> psi_r, psi_c = dev.zeros(2, np.int32), dev.zeros(1, np.int32)
>>> _ = dev.launch(init_relabel, 1, 32, (rmatch, psi_r, psi_c, 2, 1, 3))
>>> dev.to_host(psi_r).tolist(), dev.to_host(psi_c).tolist()
([0, 3], [3])
"""

from __future__ import annotations

from gpusim import T, device, kernel
from gpusim.language.reductions import warp_reduce_sum, warp_scan_sum

__all__ = ["COMPACT_TILE", "block_offset", "compact_active", "count_tiles", "global_relabel_level", "init_active",
           "init_relabel", "list_free_columns", "loop_over", "mate_not_active", "offset_tiles", "push_active",
           "push_relabel_all"]

_I = "int32"
_A = "int32[:]"


def _sig(*types: str) -> str:
    return ", ".join(types)


#: The races the push-relabel kernels intend (Deveci et al., ICPP 2013, §III-B: concurrent pushes on one row leave one
#: winner; the losers stay active, or INITKRNL rolls them back).
_PUSH_RACES = {
    "rmatch": "concurrent pushes on one row: the last write wins, the losers' columns stay active",
    "psi_r": "a row relabelled by concurrent pushes; labels only grow and any winner's label is valid",
}



@kernel(signature=_sig(_A, _A, _A, _I, _I, _I))
def init_relabel(rmatch, psi_r, psi_c, nr, nc, infinity):
    """INITRELABEL (Deveci et al., ICPP 2013, Alg. 4 line 1; Alg. 2 lines 1–3): ψ = 0 on free rows, m + n everywhere
    else."""
    i = T.gtid()
    while i < nr:
        if rmatch[i] == -1:
            psi_r[i] = 0
        else:
            psi_r[i] = infinity
        i += T.num_threads()
    i = T.gtid()
    while i < nc:
        psi_c[i] = infinity
        i += T.num_threads()


@kernel(signature=_sig(_A, _A, _A, _A, _A, _A, _I, _I, _I, _A, _I), intended_races={
    "psi_c": "several rows label one column, always level + 1 (Deveci et al., ICPP 2013, Alg. 5)",
    "psi_r": "several columns label one mate, always level + 2",
    "added": "a flag: every writer writes 1"})
def global_relabel_level(row_ptr, row_adj, psi_r, psi_c, rmatch, cmatch, nr, level, infinity, added, slot):
    """G-GR-KRNL (Deveci et al., ICPP 2013, Alg. 5 lines 1–8): one BFS level from the rows labelled ``level``.

    Unvisited columns get ``level + 1`` and their (consistent) mates ``level + 2``.  Several
    threads may write one label, always the same value: an intended, benign race.  ``added[slot]``
    says a row was labelled (*uAdded*, Alg. 4 lines 4–6); the host launches several levels and reads ``added``
    once, and a level whose previous one added nothing returns at once (nothing is labelled ``level``).
    """
    if slot > 0:
        if added[slot - 1] == 0:
            return
    u = T.gtid()
    while u < nr:
        if psi_r[u] == level:
            for j in range(row_ptr[u], row_ptr[u + 1]):
                v = row_adj[j]
                if psi_c[v] == infinity:
                    psi_c[v] = level + 1
                    w = cmatch[v]
                    if w > -1:
                        if rmatch[w] == v:
                            psi_r[w] = level + 2
                            added[slot] = 1
        u += T.num_threads()


@kernel(signature=_sig(_A, _A, _A, _A, _A, _A, _I, _I, _A, _I),
        intended_races={**_PUSH_RACES, "active": "a flag: every writer writes 1"})
def push_relabel_all(col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c, nc, infinity, active, slot):
    """G-PR-KRNL (Deveci et al., ICPP 2013, Alg. 6 lines 1–19): a thread per column; each active column pushes once.

    A column is active when free (-1) or when its row moved on (line 3: ``rmatch[cmatch[v]] != v``).
    It takes the row of minimum ψ (lines 5–12, stopping early at ψ(v) - 1), matches it (single or
    double push, lines 14–15) and relabels both (lines 16–17), or becomes unreachable (-2, line 19).
    Concurrent pushes on one row leave one winner; the losers stay active (§III-B).  ``active[slot]`` is
    this loop's *actExists*; a loop after one with no active column returns at once (:func:`loop_over`).
    """
    if loop_over(active, slot) == 1:
        return
    v = T.gtid()
    while v < nc:
        mate = cmatch[v]
        is_active = 0
        if mate == -1:
            is_active = 1
        elif mate > -1:
            if rmatch[mate] != v:
                is_active = 1
        if is_active == 1:
            active[slot] = 1
            psi_min = infinity
            u = -1
            for j in range(col_ptr[v], col_ptr[v + 1]):
                label = psi_r[col_adj[j]]
                if label < psi_min:
                    psi_min = label
                    u = col_adj[j]
                    if psi_min == psi_c[v] - 1:
                        break
            if psi_min < infinity:
                rmatch[u] = v
                cmatch[v] = u
                psi_c[v] = psi_min + 1
                psi_r[u] = psi_min + 2
            else:
                cmatch[v] = -2
        v += T.num_threads()


@device
def loop_over(active, slot):
    """The host's loop test (Deveci et al., ICPP 2013, Alg. 7 line 5, *actExists*), read on the device: 1 when the
    loop of
    the slot before ``slot`` found no active column, else 0 (always 0 for a batch's first slot).

    ``active[s]`` is *actExists* of the batch's loop ``s``: the host launches several loops and reads
    ``active`` back once, and a loop after the last returns at once, as the one-loop-at-a-time host does.
    """
    over = 0
    if slot > 0:
        if active[slot - 1] == 0:
            over = 1
    return over


@kernel(signature=_sig(_A, _A, _I, _A, _A, _A, _I, _A, _I),
        intended_races={"active": "a flag: every writer writes 1"})
def init_active(cmatch, rmatch, loop, a_c, a_p, i_a, n_active, active, slot):
    """G-PR-INITKRNL (Deveci et al., ICPP 2013, Alg. 8 lines 1–11): fix the active list, rolling back pushes that
    lost a race.

    ``a_p[i]`` is the column processed at slot ``i`` last loop and ``a_c[i]`` the column its push
    freed.  If the processed column is still unmatched, its push lost: process it again (lines
    5–6).  Every column processed this loop gets ``i_a[v] = loop`` (line 10) and sets ``active[slot]``;
    it returns at once after a loop with no active column (:func:`loop_over`).
    """
    if loop_over(active, slot) == 1:
        return
    i = T.gtid()
    while i < n_active:
        v = a_p[i]
        if v != -1:
            mate = cmatch[v]
            lost = 0
            if mate == -1:
                lost = 1
            elif mate > -1:
                if rmatch[mate] != v:
                    lost = 1
            if lost == 1:
                a_c[i] = v
            else:
                v = a_c[i]
        if v != -1:
            i_a[v] = loop
            active[slot] = 1
        i += T.num_threads()


@device
def mate_not_active(i_a, w, loop):
    """The ``iA`` guard (Deveci et al., ICPP 2013, Alg. 9 line 13): 1 when the row's mate ``w`` is free (-1) or not
    active
    in this loop (``iA(w) ≠ loop``), so a push there lists no active column a second time; else 0."""
    allowed = 0
    if w == -1 or i_a[w] != loop:
        allowed = 1
    return allowed


@kernel(signature=_sig(_A, _A, _A, _A, _A, _A, _I, _A, _A, _A, _I, _I, _A, _I), intended_races=_PUSH_RACES)
def push_active(col_ptr, col_adj, rmatch, cmatch, psi_r, psi_c, loop, a_c, a_p, i_a, n_active, infinity, active,
                slot):
    """G-PR-PUSHKRNL (Deveci et al., ICPP 2013, Alg. 9 lines 1–24): push-relabel on the listed active columns only.

    The ``i_a`` guard (line 13, :func:`mate_not_active`) refuses a row whose mate is itself active
    this loop: pushing there would put that column in the list a second time, and after a
    roll-back two threads would process it.  ``a_p[i]`` receives the column the push freed (line 18; -1 for none).
    Alg. 7 line 18: it returns at once when INITKRNL listed no active column (``active[slot] == 0``).
    """
    if active[slot] == 0:
        return
    i = T.gtid()
    while i < n_active:
        v = a_c[i]
        if v != -1:
            psi_min = infinity
            u = -1
            for j in range(col_ptr[v], col_ptr[v + 1]):
                label = psi_r[col_adj[j]]
                if label < psi_min:
                    psi_min = label
                    u = col_adj[j]
                    if psi_min == psi_c[v] - 1:
                        break
            if psi_min < infinity:
                w = rmatch[u]
                if mate_not_active(i_a, w, loop) == 1:
                    rmatch[u] = v
                    cmatch[v] = u
                    psi_c[v] = psi_min + 1
                    psi_r[u] = psi_min + 2
                    a_p[i] = w
            else:
                cmatch[v] = -2
                a_c[i] = -1
                a_p[i] = -1
        else:
            a_p[i] = -1
        i += T.num_threads()


#: Entries one 128-thread block counts and writes at a time, eight consecutive ones a thread: every block compacts
#: tiles of the list at once, each in id order, where one block alone took milliseconds over millions of columns.
COMPACT_TILE = 1024


@device
def kept(source, i, free_columns):
    """1 when a compaction keeps entry ``i``, else 0: with ``free_columns`` (``source`` is ``cmatch``) column ``i`` if
    it is unmatched, else the active column ``source[i]`` unless it is -1."""
    if free_columns == 1:
        if source[i] == -1:
            return 1
        return 0
    if source[i] != -1:
        return 1
    return 0


@device
def tile_share(source, n, free_columns, start):
    """How many of the eight entries from ``start`` (below ``n``) a compaction keeps."""
    mine = 0
    for q in range(8):
        if start + q < n:
            mine += kept(source, start + q, free_columns)
    return mine


@device
def tile_half(tile):
    """Where a block keeps its four warps' totals for ``tile``: the first or second half of eight slots, by the parity
    of the block's turn.  A slot written at turn ``k + 2`` was read at turn ``k``, before the barrier of turn
    ``k + 1`` that the writer passed too: no barrier at the end of a turn is needed."""
    return 4 * ((tile // T.grid_size()) % 2)


@kernel(signature=_sig(_A, _I, _I, _A))
def count_tiles(source, n, free_columns, tile_counts):
    """A compaction's first pass (Deveci et al., ICPP 2013, §III-C2, over many blocks): ``tile_counts[t]`` = the entries
    kept in tile ``t`` of ``COMPACT_TILE`` (128 threads a block).  The warps' totals alternate between two halves
    of ``warp_sums`` from one tile to the next (``tile_half``), so one barrier a tile suffices."""
    warp_sums = T.shared_array(8, T.i32)
    tile = T.block_id()
    while tile * COMPACT_TILE < n:
        half = tile_half(tile)
        total = warp_reduce_sum(tile_share(source, n, free_columns, tile * COMPACT_TILE + T.thread_id() * 8))
        if T.lane_id() == 0:
            warp_sums[half + T.warp_id()] = total
        T.syncthreads()
        if T.thread_id() == 0:
            tile_counts[tile] = warp_sums[half] + warp_sums[half + 1] + warp_sums[half + 2] + warp_sums[half + 3]
        tile += T.grid_size()


@device
def block_offset(counts, mine):
    """The block's exclusive prefix sum at this thread (Deveci et al., ICPP 2013, §III-C2: "each thread has a private
    write region"): ``counts[tid] = mine``, a Hillis-Steele scan in shared memory, then ``counts[tid]`` holds the
    inclusive sum (the last thread's is the total) and the return value the exclusive one."""
    tid = T.thread_id()
    threads = T.block_size()
    counts[tid] = mine
    T.syncthreads()
    offset = 1
    while offset < threads:
        before = 0
        if tid >= offset:
            before = counts[tid - offset]
        T.syncthreads()
        counts[tid] = counts[tid] + before
        T.syncthreads()
        offset *= 2
    return counts[tid] - mine


@kernel(signature=_sig(_A, _I, _A))
def offset_tiles(tile_counts, tiles, length):
    """A compaction's second pass: one block turns the tiles' counts into their exclusive prefix sums, in place (each
    thread a run of tiles, :func:`block_offset` over the runs); ``length[0]`` gets the total."""
    counts = T.shared_array(1024, T.i32)
    tid = T.thread_id()
    threads = T.block_size()
    chunk = (tiles + threads - 1) // threads
    low = tid * chunk
    high = min(low + chunk, tiles)
    mine = 0
    for t in range(low, high):
        mine += tile_counts[t]
    write = block_offset(counts, mine)
    for t in range(low, high):
        kept = tile_counts[t]
        tile_counts[t] = write
        write += kept
    if tid == threads - 1:
        length[0] = counts[tid]


@device
def tile_write_start(source, n, free_columns, tile_offsets, tile, warp_sums):
    """Where this thread's first kept entry of ``tile`` goes in a compaction's third pass: the tile's offset plus the
    entries kept before it in the tile (a warp scan of the threads' shares, then the earlier warps' totals, kept in
    the half of the eight ``warp_sums`` that ``tile_half`` gives)."""
    half = tile_half(tile)
    mine = tile_share(source, n, free_columns, tile * COMPACT_TILE + T.thread_id() * 8)
    inclusive = warp_scan_sum(mine)
    if T.lane_id() == 31:
        warp_sums[half + T.warp_id()] = inclusive
    T.syncthreads()
    write = tile_offsets[tile] + inclusive - mine
    for w in range(T.warp_id()):
        write += warp_sums[half + w]
    return write


@kernel(signature=_sig(_A, _A, _I, _A))
def compact_active(source, target, n, tile_offsets):
    """G-PR-SHRKRNL's compaction (Deveci et al., ICPP 2013, Alg. 7 lines 11–13, §III-C2), its third pass: the active
    columns of ``source`` packed, in order, to ``target`` by prefix sum, every block a tile at a time
    (:func:`count_tiles` and :func:`offset_tiles` give the tiles' offsets and the new length)."""
    warp_sums = T.shared_array(8, T.i32)
    tile = T.block_id()
    while tile * COMPACT_TILE < n:
        write = tile_write_start(source, n, 0, tile_offsets, tile, warp_sums)
        start = tile * COMPACT_TILE + T.thread_id() * 8
        for q in range(8):
            if start + q < n:
                if source[start + q] != -1:
                    target[write] = source[start + q]
                    write += 1
        tile += T.grid_size()


@kernel(signature=_sig(_A, _A, _A, _I, _A))
def list_free_columns(cmatch, a_c, a_p, nc, tile_offsets):
    """The initial active lists (Deveci et al., ICPP 2013, §III-C: "Initially, both arrays contain the unmatched column
    indices"), built on the device from the starting matching: the third pass of a compaction of the free columns
    (:func:`count_tiles` and :func:`offset_tiles` before it, ``free_columns=1``), written in id order to ``a_c`` and
    ``a_p``."""
    warp_sums = T.shared_array(8, T.i32)
    tile = T.block_id()
    while tile * COMPACT_TILE < nc:
        write = tile_write_start(cmatch, nc, 1, tile_offsets, tile, warp_sums)
        start = tile * COMPACT_TILE + T.thread_id() * 8
        for q in range(8):
            v = start + q
            if v < nc:
                if cmatch[v] == -1:
                    a_c[write] = v
                    a_p[write] = v
                    write += 1
        tile += T.grid_size()
