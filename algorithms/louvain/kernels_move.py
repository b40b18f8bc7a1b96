"""Modularity optimisation on the GPU (Naim et al., IPDPS 2017, Algorithms 1 and 2, §4.1), written once in ``T``.

Algorithm 1 computes ``m`` and every ``k_i`` (:func:`vertex_degrees`), then sweeps: the vertices are
partitioned by degree into buckets (:func:`count_buckets`, :func:`fill_buckets`), each bucket's vertices
choose a community from the same state (``computeMove``, Algorithm 2), the moves are applied
(:func:`apply_moves`) and the community totals ``a_c`` recomputed (:func:`community_totals`) before the
next bucket.  The number of threads per vertex grows with its degree (§4.1): 4, 8, 16 or 32 lanes of a
warp (:func:`move_subwarp`, degrees 1–32, with 1–3 edges a lane for 33–84), a 128-thread block with the
table in shared memory (:func:`move_block_shared`, 85–319) or in global memory
(:func:`move_block_global`, above 319).  :func:`move_thread` is the baseline the paper improves on:
one thread per vertex.

Every kernel is launched with 128 threads a block (four warps, §4.1).

>>> from gpusim.algorithms.louvain.kernels_move import DEGREE_BUCKETS
>>> DEGREE_BUCKETS
(4, 8, 16, 32, 84, 319)
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .hashing import (
    allowed,
    better,
    candidate_score,
    clear_table,
    group_best,
    insert,
    lookup,
    score,
    table_size,
)

__all__ = [
    "BLOCK", "DEGREE_BUCKETS", "MOVE_RACES", "SHARED_SLOTS", "apply_independent_moves", "apply_moves",
    "best_community", "bucket_of",
    "clear_totals", "community_totals", "copy_labels", "count_buckets", "decide", "entry_counts", "fill_buckets",
    "follow_leaves", "hash_neighbours", "init_communities", "mark_movers", "priority",
    "modularity_terms", "move_block_global", "move_block_shared", "move_block_vertex", "move_subwarp",
    "move_thread", "vertex_degrees",
]

#: Threads per block of every launch (four warps, §4.1).
BLOCK = 128
#: Upper degree bounds of the buckets of §4.1: [1, 4], [5, 8], [9, 16], [17, 32], [33, 84], [85, 319], > 319.
DEGREE_BUCKETS = (4, 8, 16, 32, 84, 319)
#: Slots of a block's shared tables: four groups of 4 lanes x 7 slots, ..., four warps x 127, one block x 479.
SHARED_SLOTS = 512
#: The tables are filled concurrently on purpose: slots claimed by CAS, weights added atomically.
MOVE_RACES = {"keys": "a slot's key is read unlocked; the CAS that claims it says who won"}


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
    """Alg. 1 lines 10–11: ``a_c = sum of k_i over c`` (and the size of ``c``) by atomics; zero them first."""
    i = T.gtid()
    while i < n:
        T.atomic_add(a, C[i], k[i])
        T.atomic_add(csize, C[i], 1)
        i += T.num_threads()


@device
def bucket_of(degree, bounds, n_buckets):
    """The bucket ``b`` with ``bounds[b] < degree <= bounds[b + 1]``; -1 for degree 0 (nothing to move or merge)."""
    if degree == 0:
        return -1
    b = 0
    while b < n_buckets - 1 and degree > bounds[b + 1]:
        b += 1
    return b


@kernel(signature="int32[:], int32[:], int32")
def entry_counts(ptr, degree, n):
    """``deg(i)``: the number of entries of ``i``'s list (a self-loop counts one)."""
    i = T.gtid()
    while i < n:
        degree[i] = ptr[i + 1] - ptr[i]
        i += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:], int32")
def count_buckets(degree, bounds, n_buckets, counts, n):
    """Alg. 1 line 5 and Alg. 3 line 21, first half: how many vertices (communities) fall in each degree bucket."""
    i = T.gtid()
    while i < n:
        b = bucket_of(degree[i], bounds, n_buckets)
        if b >= 0:
            T.atomic_add(counts, b, 1)
        i += T.num_threads()


@kernel(signature="int32[:], int32[:], int32, int32[:], int32[:], int32")
def fill_buckets(degree, bounds, n_buckets, cursor, vset, n):
    """Alg. 1 line 5, second half (Thrust's ``partition``): each vertex appended to its bucket's part of ``vset``."""
    i = T.gtid()
    while i < n:
        b = bucket_of(degree[i], bounds, n_buckets)
        if b >= 0:
            vset[T.atomic_add(cursor, b, 1)] = i
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
def best_community(keys, vals, base, size, first, step, own, ki, a, m, gamma):
    """Alg. 2 line 14, this thread's share: among slots ``first, first + step, ...`` the community other than
    ``own`` of highest :func:`score` (ties to the lowest id, §4), or -1."""
    best = -1
    best_s = 0.0
    s = first
    while s < size:
        c = keys[base + s]
        if c >= 0 and c != own:
            sc = score(vals[base + s], ki, a[c], m, gamma)
            if better(best, best_s, c, sc) == 1:
                best = c
                best_s = sc
        s += step
    return best


@device
def decide(keys, vals, base, size, best, i, C, k, a, csize, m, gamma, new_comm):
    """Alg. 2 lines 15–18: ``newComm[i]`` is ``best`` if moving there gains modularity (Eq. 2 > 0) and the
    singleton rule of §4 allows it (:func:`~.hashing.allowed`, applied to the winner as [16] does), else ``C[i]``."""
    own = C[i]
    new_comm[i] = own
    if best >= 0 and allowed(own, best, csize) == 1:
        stay = score(lookup(keys, vals, base, size, own), k[i], a[own] - k[i], m, gamma)
        if candidate_score(keys, vals, base, size, best, k[i], a, m, gamma) > stay:
            new_comm[i] = best


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
        best = -1
        s = 0.0
        if i >= 0:
            best = best_community(keys, vals, base, size, lane, width, C[i], k[i], a, m, gamma)
            s = candidate_score(keys, vals, base, size, best, k[i], a, m, gamma)
        best = group_best(best, s, width)
        if i >= 0 and lane == 0:
            decide(keys, vals, base, size, best, i, C, k, a, csize, m, gamma, new_comm)
        T.syncwarp()
        first += T.grid_size() * per_block


@device
def move_block_vertex(ptr, adj, w, C, k, a, csize, i, new_comm, primes, n_primes, m, gamma, keys, vals, base,
                      winners):
    """computeMove (Alg. 2) for one vertex on all threads of a block (§4.1, groups six and seven).

    Each warp reduces by shuffles; the warps' winners meet in shared memory and thread 0 decides.
    """
    t = T.thread_id()
    size = table_size(primes, n_primes, ptr[i + 1] - ptr[i])
    clear_table(keys, vals, base, size, t, T.block_size())
    T.syncthreads()
    hash_neighbours(ptr, adj, w, C, i, keys, vals, base, size, t, T.block_size())
    T.syncthreads()
    best = best_community(keys, vals, base, size, t, T.block_size(), C[i], k[i], a, m, gamma)
    best = group_best(best, candidate_score(keys, vals, base, size, best, k[i], a, m, gamma), 32)
    if T.lane_id() == 0:
        winners[T.warp_id()] = best
    T.syncthreads()
    if t == 0:
        for q in range(1, T.block_size() // 32):
            other = winners[q]
            if better(best, candidate_score(keys, vals, base, size, best, k[i], a, m, gamma), other,
                      candidate_score(keys, vals, base, size, other, k[i], a, m, gamma)) == 1:
                best = other
        decide(keys, vals, base, size, best, i, C, k, a, csize, m, gamma, new_comm)
    T.syncthreads()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64", intended_races=MOVE_RACES)
def move_block_shared(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma):
    """computeMove (Naim et al., IPDPS 2017, Alg. 2), §4.1 group six (degrees 85–319): a block per vertex, shared
    table."""
    keys = T.shared_array(SHARED_SLOTS, T.i32)
    vals = T.shared_array(SHARED_SLOTS, T.f64)
    winners = T.shared_array(4, T.i32)
    v = T.block_id()
    while v < count:
        move_block_vertex(ptr, adj, w, C, k, a, csize, vset[offset + v], new_comm, primes, n_primes, m, gamma,
                          keys, vals, 0, winners)
        v += T.grid_size()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64, int32[:], float64[:]",
        intended_races=MOVE_RACES)
def move_block_global(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma,
                      keys, vals):
    """computeMove (Naim et al., IPDPS 2017, Alg. 2), §4.1 group seven (degree > 319): a block per vertex, the
    table in global memory at ``3 ptr[i] + 2 i``, as in :func:`move_thread`, so every block of the grid works
    at once whatever the largest degree."""
    winners = T.shared_array(4, T.i32)
    v = T.block_id()
    while v < count:
        i = vset[offset + v]
        move_block_vertex(ptr, adj, w, C, k, a, csize, i, new_comm, primes, n_primes, m, gamma, keys, vals,
                          3 * ptr[i] + 2 * i, winners)
        v += T.grid_size()


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


@kernel(signature="int32[:], int32, int32, int32[:], int32[:]")
def apply_moves(vset, offset, count, new_comm, C):
    """Alg. 1 lines 8–9: ``C[i] = newComm[i]`` for the bucket's vertices, once all of them have chosen."""
    v = T.gtid()
    while v < count:
        i = vset[offset + v]
        C[i] = new_comm[i]
        v += T.num_threads()


@device
def priority(v, salt):
    """A pseudo-random rank of vertex ``v`` for sweep ``salt``: ``v -> a v + b (mod 2^31)`` with ``a`` odd is a
    bijection, so two vertices never tie."""
    return (T.i64(v) * 1103515245 + T.i64(salt) * 40503 + 12345) % 2147483648


@kernel(signature="int32[:], int32, int32, int32[:], int32[:], int32[:], int32")
def mark_movers(vset, offset, count, new_comm, C, moving, stamp):
    """``moving[i] = stamp`` for each vertex of the bucket that chose another community (``stamp`` is new for
    each bucket of each sweep, so no clearing is needed)."""
    v = T.gtid()
    while v < count:
        i = vset[offset + v]
        if new_comm[i] != C[i]:
            moving[i] = stamp
        v += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32, int32, int32[:], int32[:], int32[:], int32, int32")
def apply_independent_moves(ptr, adj, vset, offset, count, new_comm, C, moving, stamp, salt):
    """Conflict-free sweeps after a dip (:func:`~gpusim.algorithms.louvain.driver.gpu_louvain`'s
    ``dip_rule="independent"``): a mover moves only if no neighbour that also moves in this bucket has a higher
    :func:`priority` (one round of Luby's independent set among the movers; [16] colours the graph for the same
    end), so no two adjacent vertices decide on each other's stale community."""
    v = T.gtid()
    while v < count:
        i = vset[offset + v]
        if moving[i] == stamp:
            mine = priority(i, salt)
            free = True
            for e in range(ptr[i], ptr[i + 1]):
                j = adj[e]
                if j != i and moving[j] == stamp and priority(j, salt) > mine:
                    free = False
            if free:
                C[i] = new_comm[i]
        v += T.num_threads()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32")
def modularity_terms(ptr, adj, w, C, a, sums, n):
    """Eq. (1)'s two sums: ``sums[0] += sum_i e_{i->C(i)}`` (the weight inside communities, ``A`` summed over
    pairs in one community) and ``sums[1] += sum_c a_c^2``; then ``Q = sums[0] / 2m - gamma sums[1] / 4m^2``.

    A warp per vertex as in :func:`vertex_degrees`, one ``atomicAdd`` per warp and sum."""
    lane = T.lane_id()
    i = T.gtid() // 32
    inside = 0.0
    squares = 0.0
    while i < n:
        own = C[i]
        here = 0.0
        e = ptr[i] + lane
        while e < ptr[i + 1]:
            if C[adj[e]] == own:
                here += w[e]
            e += 32
        inside += T.reduce_add(here)
        squares += a[i] * a[i]
        i += T.num_threads() // 32
    if lane == 0:
        T.atomic_add(sums, 0, inside)
        T.atomic_add(sums, 1, squares)


@kernel(signature="int32[:], int32[:], int32")
def copy_labels(source, target, n):
    """``target[i] = source[i]``: keep the best partition of a phase (parallel moves may lower modularity)."""
    i = T.gtid()
    while i < n:
        target[i] = source[i]
        i += T.num_threads()
