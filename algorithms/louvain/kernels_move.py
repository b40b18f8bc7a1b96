"""Modularity optimisation on the GPU (Naim et al., IPDPS 2017, Algorithms 1 and 2, §4.1), written once in ``T``.

Algorithm 1 computes ``m`` and every ``k_i`` (:func:`vertex_degrees`), then sweeps: the vertices are
partitioned by degree into buckets (:mod:`.degree_groups`), each bucket's vertices
choose a community from the same state (``computeMove``, Algorithm 2), the moves are applied
(:func:`~.kernels_apply.apply_moves`) and the community totals ``a_c`` recomputed (:func:`community_totals`) before the
next bucket.  The number of threads per vertex grows with its degree (§4.1): 4, 8, 16 or 32 lanes of a
warp (:func:`move_subwarp`, degrees 1–32, with 1–3 edges a lane for 33–84), a 128-thread block with the
table in shared memory (:func:`move_block_shared`, 85–319) or in global memory
(:func:`move_block_global`, above 319).  :func:`move_thread` is the baseline the paper improves on:
one thread per vertex.  :mod:`.kernels_shuffle` sums the degrees up to 32 by shuffles instead of tables.

Every kernel is launched with 128 threads a block (four warps, §4.1).

>>> from gpusim.algorithms.louvain.kernels_move import DEGREE_BUCKETS
>>> DEGREE_BUCKETS
(4, 8, 16, 32, 84, 319)
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .hashing import (
    EMPTY,
    add_table,
    allowed,
    better,
    clear_table,
    group_best,
    insert,
    lookup,
    score,
    table_size,
)
from .kernels_aggregate import add_by_community, member_of

__all__ = [
    "BLOCK", "DEGREE_BUCKETS", "HUB_CHUNK", "HUB_RACES", "HUB_SLOTS", "MOVE_RACES", "SHARED_SLOTS", "add_sums",
    "best_community", "best_slot", "block_best", "choose", "clear_totals", "community_totals", "copy_labels", "decide",
    "decide_from_chunks", "entry_counts", "entry_sources", "follow_leaves", "hash_chunk",
    "hash_neighbours", "init_communities", "modularity_terms", "move_block_global", "move_block_shared",
    "move_block_vertex", "move_subwarp", "move_thread", "slot_community",
    "slot_score", "slot_weight", "take_share", "vertex_degrees",
]

#: Threads per block of every launch (four warps, §4.1).
BLOCK = 128
#: Upper degree bounds of the buckets of §4.1: [1, 4], [5, 8], [9, 16], [17, 32], [33, 84], [85, 319], > 319.
DEGREE_BUCKETS = (4, 8, 16, 32, 84, 319)
#: Slots of a block's shared tables: four groups of 4 lanes x 7 slots, ..., four warps x 127, one block x 479.
SHARED_SLOTS = 512
#: A hub's chunk (:func:`move_block_global`): this many times the last group's lower bound of entries (1,280), summed
#: in a shared table of ``HUB_SLOTS`` (R-MAT 2^22 of degree 16 on an H200: the call 1.5-3 % faster than with 320).
HUB_CHUNK, HUB_SLOTS = 4, 2048
#: The tables are filled concurrently on purpose: slots claimed by CAS, weights added atomically.
MOVE_RACES = {"keys": "a slot's key is read unlocked; the CAS that claims it says who won"}
#: :func:`move_block_global`'s: its blocks' shared tables of a chunk are filled the same way.
HUB_RACES = {"keys": MOVE_RACES["keys"], "chunk_keys": MOVE_RACES["keys"]}


@kernel(signature="int32[:], float64[:], float64[:], float64[:], int32")
def vertex_degrees(ptr, w, k, total, n):
    """Alg. 1 line 2 (Naim et al., IPDPS 2017): ``k_i`` for each vertex in parallel, and ``2m = sum k_i`` in ``total``.

    A warp per vertex, its lanes striding over the entries (a hub's edges shared by 32 lanes), and one
    ``atomicAdd`` per warp at the end."""
    lane = T.lane_id()
    i = T.gtid() // 32
    total_here = 0.0
    while i < n:
        ki = 0.0
        e = ptr[i] + lane
        while e < ptr[i + 1]:
            ki += w[e]
            e += 32
        ki = T.reduce_add(ki)
        if lane == 0:
            k[i] = ki
        total_here += ki
        i += T.num_threads() // 32
    if lane == 0:
        T.atomic_add(total, 0, total_here)


@kernel(signature="int32[:], int32")
def init_communities(C, n):
    """``C[i] = i``: every vertex a community by itself at the start of a phase (§4)."""
    i = T.gtid()
    while i < n:
        C[i] = i
        i += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32")
def follow_leaves(ptr, adj, C, n):
    """Vertex following ([16]: Lu, Halappanavar, Kalyanaraman 2015; ``reduceGraph`` in the authors' CUDA code):
    a vertex whose one entry is an edge to ``j`` starts the phase in ``j``'s community, unless ``j`` has one
    entry too and the larger id.  Moving such a leaf to its only neighbour always gains modularity, and it
    takes the leaves out of the first sweep's simultaneous moves."""
    i = T.gtid()
    while i < n:
        if ptr[i + 1] - ptr[i] == 1:
            j = adj[ptr[i]]
            if j != i and (ptr[j + 1] - ptr[j] > 1 or j < i):
                C[i] = j
        i += T.num_threads()


@kernel(signature="float64[:], int32[:], int32")
def clear_totals(a, csize, n):
    """``a_c = 0`` and the size of ``c`` 0 for every community, before :func:`community_totals`."""
    c = T.gtid()
    while c < n:
        a[c] = 0.0
        csize[c] = 0
        c += T.num_threads()


@kernel(signature="int32[:], float64[:], float64[:], int32[:], int32")
def community_totals(C, k, a, csize, n):
    """Alg. 1 lines 10–11: ``a_c = sum of k_i over c`` (and the size of ``c``) by atomics; zero them first.  A warp of
    one community's vertices adds with one atomic each (:func:`~.kernels_aggregate.add_by_community`)."""
    i = T.gtid()
    while i - T.lane_id() < n:  # the warp goes round together (its reductions take all 32 lanes)
        c = -1
        ki = 0.0
        if i < n:
            c = C[i]
            ki = k[i]
        add_by_community(c, a, ki, csize)
        i += T.num_threads()


@kernel(signature="int32[:], int32[:], int32")
def entry_counts(ptr, degree, n):
    """``deg(i)``: the number of entries of ``i``'s list (a self-loop counts one)."""
    i = T.gtid()
    while i < n:
        degree[i] = ptr[i + 1] - ptr[i]
        i += T.num_threads()


@device
def hash_neighbours(ptr, adj, w, C, i, keys, vals, base, size, first, step):
    """Alg. 2 lines 2–13: this thread's edges of ``i`` (``first, first + step, ...``) into the table under ``C[j]``.

    A self-loop is left out: ``e_{i->c}`` counts the edges to *other* vertices of ``c``.
    """
    e = ptr[i] + first
    while e < ptr[i + 1]:
        j = adj[e]
        if j != i:
            insert(keys, vals, base, size, C[j], w[e])
        e += step


@device
def best_slot(keys, vals, base, size, first, step, own, ki, a, m, gamma):
    """Alg. 2 line 14, this thread's share: among slots ``first, first + step, ...`` the slot of the community other
    than ``own`` of highest :func:`score` (ties to the lowest id, §4), or -1."""
    best = -1
    best_c = -1
    best_s = 0.0
    s = first
    while s < size:
        c = keys[base + s]
        if c >= 0 and c != own:
            sc = score(vals[base + s], ki, a[c], m, gamma)
            if better(best_c, best_s, c, sc) == 1:
                best = s
                best_c = c
                best_s = sc
        s += step
    return best


@device
def slot_community(keys, base, slot):
    """The community in ``slot`` of the table (-1 for none, ``slot < 0``)."""
    c = -1
    if slot >= 0:
        c = keys[base + slot]
    return c


@device
def slot_score(keys, vals, base, slot, ki, a, m, gamma):
    """:func:`score` of the community in ``slot``, read from the slot (no probe of the table for it); 0 for none."""
    if slot < 0:
        return 0.0
    return score(vals[base + slot], ki, a[keys[base + slot]], m, gamma)


@device
def slot_weight(vals, base, slot):
    """The weight summed in ``slot`` of the table (0 for none, ``slot < 0``)."""
    if slot < 0:
        return 0.0
    return vals[base + slot]


@device
def best_community(keys, vals, base, size, first, step, own, ki, a, m, gamma):
    """:func:`best_slot`'s community, or -1."""
    return slot_community(keys, base, best_slot(keys, vals, base, size, first, step, own, ki, a, m, gamma))


@device
def choose(best, e_own, e_best, i, C, k, a, csize, m, gamma, new_comm):
    """Alg. 2 lines 15–18 from ``i``'s weights to its own community and to ``best``: ``newComm[i]`` is ``best`` if
    moving there gains modularity (Eq. 2 > 0) and the singleton rule of §4 allows it (:func:`~.hashing.allowed`,
    applied to the winner as [16] does), else ``C[i]``."""
    own = C[i]
    new_comm[i] = own
    if best >= 0 and allowed(own, best, csize) == 1:
        if score(e_best, k[i], a[best], m, gamma) > score(e_own, k[i], a[own] - k[i], m, gamma):
            new_comm[i] = best


@device
def decide(keys, vals, base, size, best, i, C, k, a, csize, m, gamma, new_comm):
    """:func:`choose` with the weights looked up in ``i``'s table."""
    e_best = 0.0
    if best >= 0:
        e_best = lookup(keys, vals, base, size, best)
    choose(best, lookup(keys, vals, base, size, C[i]), e_best, i, C, k, a, csize, m, gamma, new_comm)


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64, int32, int32", intended_races=MOVE_RACES)
def move_subwarp(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma, width,
                 stride):
    """computeMove (Naim et al., IPDPS 2017, Alg. 2) with ``width`` lanes per vertex and its table in shared memory.

    §4.1, groups one to five: ``width`` = 4, 8, 16, 32 threads of one warp for degrees up to 32 (an edge a
    lane), a whole warp for degrees 33–84 (one to three edges a lane, interleaved).  Group ``g`` of the
    block owns slots ``g * stride ...`` of the shared tables.
    """
    keys = T.shared_array(SHARED_SLOTS, T.i32)
    vals = T.shared_array(SHARED_SLOTS, T.f64)
    per_block = T.block_size() // width
    lane = T.thread_id() % width
    base = (T.thread_id() // width) * stride
    first = T.block_id() * per_block
    while first < count:
        v = first + T.thread_id() // width
        i = -1
        size = 2
        if v < count:
            i = vset[offset + v]
            size = table_size(primes, n_primes, ptr[i + 1] - ptr[i])
        clear_table(keys, vals, base, size, lane, width)
        T.syncwarp()
        if i >= 0:
            hash_neighbours(ptr, adj, w, C, i, keys, vals, base, size, lane, width)
        T.syncwarp()
        slot = -1
        ki = 0.0
        if i >= 0:
            ki = k[i]
            slot = best_slot(keys, vals, base, size, lane, width, C[i], ki, a, m, gamma)
        best = group_best(slot_community(keys, base, slot), slot_score(keys, vals, base, slot, ki, a, m, gamma), width)
        if i >= 0 and lane == 0:
            decide(keys, vals, base, size, best, i, C, k, a, csize, m, gamma, new_comm)
        T.syncwarp()
        first += T.grid_size() * per_block


@device
def block_best(keys, vals, base, lo, hi, own, ki, a, m, gamma, winners, winner_scores):
    """Alg. 2 line 14 on a whole block: the slot of the best community other than ``own`` among slots ``lo ... hi - 1``
    of the table, in thread 0 (-1 for none).  Each warp reduces by shuffles; the lane holding its warp's winner leaves
    the slot and its score in shared memory, and thread 0 takes the best of the warps' from there: no slot outside
    ``lo ... hi - 1`` is read.  The caller waits at a barrier before the winners are written again."""
    slot = best_slot(keys, vals, base, hi, lo + T.thread_id(), T.block_size(), own, ki, a, m, gamma)
    c = slot_community(keys, base, slot)
    s = slot_score(keys, vals, base, slot, ki, a, m, gamma)
    best = group_best(c, s, 32)
    if (best < 0 and T.lane_id() == 0) or (best >= 0 and c == best):
        winners[T.warp_id()] = slot
        winner_scores[T.warp_id()] = s
    T.syncthreads()
    at = -1
    if T.thread_id() == 0:
        at = winners[0]
        at_score = winner_scores[0]
        for q in range(1, T.block_size() // 32):
            if better(slot_community(keys, base, at), at_score, slot_community(keys, base, winners[q]),
                      winner_scores[q]) == 1:
                at = winners[q]
                at_score = winner_scores[q]
    return at


@device
def move_block_vertex(ptr, adj, w, C, k, a, csize, i, new_comm, primes, n_primes, m, gamma, keys, vals, base,
                      winners, winner_scores):
    """computeMove (Alg. 2) for one vertex on all threads of a block (§4.1, group six): hash, :func:`block_best`, and
    thread 0 decides."""
    t = T.thread_id()
    size = table_size(primes, n_primes, ptr[i + 1] - ptr[i])
    clear_table(keys, vals, base, size, t, T.block_size())
    T.syncthreads()
    hash_neighbours(ptr, adj, w, C, i, keys, vals, base, size, t, T.block_size())
    T.syncthreads()
    at = block_best(keys, vals, base, 0, size, C[i], k[i], a, m, gamma, winners, winner_scores)
    if t == 0:
        decide(keys, vals, base, size, slot_community(keys, base, at), i, C, k, a, csize, m, gamma, new_comm)
    T.syncthreads()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64", intended_races=MOVE_RACES)
def move_block_shared(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma):
    """computeMove (Naim et al., IPDPS 2017, Alg. 2), §4.1 group six (degrees 85–319): a block per vertex, shared
    table."""
    keys = T.shared_array(SHARED_SLOTS, T.i32)
    vals = T.shared_array(SHARED_SLOTS, T.f64)
    winners = T.shared_array(4, T.i32)
    winner_scores = T.shared_array(4, T.f64)
    v = T.block_id()
    while v < count:
        move_block_vertex(ptr, adj, w, C, k, a, csize, vset[offset + v], new_comm, primes, n_primes, m, gamma,
                          keys, vals, 0, winners, winner_scores)
        v += T.grid_size()


@device
def hash_chunk(ptr, adj, w, C, i, keys, vals, base, size, part, chunk, primes, n_primes, chunk_keys, chunk_vals):
    """This block's share of :func:`hash_neighbours`, entries ``part * chunk ...`` of ``i``'s list (at most ``chunk``
    of them), summed first in the block's shared table (``chunk_keys``, ``chunk_vals``), then each community found
    added to ``i``'s global table once: a hub's neighbours in one large community cost one global atomic a chunk,
    not one an edge (R-MAT 2^22 on an H200: 26.5 -> 18.2 ms of a call's hashing; the same sums, added in another
    order)."""
    first = ptr[i] + part * chunk
    end = first + chunk
    if end > ptr[i + 1]:
        end = ptr[i + 1]
    slots = table_size(primes, n_primes, end - first)
    clear_table(chunk_keys, chunk_vals, 0, slots, T.thread_id(), T.block_size())
    T.syncthreads()
    e = first + T.thread_id()
    while e < end:
        j = adj[e]
        if j != i:
            insert(chunk_keys, chunk_vals, 0, slots, C[j], w[e])
        e += T.block_size()
    T.syncthreads()
    add_table(chunk_keys, chunk_vals, slots, keys, vals, base, size, T.thread_id(), T.block_size())
    T.syncthreads()  # the shared table is the next chunk's


@device
def take_share(keys, vals, base, lo, hi, own, chunk_own, b):
    """Free the claimed slots among ``lo ... hi - 1`` of the table (its best already read), ``chunk_own[b]`` the weight
    to ``own`` when its slot is among them: the table is left empty for the next sweep, whose blocks need not
    clear it first."""
    s = lo + T.thread_id()
    while s < hi:
        key = keys[base + s]
        if key != EMPTY:
            if key == own:
                chunk_own[b] = vals[base + s]
            keys[base + s] = EMPTY
            vals[base + s] = 0.0
        s += T.block_size()


@device
def decide_from_chunks(i, C, k, a, csize, m, gamma, new_comm, chunk_best, chunk_weight, chunk_own, first, parts):
    """One warp: the best of the chunks' winners ``chunk_best[first:first + parts]`` (:func:`~.hashing.better`, each
    scored from the weight its block read, ``chunk_weight``), then lane 0 decides (:func:`choose`) with the weight to
    ``i``'s own community that one block found (``chunk_own``, 0 in the others)."""
    best = -1
    best_s = 0.0
    best_e = 0.0
    to_own = 0.0
    p = T.lane_id()
    while p < parts:
        c = chunk_best[first + p]
        if c >= 0:
            sc = score(chunk_weight[first + p], k[i], a[c], m, gamma)
            if better(best, best_s, c, sc) == 1:
                best = c
                best_s = sc
                best_e = chunk_weight[first + p]
        to_own += chunk_own[first + p]
        p += 32
    winner = group_best(best, best_s, 32)
    if best != winner:
        best_e = 0.0  # the winner's weight is in the one lane that holds it (none holds -1: every best_e is 0)
    best_e = T.reduce_max(best_e)
    to_own = T.reduce_add(to_own)
    if T.lane_id() == 0:
        choose(winner, to_own, best_e, i, C, k, a, csize, m, gamma, new_comm)


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64, int32[:], float64[:], int32, int32[:], int32, "
                  "int32[:], float64[:], float64[:], int32", intended_races=HUB_RACES)
def move_block_global(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma,
                      keys, vals, chunk, chunk_start, chunks, chunk_best, chunk_weight, chunk_own, step):
    """computeMove (Naim et al., IPDPS 2017, Alg. 2), §4.1 group seven (degree > 319): the table in global memory at
    ``3 ptr[i] + 2 i``, as in :func:`move_thread`, and a block per ``chunk`` entries of a vertex (block ``b``
    takes the ``b``-th chunk, its vertex by binary search in ``chunk_start``): one block a vertex, the paper's, kept
    a hub of 10^5 entries on one block while the rest of the GPU waited.  Launched in steps, the kernel boundary
    standing for :func:`move_block_vertex`'s barriers: ``step`` 0 clears each block's share of its vertex's table
    (a phase's first sweep alone: step 2 leaves it empty), 1 hashes its entries (through a shared table:
    :func:`hash_chunk`), 2 finds the best community of its share (``chunk_best``, its weight ``chunk_weight``, and
    ``chunk_own`` the weight to ``i``'s own community) and frees the share's slots (:func:`take_share`), 3 lets a
    warp a vertex choose among its chunks' bests and decide."""
    winners = T.shared_array(4, T.i32)
    winner_scores = T.shared_array(4, T.f64)
    chunk_keys = T.shared_array(HUB_SLOTS, T.i32)  # a chunk of at most 1,280 entries: 1,931 slots
    chunk_vals = T.shared_array(HUB_SLOTS, T.f64)
    b = T.block_id()
    while (step < 3 and b < chunks) or (step == 3 and b < count):
        q = b
        if step < 3:
            q = member_of(chunk_start, 0, count, b)
        i = vset[offset + q]
        parts = chunk_start[q + 1] - chunk_start[q]
        size = table_size(primes, n_primes, ptr[i + 1] - ptr[i])
        base = 3 * ptr[i] + 2 * i
        share = (size + parts - 1) // parts
        lo = (b - chunk_start[q]) * share
        hi = min(lo + share, size)
        if step == 0:
            clear_table(keys, vals, base + lo, hi - lo, T.thread_id(), T.block_size())
        elif step == 1:
            hash_chunk(ptr, adj, w, C, i, keys, vals, base, size, b - chunk_start[q], chunk, primes, n_primes,
                       chunk_keys, chunk_vals)
        elif step == 2:
            at = block_best(keys, vals, base, lo, hi, C[i], k[i], a, m, gamma, winners, winner_scores)
            if T.thread_id() == 0:
                chunk_best[b] = slot_community(keys, base, at)
                chunk_weight[b] = slot_weight(vals, base, at)
                chunk_own[b] = 0.0
            T.syncthreads()  # the best read before its slot is freed; the winners before they are written again
            take_share(keys, vals, base, lo, hi, C[i], chunk_own, b)
        elif T.thread_id() < 32:
            decide_from_chunks(i, C, k, a, csize, m, gamma, new_comm, chunk_best, chunk_weight, chunk_own,
                               chunk_start[q], parts)
        b += T.grid_size()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64, int32[:], float64[:]",
        intended_races=MOVE_RACES)
def move_thread(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma, keys,
                vals):
    """computeMove (Alg. 2) with one thread per vertex: the node-centred baseline of §1 (``layout="thread"``).

    Vertex ``i``'s table lies in global memory at ``3 ptr[i] + 2 i`` (a prime above 1.5 d is below 3 d + 2).
    """
    v = T.gtid()
    while v < count:
        i = vset[offset + v]
        base = 3 * ptr[i] + 2 * i
        size = table_size(primes, n_primes, ptr[i + 1] - ptr[i])
        clear_table(keys, vals, base, size, 0, 1)
        hash_neighbours(ptr, adj, w, C, i, keys, vals, base, size, 0, 1)
        best = best_community(keys, vals, base, size, 0, 1, C[i], k[i], a, m, gamma)
        decide(keys, vals, base, size, best, i, C, k, a, csize, m, gamma, new_comm)
        v += T.num_threads()


@kernel(signature="int32[:], int32[:], int32")
def entry_sources(ptr, src, n):
    """``src[e] = i`` for each entry ``e`` of ``i``'s list: the rows of the CSR as a column, so that a kernel can take
    the entries flat (:func:`modularity_terms`).  A warp per vertex."""
    lane = T.lane_id()
    i = T.gtid() // 32
    while i < n:
        e = ptr[i] + lane
        while e < ptr[i + 1]:
            src[e] = i
            e += 32
        i += T.num_threads() // 32


@device
def add_sums(inside, squares, sums, counts, n_counts):
    """The end of a kernel of Eq. (1)'s sums: this warp's two sums added to ``sums[0]`` and ``sums[1]``, one
    ``atomicAdd`` each, and ``sums[2 + q] = counts[q]`` for ``q < n_counts``: the next sweep's group sizes, which a
    kernel launched before filled (:meth:`~.degree_groups.DegreeGroups.fill`), read back with the sums in one copy."""
    inside = T.reduce_add(inside)
    squares = T.reduce_add(squares)
    if T.lane_id() == 0:
        T.atomic_add(sums, 0, inside)
        T.atomic_add(sums, 1, squares)
    q = T.gtid()
    if q < n_counts:
        sums[2 + q] = T.f64(counts[q])


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32, int32, int32, int32[:], "
                  "int32")
def modularity_terms(src, adj, w, C, a, sums, n, entries, unit, counts, n_counts):
    """Eq. (1)'s two sums: ``sums[0] += sum_i e_{i->C(i)}`` (the weight inside communities, ``A`` summed over
    pairs in one community) and ``sums[1] += sum_c a_c^2``; then ``Q = sums[0] / 2m - gamma sums[1] / 4m^2``.

    The entries are taken flat, a thread each (their rows from :func:`entry_sources`), and the communities beside
    them: a warp per vertex left most lanes idle on the short lists of a sparse graph (1.2 ms on 4·10^7 entries on
    an H200).  One ``atomicAdd`` per warp and sum.  ``unit`` 1: every weight is 1 (an unweighted input), not read.
    The next sweep's group sizes ride along (:func:`add_sums`)."""
    e = T.gtid()
    inside = 0.0
    squares = 0.0
    while e < entries or e < n:
        if e < entries and C[src[e]] == C[adj[e]]:
            if unit == 1:
                inside += 1.0
            else:
                inside += w[e]
        if e < n:
            squares += a[e] * a[e]
        e += T.num_threads()
    add_sums(inside, squares, sums, counts, n_counts)


@kernel(signature="int32[:], int32[:], int32")
def copy_labels(source, target, n):
    """``target[i] = source[i]``: keep the best partition of a phase (parallel moves may lower modularity)."""
    i = T.gtid()
    while i < n:
        target[i] = source[i]
        i += T.num_threads()
