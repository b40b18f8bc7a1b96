"""Alg. 1 lines 8–11 (Naim et al., IPDPS 2017): a bucket's moves applied once all its vertices have chosen, in ``T``.

:func:`apply_moves` moves every vertex that chose another community and keeps the community totals up to date;
after a sweep that lowered modularity, :func:`mark_movers` and :func:`apply_independent_moves` let only a
conflict-free set of them move.  With vertex pruning both wake the movers' neighbours for the next sweep
(:func:`wake_neighbours`), and after a sweep that looked at few vertices :func:`inside_change` finds Eq. (1)'s new
sums from the movers' lists alone.

>>> from gpusim.algorithms.louvain.kernels_apply import priority
>>> priority.name
'priority'
"""

from __future__ import annotations

from gpusim import T, device, kernel

from .kernels_move import add_sums

__all__ = ["apply_independent_moves", "apply_moves", "apply_wide_independent_moves", "apply_wide_moves",
           "blocked_by_neighbour", "inside_change", "mark_movers", "mover_inside_change", "move_vertex", "priority",
           "vertex_at", "wake_neighbours"]


@device
def move_vertex(i, target, C, k, a, csize):
    """``C[i] = target``, and ``k_i`` and one member taken from the old community's totals and added to the new one's
    (atomics: movers of one bucket share communities)."""
    own = C[i]
    if target != own:
        C[i] = target
        T.atomic_add(a, own, -k[i])
        T.atomic_add(a, target, k[i])
        T.atomic_add(csize, own, -1)
        T.atomic_add(csize, target, 1)


@device
def wake_neighbours(ptr, adj, i, active, sweep):
    """Vertex pruning (Sahu 2025, GVE-Louvain §4.1.4; [16] too), this lane's share: each neighbour of the mover ``i``
    is looked at again from sweep ``sweep`` (``active[j] = max(active[j], sweep)``); the vertices no mover touches
    rest.  The warp's lanes take ``i``'s entries in turn."""
    e = ptr[i] + T.lane_id()
    while e < ptr[i + 1]:
        if adj[e] != i:
            T.atomic_max(active, adj[e], sweep)
        e += 32


@device
def vertex_at(vset, offset, count, v):
    """The bucket's ``v``-th vertex, or -1 past its end (a lane of a warp's last round)."""
    i = -1
    if v < count:
        i = vset[offset + v]
    return i


@kernel(signature="int32[:], int32[:], int32[:], int32, int32, int32[:], int32[:], float64[:], float64[:], int32[:], "
                  "int32[:], int32")
def apply_moves(ptr, adj, vset, offset, count, new_comm, C, k, a, csize, active, sweep):
    """Alg. 1 lines 8–11: ``C[i] = newComm[i]`` for the bucket's vertices, once all of them have chosen, and the
    totals ``a_c`` and sizes kept up to date by the movers alone (:func:`move_vertex`), where the paper sums them
    again over every vertex after each bucket (equal when the weights' sums are exact).  A thread per vertex; with
    pruning (``sweep > 0``) the warp's lanes then wake each of its movers' neighbours together for sweep ``sweep``
    (:func:`wake_neighbours`: a hub's list on 32 lanes, where a warp per vertex left 31 lanes idle at every vertex
    that stays)."""
    lane = T.lane_id()
    v = T.gtid()
    while v - lane < count:
        i = vertex_at(vset, offset, count, v)
        moves = 0
        if i >= 0 and new_comm[i] != C[i]:
            moves = 1
        if sweep > 0 and T.any(moves) == 1:
            for q in range(32):
                if T.shfl_idx(moves, q) == 1:
                    wake_neighbours(ptr, adj, T.shfl_idx(i, q), active, sweep)
        if moves == 1:
            move_vertex(i, new_comm[i], C, k, a, csize)
        v += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32, int32, int32[:], int32[:], float64[:], float64[:], int32[:], "
                  "int32[:], int32")
def apply_wide_moves(ptr, adj, vset, offset, count, new_comm, C, k, a, csize, active, sweep):
    """:func:`apply_moves` for the groups that move with a warp or more a vertex (degrees above 16), a warp per
    vertex: the warp's lanes wake a mover's neighbours together, then lane 0 moves it.  A thread a vertex left a warp to
    walk its 32 vertices' lists one after another: 3.3 ms of an R-MAT graph's second level on an H200, where one warp
    walked the lists of 32 hubs in turn."""
    v = T.gtid() // 32
    while v < count:
        i = vset[offset + v]
        moves = 0
        if T.lane_id() == 0 and new_comm[i] != C[i]:
            moves = 1
        if T.shfl_idx(moves, 0) == 1:  # lane 0 has read C[i] before it writes it
            if sweep > 0:
                wake_neighbours(ptr, adj, i, active, sweep)
            if T.lane_id() == 0:
                move_vertex(i, new_comm[i], C, k, a, csize)
        v += T.num_threads() // 32


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


@device
def blocked_by_neighbour(ptr, adj, i, moving, stamp, salt):
    """1 if this lane's share of ``i``'s neighbours holds one that also moves in this bucket (``moving[j] ==
    stamp``) with a higher :func:`priority` than ``i``'s."""
    mine = priority(i, salt)
    blocked = 0
    e = ptr[i] + T.lane_id()
    while e < ptr[i + 1]:
        j = adj[e]
        if j != i and moving[j] == stamp and priority(j, salt) > mine:
            blocked = 1
        e += 32
    return blocked


@kernel(signature="int32[:], int32[:], int32[:], int32, int32, int32[:], int32[:], float64[:], float64[:], int32[:], "
                  "int32[:], int32, int32, int32[:], int32")
def apply_independent_moves(ptr, adj, vset, offset, count, new_comm, C, k, a, csize, moving, stamp, salt, active,
                            sweep):
    """Conflict-free sweeps after a dip (:func:`~gpusim.algorithms.louvain.driver.gpu_louvain`'s
    ``dip_rule="independent"``): a mover moves only if no neighbour that also moves in this bucket has a higher
    :func:`priority` (one round of Luby's independent set among the movers; [16] colours the graph for the same
    end), so no two adjacent vertices decide on each other's stale community.  A thread per vertex, and the warp
    takes its movers in turn: the lanes look at the mover's neighbours (:func:`blocked_by_neighbour`), ``T.any``
    joins their verdicts, and the mover's own lane moves it (:func:`move_vertex`).  With pruning (``sweep > 0``)
    the lanes first wake the neighbours of every vertex that chose to move, blocked or not, as :func:`apply_moves`
    does."""
    lane = T.lane_id()
    v = T.gtid()
    while v - lane < count:
        i = vertex_at(vset, offset, count, v)
        mover = 0
        if i >= 0 and moving[i] == stamp:
            mover = 1
        free = 0
        if T.any(mover) == 1:
            for q in range(32):
                if T.shfl_idx(mover, q) == 1:
                    j = T.shfl_idx(i, q)
                    if sweep > 0:
                        wake_neighbours(ptr, adj, j, active, sweep)
                    if T.any(blocked_by_neighbour(ptr, adj, j, moving, stamp, salt)) == 0 and lane == q:
                        free = 1
        if free == 1:
            move_vertex(i, new_comm[i], C, k, a, csize)
        v += T.num_threads()


@kernel(signature="int32[:], int32[:], int32[:], int32, int32, int32[:], int32[:], float64[:], float64[:], int32[:], "
                  "int32[:], int32, int32, int32[:], int32")
def apply_wide_independent_moves(ptr, adj, vset, offset, count, new_comm, C, k, a, csize, moving, stamp, salt, active,
                                 sweep):
    """:func:`apply_independent_moves` for the groups of :func:`apply_wide_moves`, a warp per vertex (as
    :func:`apply_wide_moves`): the lanes wake a mover's neighbours and look at them for a mover of higher priority
    together, then lane 0 moves it if none is."""
    v = T.gtid() // 32
    while v < count:
        i = vset[offset + v]
        mover = 0
        if T.lane_id() == 0 and moving[i] == stamp:
            mover = 1
        if T.shfl_idx(mover, 0) == 1:
            if sweep > 0:
                wake_neighbours(ptr, adj, i, active, sweep)
            if T.any(blocked_by_neighbour(ptr, adj, i, moving, stamp, salt)) == 0 and T.lane_id() == 0:
                move_vertex(i, new_comm[i], C, k, a, csize)
        v += T.num_threads() // 32


@device
def mover_inside_change(ptr, adj, w, before, C, i, unit):
    """This lane's share of what the mover ``i``'s entries add to Eq. (1)'s inside weight in a sweep that took the
    partition ``before`` to ``C``: an entry ``(i, j)`` adds ``w_ij`` if ``i`` and ``j`` now share a community and did
    not, and takes it if they shared one and no longer do; twice when ``j`` stayed, as its entry ``(j, i)`` is walked
    by no one (a self-loop's never changes)."""
    was = before[i]
    now = C[i]
    change = 0.0
    e = ptr[i] + T.lane_id()
    while e < ptr[i + 1]:
        j = adj[e]
        joined = 0
        if C[j] == now:
            joined = 1
        left = 0
        if before[j] == was:
            left = 1
        if joined != left:
            weight = 1.0
            if unit == 0:
                weight = w[e]
            if before[j] == C[j]:
                weight = 2.0 * weight
            change += (joined - left) * weight
        e += 32
    return change


@kernel(signature="int32[:], int32[:], float64[:], int32[:], int32[:], float64[:], float64[:], int32, int32, int32[:], "
                  "int32")
def inside_change(ptr, adj, w, before, C, a, sums, n, unit, counts, n_counts):
    """Eq. (1)'s sums after a sweep from the movers alone: ``sums[0] +=`` the change of the inside weight from the
    partition ``before`` (the sweep's start) to ``C`` (:func:`mover_inside_change`), ``sums[1] += sum_c a_c^2``, where
    :func:`~.kernels_move.modularity_terms` reads every entry again.  A thread per vertex; the warp walks each of its
    movers' lists together (for a level with no hub: one lane would walk a hub's list alone).  ``unit`` 1: every weight
    is 1, not read.  The next sweep's group sizes ride along (:func:`~.kernels_move.add_sums`)."""
    lane = T.lane_id()
    v = T.gtid()
    change = 0.0
    squares = 0.0
    while v - lane < n:
        moved = 0
        if v < n:
            squares += a[v] * a[v]
            if before[v] != C[v]:
                moved = 1
        if T.any(moved) == 1:
            for q in range(32):
                if T.shfl_idx(moved, q) == 1:
                    change += mover_inside_change(ptr, adj, w, before, C, T.shfl_idx(v, q), unit)
        v += T.num_threads()
    add_sums(change, squares, sums, counts, n_counts)
