"""computeMove (Naim et al., IPDPS 2017, Alg. 2) for the degrees up to 32 without a hash table, in ``T``.

§4.1 gives a vertex of degree at most 32 a group of 4, 8, 16 or 32 lanes and a hash table in shared memory.  With
an entry a lane, the lanes can instead learn their community's weight from each other by shuffles
(:func:`same_key_sum`), with no slot to clear, no compare-and-swap and no atomic addition:
:func:`move_by_shuffles`, the default (``kernels="shuffles"``), and :func:`move_by_counts` for an unweighted graph,
which counts keys where the weights would be added.  Both make :func:`~.kernels_move.move_subwarp`'s decisions.

>>> from gpusim.algorithms.louvain.kernels_shuffle import move_by_counts, move_by_shuffles
>>> move_by_counts.params == move_by_shuffles.params
True
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .hashing import group_best, score
from .kernels_move import choose

__all__ = ["lane_max", "move_by_counts", "move_by_shuffles", "same_key_count", "same_key_sum", "shuffle_move"]


@device
def lane_max(x, width):
    """The largest ``x`` of ``width`` aligned lanes, in every one of them (a butterfly of ``shfl_xor``)."""
    offset = width // 2
    while offset > 0:
        other = T.shfl_xor(x, offset)
        if other > x:
            x = other
        offset = offset // 2
    return x


@device
def same_key_sum(key, weight, first_lane, width):
    """The ``weight`` of the lanes ``first_lane ... first_lane + width - 1`` that hold this lane's ``key``, added in
    lane order (``width`` shuffles of each): every lane learns its key's total, with no table."""
    total = 0.0
    for q in range(width):
        other_key = T.shfl_idx(key, first_lane + q)
        other_weight = T.shfl_idx(weight, first_lane + q)
        if other_key == key:
            total += other_weight
    return total


@device
def same_key_count(key, first_lane, width):
    """:func:`same_key_sum` where every weight is 1: how many of the lanes hold this lane's ``key`` (``width``
    shuffles of the key alone, where a double's weight takes two more each)."""
    total = 0.0
    for q in range(width):
        if T.shfl_idx(key, first_lane + q) == key:
            total += 1.0
    return total


@device
def shuffle_move(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, m, gamma, width, unit):
    """:func:`move_by_shuffles` (``unit`` 0) and :func:`move_by_counts` (``unit`` 1: every weight is 1, not read)."""
    lane = T.lane_id() % width
    first_lane = T.lane_id() - lane
    per_block = T.block_size() // width
    first = T.block_id() * per_block
    while first < count:
        v = first + T.thread_id() // width
        i = -1
        c = -1
        weight = 0.0
        if v < count:
            i = vset[offset + v]
            e = ptr[i] + lane
            if e < ptr[i + 1] and adj[e] != i:  # a self-loop is left out, as in the tables
                c = C[adj[e]]
                if unit == 0:
                    weight = w[e]
        e_c = 0.0
        if unit == 1:
            e_c = same_key_count(c, first_lane, width)
        else:
            e_c = same_key_sum(c, weight, first_lane, width)
        own = -1
        ki = 0.0
        if i >= 0:
            own = C[i]
            ki = k[i]
        candidate = -1
        s = 0.0
        if c >= 0 and c != own:
            candidate = c
            s = score(e_c, ki, a[c], m, gamma)
        best = group_best(candidate, s, width)
        to_own = 0.0  # e_{i->c} of the lanes holding i's own community, and the best's (weights are >= 0: none, 0)
        to_best = 0.0
        if c >= 0 and c == own:
            to_own = e_c
        if c >= 0 and c == best:
            to_best = e_c
        to_own = lane_max(to_own, width)
        to_best = lane_max(to_best, width)
        if i >= 0 and lane == 0:
            choose(best, to_own, to_best, i, C, k, a, csize, m, gamma, new_comm)
        first += T.grid_size() * per_block


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64, int32, int32")
def move_by_shuffles(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma, width,
                     stride):
    """computeMove (Naim et al., IPDPS 2017, Alg. 2) for degrees up to ``width`` (4, 8, 16 or 32 lanes a vertex, an
    entry a lane: §4.1's groups one to four) with no table: lane ``q`` holds the community of ``i``'s ``q``-th
    neighbour, and ``e_{i->c}`` of its community is the weights of the lanes holding the same one, added in list
    order over ``width`` shuffles.  Where :func:`move_subwarp` clears a table, claims slots by CAS and adds weights by
    atomics (a compare-and-swap loop for a double in shared memory, and a slot all lanes add to once the neighbours
    share a community), this reads and shuffles.  The best community (:func:`~.hashing.group_best`) and the move
    (:func:`choose`) are :func:`move_subwarp`'s.  ``primes``, ``n_primes`` and ``stride`` are unused: the signature is
    :func:`move_subwarp`'s, so that either serves those groups
    (:class:`~gpusim.algorithms.louvain.variants.LouvainKernels`)."""
    shuffle_move(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, m, gamma, width, 0)


@kernel(signature="int32[:], int32[:], float64[:], int32[:], float64[:], float64[:], int32[:], int32[:], int32, "
                  "int32, int32[:], int32[:], int32, float64, float64, int32, int32")
def move_by_counts(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, primes, n_primes, m, gamma, width,
                   stride):
    """:func:`move_by_shuffles` for an unweighted graph (every weight 1, ``w`` not read): ``e_{i->c}`` is how many
    lanes hold ``c`` (:func:`same_key_count`), a third of the shuffles and no weight read an entry.  The same
    decisions: a count of ones is their sum, exactly."""
    shuffle_move(ptr, adj, w, C, k, a, csize, vset, offset, count, new_comm, m, gamma, width, 1)
