"""Aggregation on the GPU (Naim et al., IPDPS 2017, Algorithm 3 and §4.1), written once in ``T``.

Each community becomes one vertex of the next graph: its size and degree bound by atomics
(:func:`community_sizes`, lines 4–6), new consecutive ids by a prefix sum over "non-empty"
(:func:`mark_nonempty`, lines 7–12), the vertices ordered by community (:func:`place_vertices`,
lines 17–19), then ``mergeCommunity`` hashes the edges of all its vertices by the neighbour's
community (lines 20–23) on a warp (degree bound 1–127, table in shared memory), a block (128–479,
shared) or a block with the table in global memory (above 479), and writes the table's entries,
renamed to the new ids, to the community's part of the new edge list.  gpusim adds a fourth group, degree
sums above 8,192 (``MERGE_CHUNK``; the hub communities of a power-law graph, millions of edges): several blocks
each (:func:`merge_chunks`), where one block of 128 threads alone took 0.14 s on an R-MAT graph of 2·10^7
edges.  The lists are then packed (:func:`compact_edges`) and the dendrogram extended (:func:`relabel`).

The new graph's entries are ``A'[c, d] = sum of A[i, j]`` over ``i`` in ``c`` and ``j`` in ``d``: the
edges inside ``c`` become its self-loop, and the total weight is unchanged.

>>> from gpusim.algorithms.louvain.kernels_aggregate import COMMUNITY_BUCKETS
>>> COMMUNITY_BUCKETS
(127, 479, 8192)
"""

from __future__ import annotations

from gpusim import T, device, kernel
from gpusim.language.reductions import warp_scan_sum

from .hashing import EMPTY, add_table, clear_table, insert, insert_within, table_size

__all__ = [
    "CHUNK_MERGE_RACES", "CHUNK_TABLE", "COMMUNITY_BUCKETS", "MERGE_CHUNK", "MERGE_RACES", "MERGE_SLOTS",
    "MERGE_WARP_STRIDE", "SPILL_PROBES", "add_by_community", "community_sizes", "compact_edges", "count_chunks",
    "emit_edges", "hash_community", "hash_community_edges", "hash_edge_range", "hash_edges_through_shared",
    "mark_nonempty", "member_degrees", "member_of", "merge_block", "merge_block_global", "merge_block_shared",
    "merge_chunks", "merge_warp", "place_vertices", "relabel", "scatter_counts",
]

#: Edges of a community that one block merges: a community of more is shared among several blocks.
MERGE_CHUNK = 8192
#: Upper bounds of the degree sums of §4.1's three community buckets: [1, 127], [128, 479], > 479; gpusim splits the
#: last at ``MERGE_CHUNK``: above it, several blocks a community.
COMMUNITY_BUCKETS = (127, 479, MERGE_CHUNK)
#: Slots of a block's shared tables: four warps x 191 (a prime above 1.5 x 127), or one block x 719.
MERGE_SLOTS = 768
MERGE_WARP_STRIDE = 191
MERGE_RACES = {"keys": "a slot's key is read unlocked; the CAS that claims it says who won"}
#: :func:`merge_chunks`'s: its blocks' shared tables of a chunk are filled the same way.
CHUNK_MERGE_RACES = {"keys": MERGE_RACES["keys"], "chunk_keys": MERGE_RACES["keys"]}
#: The slots of :func:`merge_chunks`' shared table (a prime: double hashing visits every slot), and how many of them
#: an edge's community looks at before it goes to the global table instead (a chunk of more communities than fit).
CHUNK_TABLE, SPILL_PROBES = 719, 8


@device
def add_by_community(c, sums, value, sizes):
    """Warp-wide: ``sums[c] += value`` and ``sizes[c] += 1`` for each lane's community ``c`` (-1, a lane past the end:
    none), one atomic each for the whole warp where its 32 lanes share ``c``: where the input numbers its vertices by
    place, a settled level's communities are long runs of ids, and each lane's atomic queued on the one slot."""
    total = T.reduce_add(value)
    same = 0
    if c == T.shfl_idx(c, 0) and c >= 0:
        same = 1
    if T.reduce_min(same) == 1:
        if T.lane_id() == 0:
            T.atomic_add(sums, c, total)
            T.atomic_add(sizes, c, 32)
    elif c >= 0:
        T.atomic_add(sums, c, value)
        T.atomic_add(sizes, c, 1)


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32")
def community_sizes(C, ptr, com_size, com_degree, n):
    """Alg. 3 lines 4–6 (Naim et al., IPDPS 2017): each community's size and the sum of its vertices' degrees; a warp
    of one community's vertices with one atomic each (:func:`add_by_community`)."""
    i = T.gtid()
    while i - T.lane_id() < n:  # the warp goes round together (its reductions take all 32 lanes)
        c = -1
        degree = 0
        if i < n:
            c = C[i]
            degree = ptr[i + 1] - ptr[i]
        add_by_community(c, com_degree, degree, com_size)
        i += T.num_threads()


@kernel(signature="int32[:], int32[:], int32")
def mark_nonempty(com_size, new_id, n):
    """Alg. 3 lines 7–11: ``newID[c]`` is 1 for a non-empty community, 0 for an empty one (then a prefix sum)."""
    c = T.gtid()
    while c < n:
        new_id[c] = 0
        if com_size[c] > 0:
            new_id[c] = 1
        c += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32")
def place_vertices(C, cursor, com, n):
    """Alg. 3 lines 17–19: ``com[atomicAdd(vertexStart[C[i]], 1)] = i``, the vertices grouped by community."""
    i = T.gtid()
    while i < n:
        com[T.atomic_add(cursor, C[i], 1)] = i
        i += T.num_threads()


@device
def hash_community(ptr, adj, w, C, com, start, members, keys, vals, base, size, first, step):
    """mergeCommunity's hashing: every edge of every vertex of the community, one vertex after the other, under
    the neighbour's community (self-loops and inner edges too: they become the new vertex's self-loop)."""
    for q in range(start, start + members):
        i = com[q]
        e = ptr[i] + first
        while e < ptr[i + 1]:
            insert(keys, vals, base, size, C[adj[e]], w[e])
            e += step


@kernel(signature="int32[:], int32[:], int32[:], int32")
def member_degrees(ptr, com, member_degree, n):
    """The degree of the ``q``-th vertex in community order; a prefix sum then gives ``memberStart``, where its
    edges begin when each community's edges are numbered one after the other."""
    q = T.gtid()
    while q < n:
        i = com[q]
        member_degree[q] = ptr[i + 1] - ptr[i]
        q += T.num_threads()


@device
def member_of(member_start, lo, hi, f):
    """The last ``q`` in ``[lo, hi)`` with ``memberStart[q] <= f`` (binary search): the vertex that owns flat edge
    ``f`` (members without edges are passed over, their start equals the next one's)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if member_start[mid] <= f:
            lo = mid
        else:
            hi = mid
    return lo


@device
def hash_edge_range(ptr, adj, w, C, com, member_start, start, members, keys, vals, base, size, f, end, step):
    """Hash the community's flat-numbered edges ``f, f + step, ...`` below ``end``: the member that owns each by
    binary search, then its neighbour's community."""
    while f < end:
        q = member_of(member_start, start, start + members, f)
        e = ptr[com[q]] + f - member_start[q]
        insert(keys, vals, base, size, C[adj[e]], w[e])
        f += step


@device
def hash_edges_through_shared(ptr, adj, w, C, com, member_start, start, members, keys, vals, base, size, first, end,
                              chunk_keys, chunk_vals):
    """This block's edges ``first .. end - 1`` of a community (:func:`hash_edge_range`), summed first in the block's
    shared table, each community found then added to the global table once: a large community's edges mostly lead
    inside it, and each was a global atomic add on that one slot.  An edge whose community finds no slot in
    ``SPILL_PROBES`` probes of a full shared table goes to the global table at once.  The same sums, added in
    another order."""
    t = T.thread_id()
    clear_table(chunk_keys, chunk_vals, 0, CHUNK_TABLE, t, T.block_size())
    T.syncthreads()
    f = first + t
    while f < end:
        q = member_of(member_start, start, start + members, f)
        e = ptr[com[q]] + f - member_start[q]
        if insert_within(chunk_keys, chunk_vals, 0, CHUNK_TABLE, C[adj[e]], w[e], SPILL_PROBES) == 0:
            insert(keys, vals, base, size, C[adj[e]], w[e])
        f += T.block_size()
    T.syncthreads()
    add_table(chunk_keys, chunk_vals, CHUNK_TABLE, keys, vals, base, size, t, T.block_size())
    T.syncthreads()  # the shared table is the next chunk's


@device
def hash_community_edges(ptr, adj, w, C, com, member_start, start, members, keys, vals, base, size, first, step):
    """mergeCommunity's hashing for a block: the community's edges numbered flat, every ``step``-th one to each
    thread, so a hub and a thousand leaves are shared alike (one edge a lane of each vertex in turn, as
    :func:`hash_community` does, leaves most lanes idle in a community of many small vertices)."""
    hash_edge_range(ptr, adj, w, C, com, member_start, start, members, keys, vals, base, size,
                    member_start[start] + first, member_start[start + members], step)


@device
def emit_edges(keys, vals, base, size, first, step, c, fill, edge_pos, new_id, new_adj, new_w):
    """mergeCommunity's output: the table's entries, renamed by ``newID``, to ``c``'s edge list at ``edgePos[c]``.

    Each warp counts its occupied slots by a prefix sum over its lanes (``shfl_up``) and reserves that many
    places with one ``atomicAdd`` on ``fill[c]``; every lane of the warp takes part.
    """
    r = 0
    while r < size:
        s = r + first
        flag = 0
        if s < size:
            if keys[base + s] != EMPTY:
                flag = 1
        inclusive = warp_scan_sum(flag)
        start = 0
        if T.lane_id() == 31 and inclusive > 0:
            start = T.atomic_add(fill, c, inclusive)
        start = T.shfl_idx(start, 31)
        if flag == 1:
            p = edge_pos[c] + start + inclusive - 1
            new_adj[p] = new_id[keys[base + s]]
            new_w[p] = vals[base + s]
        r += step


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32, int32, int32[:], int32, int32[:], int32[:], int32[:], int32[:], float64[:]",
        intended_races=MERGE_RACES)
def merge_warp(ptr, adj, w, C, com, com_start, com_size, com_degree, cset, offset, count, primes, n_primes,
               edge_pos, fill, new_id, new_adj, new_w):
    """mergeCommunity (Naim et al., IPDPS 2017, Alg. 3 line 23), §4.1 first community group (degree sum 1–127):
    a warp per community, its table in shared memory."""
    keys = T.shared_array(MERGE_SLOTS, T.i32)
    vals = T.shared_array(MERGE_SLOTS, T.f64)
    lane = T.lane_id()
    base = T.warp_id() * MERGE_WARP_STRIDE
    first = T.block_id() * 4
    while first < count:
        c = -1
        size = 2
        if first + T.warp_id() < count:
            c = cset[offset + first + T.warp_id()]
            size = table_size(primes, n_primes, com_degree[c])
        clear_table(keys, vals, base, size, lane, 32)
        T.syncwarp()
        if c >= 0:
            hash_community(ptr, adj, w, C, com, com_start[c], com_size[c], keys, vals, base, size, lane, 32)
        T.syncwarp()
        if c >= 0:
            emit_edges(keys, vals, base, size, lane, 32, c, fill, edge_pos, new_id, new_adj, new_w)
        # equivalent barrier-removed: each lane emits, and next clears, only its own slots (lane, lane + 32, ...),
        # and the next community's hashing waits at the syncwarp after the clearing, which every lane reaches only
        # once it has emitted: this syncwarp orders no two lanes' accesses that the others do not.
        T.syncwarp()
        first += T.grid_size() * 4


@device
def merge_block(ptr, adj, w, C, com, com_start, com_size, com_degree, c, primes, n_primes, edge_pos, fill, new_id,
                new_adj, new_w, keys, vals, member_start):
    """mergeCommunity for one community on all threads of a block, its table the block's shared one (§4.1, second
    group)."""
    t = T.thread_id()
    size = table_size(primes, n_primes, com_degree[c])
    clear_table(keys, vals, 0, size, t, T.block_size())
    T.syncthreads()
    hash_community_edges(ptr, adj, w, C, com, member_start, com_start[c], com_size[c], keys, vals, 0, size, t,
                         T.block_size())
    T.syncthreads()
    emit_edges(keys, vals, 0, size, t, T.block_size(), c, fill, edge_pos, new_id, new_adj, new_w)
    # equivalent barrier-removed: thread t emits, and next clears, only the slots t, t + blockDim, ... of tables no
    # other block touches, and the next hashing waits at the barrier after the clearing, which every thread reaches
    # only once it has emitted: this barrier orders nothing the others do not.
    T.syncthreads()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32, int32, int32[:], int32, int32[:], int32[:], int32[:], int32[:], float64[:], int32[:]",
        intended_races=MERGE_RACES)
def merge_block_shared(ptr, adj, w, C, com, com_start, com_size, com_degree, cset, offset, count, primes, n_primes,
                       edge_pos, fill, new_id, new_adj, new_w, member_start):
    """mergeCommunity (Naim et al., IPDPS 2017, Alg. 3 line 23), degree sums 128–479: a block, shared table."""
    keys = T.shared_array(MERGE_SLOTS, T.i32)
    vals = T.shared_array(MERGE_SLOTS, T.f64)
    q = T.block_id()
    while q < count:
        merge_block(ptr, adj, w, C, com, com_start, com_size, com_degree, cset[offset + q], primes, n_primes,
                    edge_pos, fill, new_id, new_adj, new_w, keys, vals, member_start)
        q += T.grid_size()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32, int32, int32[:], int32, int32[:], int32[:], int32[:], int32[:], float64[:], int32[:], "
                  "float64[:], int32[:]", intended_races=CHUNK_MERGE_RACES)
def merge_block_global(ptr, adj, w, C, com, com_start, com_size, com_degree, cset, offset, count, primes, n_primes,
                       edge_pos, fill, new_id, new_adj, new_w, keys, vals, member_start):
    """mergeCommunity (Naim et al., IPDPS 2017, Alg. 3 line 23), degree sums 480–8192: a block, the table in global
    memory at ``3 edgePos[c] + 2 c`` (a prime above 1.5 d is below 3 d + 2), so all blocks work at once.  The edges
    are summed in a shared table first (:func:`hash_edges_through_shared`, as :func:`merge_chunks` does): most lead
    inside the community, each a global atomic add on its one slot otherwise."""
    chunk_keys = T.shared_array(MERGE_SLOTS, T.i32)
    chunk_vals = T.shared_array(MERGE_SLOTS, T.f64)
    q = T.block_id()
    while q < count:
        c = cset[offset + q]
        start = com_start[c]
        base = 3 * edge_pos[c] + 2 * c
        size = table_size(primes, n_primes, com_degree[c])
        clear_table(keys, vals, base, size, T.thread_id(), T.block_size())  # before the barrier that opens the hashing
        hash_edges_through_shared(ptr, adj, w, C, com, member_start, start, com_size[c], keys, vals, base, size,
                                  member_start[start], member_start[start + com_size[c]], chunk_keys, chunk_vals)
        emit_edges(keys, vals, base, size, T.thread_id(), T.block_size(), c, fill, edge_pos, new_id, new_adj, new_w)
        q += T.grid_size()


@kernel(signature="int32[:], int32[:], int32, int32, int32, int32[:]")
def count_chunks(com_degree, cset, offset, count, chunk, chunks):
    """How many blocks :func:`merge_chunks` gives each community of the last group: one per ``chunk`` edges."""
    q = T.gtid()
    while q < count:
        chunks[q] = (com_degree[cset[offset + q]] + chunk - 1) // chunk
        q += T.num_threads()


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], "
                  "int32, int32, int32[:], int32, int32[:], int32[:], int32[:], int32[:], float64[:], int32[:], "
                  "float64[:], int32[:], int32, int32[:], int32, int32", intended_races=CHUNK_MERGE_RACES)
def merge_chunks(ptr, adj, w, C, com, com_start, com_size, com_degree, cset, offset, count, primes, n_primes,
                 edge_pos, fill, new_id, new_adj, new_w, keys, vals, member_start, chunk, chunk_start, chunks, step):
    """mergeCommunity for the communities of more than ``chunk`` edges, several blocks each (gpusim's own step): block
    ``k`` takes the ``k``-th chunk (its community by binary search in ``chunk_start``), that is ``chunk`` of the
    community's flat-numbered edges and as large a share of its global table.  Launched three times, the kernel
    boundary standing for :func:`merge_block`'s barriers: ``step`` 0 clears the shares, 1 hashes the edges, 2 writes
    the entries out.  ``chunk`` is the group's lower bound: every community here has more edges.  Step 1 sums each
    chunk in a shared table first (:func:`hash_edges_through_shared`)."""
    chunk_keys = T.shared_array(MERGE_SLOTS, T.i32)
    chunk_vals = T.shared_array(MERGE_SLOTS, T.f64)
    k = T.block_id()
    while k < chunks:
        q = member_of(chunk_start, 0, count, k)
        c = cset[offset + q]
        parts = chunk_start[q + 1] - chunk_start[q]
        part = k - chunk_start[q]
        size = table_size(primes, n_primes, com_degree[c])
        base = 3 * edge_pos[c] + 2 * c
        share = (size + parts - 1) // parts
        lo = part * share
        slots = share
        if lo + slots > size:
            slots = size - lo
        if step == 0:
            clear_table(keys, vals, base + lo, slots, T.thread_id(), T.block_size())
        elif step == 1:
            start = com_start[c]
            first = member_start[start] + part * chunk
            end = member_start[start + com_size[c]]
            if first + chunk < end:
                end = first + chunk
            hash_edges_through_shared(ptr, adj, w, C, com, member_start, start, com_size[c], keys, vals, base, size,
                                      first, end, chunk_keys, chunk_vals)
        elif slots > 0:
            emit_edges(keys, vals, base + lo, slots, T.thread_id(), T.block_size(), c, fill, edge_pos, new_id,
                       new_adj, new_w)
        k += T.grid_size()


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32")
def scatter_counts(fill, new_id, com_size, new_count, n):
    """The new vertex ``newID[c]`` has ``fill[c]`` edges (then a prefix sum gives the packed offsets)."""
    c = T.gtid()
    while c < n:
        if com_size[c] > 0:
            new_count[new_id[c]] = fill[c]
        c += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32[:], int32[:], int32[:], float64[:], int32[:], float64[:], "
                  "int32")
def compact_edges(fill, edge_pos, new_id, com_size, new_ptr, new_adj, new_w, out_adj, out_w, n):
    """The compaction after Alg. 3 (§4, "compressed to fill consecutive slots"): each community's edges moved
    from ``edgePos[c]`` to the packed offset of its new vertex, by a warp: a thread a community took 12.7 ms
    over an R-MAT graph's levels on an H200 (a hub community's list is long), a warp 3.0 ms."""
    lane = T.lane_id()
    c = T.gtid() // 32
    while c < n:
        if com_size[c] > 0:
            target = new_ptr[new_id[c]]
            t = lane
            while t < fill[c]:
                out_adj[target + t] = new_adj[edge_pos[c] + t]
                out_w[target + t] = new_w[edge_pos[c] + t]
                t += 32
        c += T.num_threads() // 32


@kernel(signature="int32[:], int32[:], int32[:], int32")
def relabel(labels, C, new_id, n):
    """The dendrogram: an input vertex in vertex ``u`` of this level is in vertex ``newID[C[u]]`` of the next."""
    v = T.gtid()
    while v < n:
        labels[v] = new_id[C[labels[v]]]
        v += T.num_threads()
