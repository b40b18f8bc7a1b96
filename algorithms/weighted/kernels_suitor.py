"""The kernels of Suitor on a GPU (Naim et al., HiPC 2015): a thread per vertex (Alg. 3) and GPU-Suitor (Alg. 4).

An offer is the CSR entry ``j`` it travels along (:mod:`gpusim.algorithms.weighted.offers`); ``ws[v]``
holds the best offer ``v`` has received (-1: none) and only ``atomic_cas`` changes it (:func:`propose`).

GPU-Suitor's line 10, "synchronize across warps; load balance (optional)", is where the paper's four
variants differ (§4.3): :func:`gpu_suitor` calls it as ``synchronise_warps``, and :data:`GPU_SUITOR`
holds the kernel with each variant's step in that place — :func:`no_sync` (NoSync, the default),
:func:`sync_no_lb` (SyncNoLB), :func:`sync_lb` (SyncLB) and :func:`hybrid` (Hybrid) — made by
:func:`gpusim.language.variants.with_devices`, not by branches in the kernel.

Example
-------
>>> sorted(GPU_SUITOR), GPU_SUITOR["nosync"] is gpu_suitor
(['hybrid', 'nosync', 'synclb', 'syncnolb'], True)
"""

from __future__ import annotations

from gpusim import T, device, kernel
from gpusim.language.reductions import warp_scan_sum
from gpusim.language.variants import with_devices

from .offers import offer_beats

__all__ = [
    "GPU_SUITOR", "SUITOR_VARIANTS", "best_candidates", "best_entry", "gpu_suitor", "hybrid", "load_chunk", "no_sync",
    "propose", "store_unsuccessful", "suitor_thread_per_vertex", "sync_lb", "sync_no_lb", "warp_best_entry",
]

#: Suitor reads a neighbour's best offer without a lock and proposes with a CAS that fails if it
#: changed (Naim et al., HiPC 2015, Alg. 4): a stale read costs a retry.
_SUITOR_RACES = {"ws": "offers are read unlocked; the CAS that proposes fails on a stale read and the thread retries"}


@device
def best_entry(ptr, adj, weights, src, ws, current, first, step):
    """The entry ``j`` of ``current``'s list, among ``first, first + step, ...``, that ``current``
    should propose along: the heaviest (ties to the larger neighbour) whose neighbour would take
    the offer; -1 for none (Alg. 3 lines 13–17).  ``ws`` is read without an atomic: the proposal
    re-checks by CAS."""
    best = -1
    best_w = -1.0
    best_a = -1
    j = ptr[current] + first
    while j < ptr[current + 1]:
        w = weights[j]
        a = adj[j]
        if w > 0.0:
            if offer_beats(weights, src, ws[a], w, current) == 1:
                if w > best_w or (w == best_w and a > best_a):
                    best = j
                    best_w = w
                    best_a = a
        j += step
    return best


@device
def warp_best_entry(adj, weights, entry):
    """The best of the 32 lanes' entries (heaviest, ties to the larger neighbour; -1 loses), in every lane:
    the butterfly reduction of GPU-Suitor (Alg. 4 line 7), as three ``T.reduce_max`` (the butterfly of
    :func:`~gpusim.language.reductions.warp_reduce_max` as one member of ``T``) — the weight, then the neighbour
    among the heaviest, then the entry that has both."""
    w = -1.0
    a = -1
    if entry >= 0:
        w = weights[entry]
        a = adj[entry]
    best_w = T.reduce_max(w)
    if w < best_w:
        a = -1
    best_a = T.reduce_max(a)
    if a < best_a:
        entry = -1
    return T.reduce_max(entry)


@device
def propose(ws, weights, src, partner, entry, current):
    """Make ``current``'s offer along ``entry`` to ``partner`` by CAS (Alg. 3 lines 19–29, the
    lock replaced by a CAS loop on ``ws[partner]``).

    Returns the suitor it displaced, -1 when ``partner`` had none, or -2 when ``partner`` already
    holds a better offer (the proposer must search again).  The loop holds no lock: a lane whose
    CAS fails retries against the offer that beat it, so lockstep warps cannot deadlock here.
    """
    outcome = -3
    w = weights[entry]
    while outcome == -3:
        held = T.atomic_load(ws, partner)
        if offer_beats(weights, src, held, w, current) == 0:
            outcome = -2
        elif T.atomic_cas(ws, partner, held, entry) == held:
            if held < 0:
                outcome = -1
            else:
                outcome = src[held]
    return outcome


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32", intended_races=_SUITOR_RACES)
def suitor_thread_per_vertex(ptr, adj, weights, src, ws, n):
    """Suitor with a thread per vertex (Naim et al., HiPC 2015, Alg. 3): propose, and carry on for whoever was
    displaced."""
    u = T.gtid()
    while u < n:
        current = u
        while current >= 0:
            entry = best_entry(ptr, adj, weights, src, ws, current, 0, 1)
            if entry < 0:
                current = -1
            else:
                outcome = propose(ws, weights, src, adj[entry], entry, current)
                if outcome != -2:
                    current = outcome
        u += T.num_threads()


# -- GPU-Suitor (Alg. 4), its steps ---------------------------------------------------------------------


@device
def load_chunk(queue, first, per_warp, n):
    """Alg. 4 line 2 (the initial phase): the warp's chunk ``V_i``, vertices ``first .. first + per_warp - 1``
    below ``n``, into its 32 slots of ``queue``; returns how many."""
    count = max(0, min(per_warp, n - first))
    if T.lane_id() < count:
        queue[32 * T.warp_id() + T.lane_id()] = first + T.lane_id()
    T.syncwarp()
    return count


@device
def best_candidates(ptr, adj, weights, src, ws, queue, count):
    """Alg. 4 lines 5–7: for each of the warp's ``count`` queued vertices in turn, the 32 lanes read its list
    (lane ``i``: entries ``i, i + 32, ...``) and reduce; lane ``k`` keeps the best entry of the ``k``-th vertex."""
    mine = -1
    for k in range(count):
        vertex = queue[32 * T.warp_id() + k]
        entry = warp_best_entry(adj, weights, best_entry(ptr, adj, weights, src, ws, vertex, T.lane_id(), 32))
        if T.lane_id() == k:
            mine = entry
    return mine


@device
def store_unsuccessful(queue, again):
    """Alg. 4 line 9: the vertices to process again (``again >= 0``: refused, or displaced) compacted into the
    warp's queue by a prefix sum; returns how many."""
    keep = 0
    if again >= 0:
        keep = 1
    slot = warp_scan_sum(keep)
    count = T.shfl_idx(slot, 31)
    if again >= 0:
        queue[32 * T.warp_id() + slot - 1] = again
    T.syncwarp()
    return count


@device
def no_sync(queue, pool, counts, count, rounds, balance_rounds):
    """Line 10, NoSync (§4.3, variant 1): warps never wait for each other; a warp stops (-1) once its queue is empty."""
    going = count
    if count == 0:
        going = -1
    return going


@device
def block_total(counts, count):
    """The warps of the block post their counts (lane 0) and wait for each other; the block's total."""
    if T.lane_id() == 0:
        counts[T.warp_id()] = count
    T.syncthreads()
    total = 0
    for other in range(T.block_size() // 32):
        total += counts[other]
    return total


@device
def sync_no_lb(queue, pool, counts, count, rounds, balance_rounds):
    """Line 10, SyncNoLB (§4.3, variant 3): the warps of a block synchronise every round and stop (-1) together."""
    total = block_total(counts, count)
    T.syncthreads()
    if total == 0:
        count = -1
    return count


@device
def spread_evenly(queue, pool, counts, count, total):
    """SyncLB's load balance: the block's ``total`` queued vertices go through ``pool`` and come back spread
    evenly over its warps (``ceil(total / warps)`` each, in warp order); returns this warp's new count."""
    warps = T.block_size() // 32
    lane = T.lane_id()
    base = 32 * T.warp_id()
    before = 0
    for other in range(T.warp_id()):
        before += counts[other]
    if lane < count:
        pool[before + lane] = queue[base + lane]
    T.syncthreads()
    share = (total + warps - 1) // warps
    count = max(0, min(share, total - T.warp_id() * share))
    if lane < count:
        queue[base + lane] = pool[T.warp_id() * share + lane]
    T.syncwarp()
    return count


@device
def sync_lb(queue, pool, counts, count, rounds, balance_rounds):
    """Line 10, SyncLB (§4.3, variant 2): as SyncNoLB, and in the first ``balance_rounds`` rounds the block's
    queued vertices are spread evenly over its warps (``spread_evenly``)."""
    total = block_total(counts, count)
    if rounds <= balance_rounds and total > 0:
        count = spread_evenly(queue, pool, counts, count, total)
    T.syncthreads()
    if total == 0:
        count = -1
    return count


@device
def hybrid(queue, pool, counts, count, rounds, balance_rounds):
    """Line 10, Hybrid (§4.3, variant 4): SyncLB for the first ``balance_rounds`` rounds, then NoSync."""
    if rounds <= balance_rounds:
        count = sync_lb(queue, pool, counts, count, rounds, balance_rounds)
    else:
        count = no_sync(queue, pool, counts, count, rounds, balance_rounds)
    return count


#: Line 10 of :func:`gpu_suitor` as written: NoSync (the other variants are bound in its place).
synchronise_warps = no_sync


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32, int32, int32",
        intended_races=_SUITOR_RACES)
def gpu_suitor(ptr, adj, weights, src, ws, n, per_warp, balance_rounds):
    """GPU-Suitor (Naim et al., HiPC 2015, Alg. 4): a warp per chunk of ``per_warp`` vertices (at most 32).

    Line 2 loads the warp's chunk into its shared queue; each round (line 3) the warp finds the best
    candidate of each queued vertex in turn (lines 5–7), lane ``k`` proposes for the ``k``-th by CAS
    (line 8), the vertices refused or displaced are compacted into the queue (line 9), and the warps
    synchronise or not (line 10: ``synchronise_warps``, the variant's step; -1 ends the rounds).
    """
    queue = T.shared_array(256, T.i32)
    pool = T.shared_array(256, T.i32)
    counts = T.shared_array(8, T.i32)
    warps = T.block_size() // 32
    chunk = T.block_id() * warps * per_warp
    while chunk < n:
        count = load_chunk(queue, chunk + T.warp_id() * per_warp, per_warp, n)         # line 2
        rounds = 0
        while count >= 0:                                                              # line 3
            vertex = -1
            if T.lane_id() < count:
                vertex = queue[32 * T.warp_id() + T.lane_id()]
            entry = best_candidates(ptr, adj, weights, src, ws, queue, count)           # lines 4-7
            T.syncwarp()
            again = -1
            if entry >= 0:
                again = propose(ws, weights, src, adj[entry], entry, vertex)           # line 8
                if again == -2:
                    again = vertex  # refused: it searches again
            count = store_unsuccessful(queue, again)                                   # line 9
            rounds += 1
            count = synchronise_warps(queue, pool, counts, count, rounds, balance_rounds)  # line 10
        chunk += T.grid_size() * warps * per_warp


#: GPU-Suitor's variants (Naim et al., HiPC 2015, §4.3): the step each puts at line 10 of :func:`gpu_suitor`.
SUITOR_VARIANTS = {"nosync": no_sync, "syncnolb": sync_no_lb, "synclb": sync_lb, "hybrid": hybrid}
#: :func:`gpu_suitor` with each variant's line 10 (``"nosync"``: the kernel itself).
GPU_SUITOR = {name: with_devices(gpu_suitor, {"synchronise_warps": step}) for name, step in SUITOR_VARIANTS.items()}
