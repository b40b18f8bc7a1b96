"""Sequential references for weighted matching and b-matching, compiled with Numba.

These are the CPU baselines and oracles' partners of the GPU weighted-matching algorithms of seeds
003 (Naim, Paper I: Locally-Dominant and Suitor) and 002 (Hovland: ROMA on complete graphs):

* half-approximations on a :class:`~gpusim.types.graphs.WeightedGraph`: :func:`greedy`,
  :func:`suitor`, :func:`locally_dominant` (all three give *the same* matching),
  :func:`path_growing` (PGA') and :func:`gpa` (Global Paths Algorithm);
* b-matching: :func:`greedy_b_matching` and :func:`b_suitor` (the same b-matching);
* 4-cycle augmentation on complete graphs given as dense ``n x n`` weight matrices:
  :func:`rama` and :func:`roma` (seed 002, Alg. 2-5), from a :func:`start_matching`;
* :func:`exact_maximum_weight`, NetworkX's blossom algorithm, the oracle on small graphs.

Each public function checks its input and calls a private ``numba.njit`` function on plain
arrays; the private functions never validate.  A matching is an int32 array ``mate`` with
``mate[v]`` the partner of ``v`` or ``-1``, as in seed 003, Paper I.

The tie rule
------------
Edges are ranked by the key ``(w, max(u, v), min(u, v))``, compared lexicographically, larger
first.  Greedy scans edges in decreasing key order.  Seen from one vertex ``x`` this order ranks
its neighbours by ``(w(x, y), y)``: *the heavier neighbour first, and among equal weights the
larger vertex id*.  That local rule is what Suitor, Locally-Dominant and b-Suitor use, both to
choose whom to propose to and to decide which of two suitors wins (a suitor ``u`` beats ``s`` at
``v`` when ``(w(u, v), u) > (w(s, v), s)``).  Because the local rules are induced by one global
order, the greedy matching is the unique stable matching of the derived instance (seed 003,
Paper IV, Lemma 3.1) and all three algorithms return it exactly.

Zero-weight edges are never matched by any algorithm here (as if absent, like a zero entry of
a Matrix Market file): Suitor's "no offer yet" is weight 0 (Paper I, Alg. 3, ``ws[u] <- 0``),
and a GPU packing ``(weight key, id)`` into a uint64 may keep 0 as its "no offer" sentinel.
They add nothing to the weight, so every approximation guarantee holds unchanged.

Examples
--------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])   # path 0-1-2-3
>>> [f(g).mate.tolist() for f in (greedy, suitor, locally_dominant)]
[[-1, 2, 1, -1], [-1, 2, 1, -1], [-1, 2, 1, -1]]
>>> path_growing(g).weight, exact_maximum_weight(g).weight
(2.0, 2.0)
"""

from __future__ import annotations

import math
import reprlib
from typing import Any, NamedTuple

import numba
import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument, InvalidArgumentType
from gpusim.types.check import check_mate, check_weighted_matching, checked_output
from gpusim.types.complete_graphs import (
    check_int,
    check_memory,
    check_seed,
    check_weight_matrix,
    dense_bytes,
    dense_matching_weight,
)
from gpusim.types.graphs import WeightedGraph

from .weighted_result import BMatchingResult, b_capacities, b_matching_result

__all__ = [
    "BMatchingResult",
    "START_KINDS",
    "WeightedMatchingResult",
    "b_suitor",
    "exact_maximum_weight",
    "gpa",
    "greedy",
    "greedy_b_matching",
    "locally_dominant",
    "path_growing",
    "rama",
    "roma",
    "start_matching",
    "suitor",
]

#: The start matchings of seed 002 that :func:`start_matching` builds.
START_KINDS = ("i,i+1", "i,i+n/2", "shuffled", "greedy", "gpa")


class WeightedMatchingResult(NamedTuple):
    """A matching, its weight, and the counters of the run that found it.

    Attributes
    ----------
    mate : ndarray of int32, length ``n``
        ``mate[v]``: the vertex matched to ``v``, or -1.  Symmetric: ``mate[mate[v]] == v``.
    weight : float
        Total weight of the matched edges, summed with ``math.fsum`` (exactly rounded, so equal
        matchings have equal weights bit for bit).
    stats : dict
        ``"algorithm"``, ``"size"`` (matched pairs) and per-algorithm counters; see each function.
    """

    mate: np.ndarray
    weight: float
    stats: dict


# ----------------------------------------------------------------------------------------------
# Compiled kernels (private: arrays already checked; output arrays are filled in place)


@numba.njit(cache=False)
def _greedy(eu, ev, order, mate):  # pragma: no cover - compiled
    """Seed 002, Alg. 1: take edges in ``order`` (decreasing key) whose ends are both free."""
    size = 0
    for k in range(order.shape[0]):
        e = order[k]
        u = eu[e]
        v = ev[e]
        if mate[u] == -1 and mate[v] == -1:
            mate[u] = v
            mate[v] = u
            size += 1
    return size


@numba.njit(cache=False)
def _suitor(ptr, adj, w, suitor, ws):  # pragma: no cover - compiled
    """Seed 003, Paper I, Alg. 3 run sequentially: ``suitor[v]`` is the best offer ``v`` holds.

    Returns the number of proposals made.
    """
    n = ptr.shape[0] - 1
    proposals = 0
    for u in range(n):
        current = u
        while current != -1:
            partner = -1
            heaviest = 0.0
            for k in range(ptr[current], ptr[current + 1]):
                v = adj[k]
                wt = w[k]
                # current prefers (wt, v) to its best so far; v prefers (wt, current) to its suitor
                if wt > heaviest or (wt == heaviest and wt > 0.0 and v > partner):
                    s = suitor[v]
                    if s == -1 or wt > ws[v] or (wt == ws[v] and current > s):
                        partner = v
                        heaviest = wt
            nxt = -1
            if partner != -1:
                nxt = suitor[partner]  # the displaced suitor, -1 if none: it looks for another partner
                suitor[partner] = current
                ws[partner] = heaviest
                proposals += 1
            current = nxt
    return proposals


@numba.njit(cache=False)
def _ld_process(s, ptr, adj, w, mate, candidate, queue, tail):  # pragma: no cover - compiled
    """Seed 003, Paper I, Alg. 2 (ProcessVertex): point ``s`` at its heaviest free neighbour.

    Appends ``s`` and its candidate to ``queue`` when they point at each other; returns the new tail.
    """
    best = -1
    best_w = 0.0
    for k in range(ptr[s], ptr[s + 1]):
        t = adj[k]
        wt = w[k]
        if mate[t] == -1 and (wt > best_w or (wt == best_w and wt > 0.0 and t > best)):
            best = t
            best_w = wt
    candidate[s] = best
    if best != -1 and candidate[best] == s:
        mate[s] = best
        mate[best] = s
        queue[tail] = s
        queue[tail + 1] = best
        tail += 2
    return tail


@numba.njit(cache=False)
def _locally_dominant(ptr, adj, w, mate):  # pragma: no cover - compiled
    """Seed 003, Paper I, Alg. 1 run sequentially.  Returns ``(rounds, processed)``."""
    n = ptr.shape[0] - 1
    # candidate[v]: v's heaviest free neighbour when v was last processed, -1 if none
    candidate = np.full(n, -1, np.int32)
    # qc: vertices matched in the previous round (Q_C); qn: those matched in this round (Q_N)
    qc = np.empty(n, np.int32)
    qn = np.empty(n, np.int32)
    nc = 0
    processed = n
    for v in range(n):
        nc = _ld_process(v, ptr, adj, w, mate, candidate, qc, nc)
    rounds = 0
    while nc > 0:
        rounds += 1
        nn = 0
        for i in range(nc):
            u = qc[i]
            for k in range(ptr[u], ptr[u + 1]):
                v = adj[k]
                # v pointed at u, which is now matched: v looks again (if still free)
                if candidate[v] == u and mate[v] == -1:
                    nn = _ld_process(v, ptr, adj, w, mate, candidate, qn, nn)
                    processed += 1
        qc, qn = qn, qc
        nc = nn
    return rounds, processed


@numba.njit(cache=False)
def _greedy_b(eu, ev, order, b, deg, chosen):  # pragma: no cover - compiled
    """Greedy b-matching: take edges in ``order`` while both ends have room.  Returns the count."""
    size = 0
    for k in range(order.shape[0]):
        e = order[k]
        u = eu[e]
        v = ev[e]
        if deg[u] < b[u] and deg[v] < b[v]:
            deg[u] += 1
            deg[v] += 1
            chosen[size] = e
            size += 1
    return size


@numba.njit(cache=False)
def _b_suitor(ptr, sadj, sw, b, slot_ptr, s_id, s_w, count):  # pragma: no cover - compiled
    """b-Suitor, sequential (Khan et al. 2016; seed 003, Paper IV §3).

    ``sadj``/``sw``: each adjacency list sorted by decreasing ``(w, id)``.  ``s_id``/``s_w`` hold,
    in slots ``slot_ptr[v]..slot_ptr[v + 1]``, the suitors of ``v`` (at most ``b[v]``), ``count[v]``
    of them.  Returns ``(proposals, displacements)``.
    """
    n = ptr.shape[0] - 1
    # nxt[u]: next position of u's sorted list to try; every earlier neighbour holds u's offer
    # or has refused u for good (a full suitor set only gets better offers)
    nxt = np.empty(n, np.int64)
    for u in range(n):
        nxt[u] = ptr[u]
    # made[u]: u's offers currently held by some vertex (at most b[u])
    made = np.zeros(n, np.int64)
    stack = np.empty(n, np.int32)
    on_stack = np.zeros(n, np.bool_)
    proposals = 0
    displacements = 0
    for u0 in range(n):
        stack[0] = u0
        on_stack[u0] = True
        top = 1
        while top > 0:
            top -= 1
            x = stack[top]
            on_stack[x] = False
            while made[x] < b[x] and nxt[x] < ptr[x + 1]:
                k = nxt[x]
                nxt[x] += 1
                v = sadj[k]
                wt = sw[k]
                if wt <= 0.0:
                    break  # sorted: only zero-weight edges are left
                cap = slot_ptr[v + 1] - slot_ptr[v]
                if cap == 0:
                    continue
                if count[v] < cap:
                    j = slot_ptr[v] + count[v]
                    count[v] += 1
                    s_id[j] = x
                    s_w[j] = wt
                    made[x] += 1
                    proposals += 1
                    continue
                # full: find v's worst suitor, the smallest (weight, id)
                j = slot_ptr[v]
                for i in range(slot_ptr[v] + 1, slot_ptr[v + 1]):
                    if s_w[i] < s_w[j] or (s_w[i] == s_w[j] and s_id[i] < s_id[j]):
                        j = i
                if wt > s_w[j] or (wt == s_w[j] and x > s_id[j]):
                    y = s_id[j]
                    s_id[j] = x
                    s_w[j] = wt
                    made[x] += 1
                    made[y] -= 1
                    proposals += 1
                    displacements += 1
                    if not on_stack[y]:
                        stack[top] = y
                        on_stack[y] = True
                        top += 1
    return proposals, displacements


@numba.njit(cache=False)
def _path_dp(pw, n_vertices, f, take):  # pragma: no cover - compiled
    """Maximum-weight matching of a path of ``n_vertices`` with edge weights ``pw``: its value.

    ``f[i]``: best weight using the first ``i`` edges; ``take[i]``: edge ``i - 1`` is in it.
    """
    f[0] = 0.0
    take[0] = False
    if n_vertices < 2:
        return 0.0
    f[1] = pw[0]
    take[1] = True
    for i in range(2, n_vertices):
        with_edge = f[i - 2] + pw[i - 1]
        if with_edge > f[i - 1]:
            f[i] = with_edge
            take[i] = True
        else:
            f[i] = f[i - 1]
            take[i] = False
    return f[n_vertices - 1]


@numba.njit(cache=False)
def _path_commit(path, n_vertices, take, mate):  # pragma: no cover - compiled
    """Match the edges that :func:`_path_dp` chose (backtracking from the end).  Returns their count."""
    size = 0
    i = n_vertices - 1
    while i >= 1:
        if take[i]:
            a = path[i - 1]
            c = path[i]
            mate[a] = c
            mate[c] = a
            size += 1
            i -= 2
        else:
            i -= 1
    return size


@numba.njit(cache=False)
def _path_growing(ptr, adj, w, mate):  # pragma: no cover - compiled
    """PGA' (Drake & Hougardy; seed 002 §3.3.2): grow paths, then match each one optimally.

    Returns ``(paths, size)``: the number of paths with at least one edge and of matched pairs.
    """
    n = ptr.shape[0] - 1
    # visited[v]: v lies on a path already (PGA removes it from the graph)
    visited = np.zeros(n, np.bool_)
    path = np.empty(n, np.int32)
    pw = np.empty(max(n, 1), np.float64)
    f = np.empty(n + 1, np.float64)
    take = np.empty(n + 1, np.bool_)
    paths = 0
    size = 0
    for s in range(n):
        if visited[s]:
            continue
        visited[s] = True
        path[0] = s
        length = 1
        cur = s
        while True:
            best = -1
            best_w = 0.0
            for k in range(ptr[cur], ptr[cur + 1]):
                t = adj[k]
                wt = w[k]
                if not visited[t] and (wt > best_w or (wt == best_w and wt > 0.0 and t > best)):
                    best = t
                    best_w = wt
            if best == -1:
                break
            visited[best] = True
            pw[length - 1] = best_w
            path[length] = best
            length += 1
            cur = best
        if length >= 2:
            paths += 1
            _path_dp(pw, length, f, take)
            size += _path_commit(path, length, take, mate)
    return paths, size


@numba.njit(cache=False)
def _find(parent, x):  # pragma: no cover - compiled
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:  # path compression
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@numba.njit(cache=False)
def _gpa(n, eu, ev, ew, order, mate):  # pragma: no cover - compiled
    """GPA (Maue & Sanders; seed 002 §3.3.3).  Returns ``(paths, cycles, size)``."""
    # nb[2v], nb[2v + 1]: v's (at most two) neighbours in the path/cycle set; nbw their weights
    nb = np.full(2 * n, -1, np.int32)
    nbw = np.zeros(2 * n, np.float64)
    deg = np.zeros(n, np.int32)
    # union-find over the paths; edges[root]: the number of edges of root's path
    parent = np.arange(n).astype(np.int32)
    edges = np.zeros(n, np.int64)
    for k in range(order.shape[0]):
        e = order[k]
        u = eu[e]
        v = ev[e]
        if deg[u] >= 2 or deg[v] >= 2:
            continue
        ru = _find(parent, u)
        rv = _find(parent, v)
        if ru == rv:
            # u and v are the two ends of one path: applicable only if it closes an even cycle
            if edges[ru] % 2 == 0:
                continue
            edges[ru] += 1
        else:
            parent[rv] = ru
            edges[ru] += edges[rv] + 1
        nb[2 * u + deg[u]] = v
        nbw[2 * u + deg[u]] = ew[e]
        deg[u] += 1
        nb[2 * v + deg[v]] = u
        nbw[2 * v + deg[v]] = ew[e]
        deg[v] += 1
    # dynamic programming on every path, then on every (even) cycle
    done = np.zeros(n, np.bool_)
    path = np.empty(max(n, 1), np.int32)
    pw = np.empty(max(n, 1), np.float64)
    f = np.empty(n + 1, np.float64)
    take = np.empty(n + 1, np.bool_)
    paths = 0
    cycles = 0
    size = 0
    for s in range(n):
        if done[s] or deg[s] == 2:
            continue
        length = _walk(s, nb, nbw, done, path, pw)
        if length >= 2:
            paths += 1
            _path_dp(pw, length, f, take)
            size += _path_commit(path, length, take, mate)
    for s in range(n):
        if done[s]:
            continue
        length = _walk(s, nb, nbw, done, path, pw)  # a cycle path[0..length-1], closing edge pw[length-1]
        cycles += 1
        # either the closing edge (path[-1], path[0]) is unmatched: a path on all vertices;
        # or it is matched: its ends are taken and path[1..length-2] is matched as a path
        open_value = _path_dp(pw, length, f, take)
        closed_value = pw[length - 1] + _path_dp(pw[1:], length - 2, f, take)
        if closed_value > open_value:
            a = path[length - 1]
            c = path[0]
            mate[a] = c
            mate[c] = a
            size += 1 + _path_commit(path[1:], length - 2, take, mate)
        else:
            _path_dp(pw, length, f, take)
            size += _path_commit(path, length, take, mate)
    return paths, cycles, size


@numba.njit(cache=False)
def _walk(s, nb, nbw, done, path, pw):  # pragma: no cover - compiled
    """Follow the path or cycle of degree-<=2 vertices from ``s``; ``pw[i]`` joins path[i], path[i+1]."""
    length = 1
    path[0] = s
    done[s] = True
    prev = -1
    cur = s
    while True:
        step = -1
        for slot in range(2):
            t = nb[2 * cur + slot]
            if t != -1 and t != prev and not done[t]:
                step = slot
                break
        if step == -1:
            # a cycle closes back to s: record the closing edge's weight after the last vertex
            for slot in range(2):
                if nb[2 * cur + slot] == s and length > 2:
                    pw[length - 1] = nbw[2 * cur + slot]
            return length
        t = nb[2 * cur + step]
        pw[length - 1] = nbw[2 * cur + step]
        path[length] = t
        length += 1
        done[t] = True
        prev = cur
        cur = t


@numba.njit(cache=False)
def _best_flip(w, mate, u, threshold):  # pragma: no cover - compiled
    """Seed 002, Alg. 5 without the flip: the best 4-cycle at matched edge ``(u, mate[u])``.

    Returns ``(gain, a, b)``: flipping makes ``a`` the mate of ``u`` and ``b`` that of ``mate[u]``;
    ``a == -1`` when no flip gains more than ``threshold``.
    """
    n = w.shape[0]
    v = mate[u]
    base = w[u, v]
    gain = 0.0
    a = -1
    b = -1
    for x in range(n):
        y = mate[x]
        if x != u and x != v and x < y:
            current = base + w[x, y]
            w1 = w[u, x] + w[v, y]
            w2 = w[u, y] + w[v, x]
            if w1 > w2 and w1 - current > gain:
                gain = w1 - current
                a = x
                b = y
            elif w2 - current > gain:
                gain = w2 - current
                a = y
                b = x
    if gain > threshold:
        return gain, a, b
    return gain, -1, -1


@numba.njit(cache=False)
def _augment_phase(w, mate, order, threshold):  # pragma: no cover - compiled
    """One phase of RAMA/ROMA: seed 002, Alg. 5 (aug) then Alg. 4 (flip) at each vertex of ``order``."""
    flips = 0
    for i in range(order.shape[0]):
        u = order[i]
        gain, a, b = _best_flip(w, mate, u, threshold)
        if a != -1:
            v = mate[u]
            mate[u] = a
            mate[a] = u
            mate[v] = b
            mate[b] = v
            flips += 1
    return flips


@numba.njit(cache=False)
def _has_flip(w, mate, threshold):  # pragma: no cover - compiled
    """Whether some matched edge has a 4-cycle flip of gain above ``threshold``."""
    n = w.shape[0]
    for u in range(n):
        if u < mate[u]:
            gain, a, b = _best_flip(w, mate, u, threshold)
            if a != -1:
                return True
    return False


# ----------------------------------------------------------------------------------------------
# Argument checks and helpers


def _check_graph(graph: Any) -> WeightedGraph:
    if not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(
            f"graph must be a gpusim.types.graphs.WeightedGraph, got graph={reprlib.repr(graph)} of type "
            f"{type(graph).__name__}; build one with WeightedGraph.from_edges, from_scipy or load_graph"
        )
    return graph


def _edge_order(graph: WeightedGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each edge once (u < v) and the positive-weight ones in decreasing ``(w, v, u)`` order."""
    u, v, w = graph.edges()
    order = np.lexsort((u, v, w))[::-1]
    order = order[w[order] > 0].astype(np.int64)
    return u, v, w, order


def _result(graph: WeightedGraph, mate: np.ndarray, stats: dict) -> WeightedMatchingResult:
    """Validate the matching against ``graph`` (:func:`gpusim.types.check.check_weighted_matching`), count
    pairs and take the weight the validator recomputed from the graph's weights."""
    weight = checked_output(stats["algorithm"], graph, check_weighted_matching, graph, mate)
    stats = {"algorithm": stats["algorithm"], "size": int(np.count_nonzero(mate >= 0)) // 2, **stats}
    return WeightedMatchingResult(mate.astype(np.int32, copy=False), weight, stats)


# ----------------------------------------------------------------------------------------------
# Half-approximations on general graphs


def greedy(graph: WeightedGraph) -> WeightedMatchingResult:
    """The greedy matching: heaviest edge first, ties broken by vertex id (a 1/2-approximation).

    Edges of positive weight are scanned in decreasing order of the key
    ``(w, max(u, v), min(u, v))`` (lexicographic); an edge is matched when both its ends are
    still free.  This is the reference that :func:`suitor` and :func:`locally_dominant` (and the
    GPU Suitor) must equal exactly; see the module docstring for why this tie rule makes them equal.

    Parameters
    ----------
    graph : WeightedGraph

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``; ``stats`` has ``algorithm`` and ``size``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a :class:`~gpusim.types.graphs.WeightedGraph`.

    Notes
    -----
    O(m log m) time (``numpy.lexsort`` of the edges), O(m) memory.  The result is maximal among
    positive-weight edges and weighs at least half the optimum: each matched edge is at least as
    heavy as the (at most two) optimal edges it blocks.

    References
    ----------
    Seed 002 (Hovland, MSc thesis 2020), §3.3.1 and Alg. 1; seed 003 (Naim, PhD thesis 2017),
    Paper IV §3 (the greedy matching, unique under a consistent tie rule).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 1.0])   # a triangle, all ties
    >>> greedy(g).mate.tolist()      # key (1, 2, 1) of edge {1, 2} is the largest
    [-1, 2, 1]
    >>> greedy(WeightedGraph.from_edges([], [])).mate.tolist()
    []
    """
    graph = _check_graph(graph)
    u, v, _, order = _edge_order(graph)
    mate = np.full(graph.n, -1, np.int32)
    _greedy(u, v, order, mate)
    return _result(graph, mate, {"algorithm": "greedy"})


def suitor(graph: WeightedGraph) -> WeightedMatchingResult:
    """The Suitor algorithm, run sequentially: equal to :func:`greedy` exactly.

    Every vertex ``u`` in id order proposes to its best neighbour ``v`` (largest ``(w(u, v), v)``)
    whose current suitor it beats (``(w(u, v), u) > (ws[v], suitor[v])``); ``u`` becomes
    ``v``'s suitor and the vertex it displaces, if any, proposes again in turn.  At the end
    ``suitor`` is symmetric and is the matching.  Zero-weight edges never carry a proposal.

    Parameters
    ----------
    graph : WeightedGraph

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``; ``stats`` has ``algorithm``, ``size`` and ``proposals``
        (successful proposals, displaced ones included).

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a :class:`~gpusim.types.graphs.WeightedGraph`.

    Notes
    -----
    O(sum over u of deg(u)^2) = O(m Delta) time in the worst case, as the paper states: a vertex
    rescans its whole list each time it is displaced.  The loop starts each search from weight 0,
    as the sequential Suitor of Manne and Halappanavar; Alg. 3's ``heaviest <- ws[current]``
    shortcut and the locks of OMP-Suitor are not needed sequentially.  Suitor is McVitie-Wilson's
    stable marriage algorithm on a general graph (Paper IV §3.1).

    References
    ----------
    F. Manne and M. Halappanavar, "New effective multithreaded matching algorithms", IPDPS 2014.
    Seed 003 (Naim, PhD thesis 2017), Paper I, §2.2 and Alg. 3; Paper IV §3.1.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [3.0, 4.0, 3.0])
    >>> r = suitor(g)
    >>> r.mate.tolist(), r.weight, r.stats["proposals"]
    ([-1, 2, 1, -1], 4.0, 3)
    >>> suitor(WeightedGraph.from_edges([], [], n=2)).mate.tolist()
    [-1, -1]
    """
    graph = _check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    ws = np.zeros(graph.n, np.float64)
    proposals = _suitor(graph.ptr, graph.adj, graph.weights, mate, ws)
    return _result(graph, mate, {"algorithm": "suitor", "proposals": int(proposals)})


def locally_dominant(graph: WeightedGraph) -> WeightedMatchingResult:
    """The Locally-Dominant algorithm, run sequentially: equal to :func:`greedy` exactly.

    Every vertex points at its heaviest free neighbour (``candidate``, ties to the larger id,
    zero-weight edges ignored); two vertices pointing at each other form a locally dominant edge
    and are matched.  Then, round by round, the free neighbours that pointed at a vertex matched
    in the previous round look again (Alg. 1 lines 8-13), until a round matches nothing.

    Parameters
    ----------
    graph : WeightedGraph

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``; ``stats`` has ``algorithm``, ``size``, ``rounds`` (iterations of
        the while loop that had vertices to look at) and ``processed`` (calls of ProcessVertex).

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a :class:`~gpusim.types.graphs.WeightedGraph`.

    Notes
    -----
    O(n + m Delta) time, as the paper states: a vertex rescans its list each time its candidate
    gets matched.  The vertices re-processed are only the *free* neighbours whose candidate was
    matched (the check ``mate[v] = none`` is implicit in the paper: a matched ``v`` points at its
    mate).  Preis showed that matching dominant edges gives the greedy matching.

    References
    ----------
    M. Halappanavar et al., "Approximate weighted matching on emerging manycore and multithreaded
    architectures", IJHPCA 2012.  Seed 003 (Naim, PhD thesis 2017), Paper I, §2.1, Alg. 1 and 2.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [3.0, 4.0, 3.0])
    >>> r = locally_dominant(g)
    >>> r.mate.tolist(), r.stats["rounds"]
    ([-1, 2, 1, -1], 1)
    >>> locally_dominant(WeightedGraph.from_edges([], [])).weight
    0.0
    """
    graph = _check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    rounds, processed = _locally_dominant(graph.ptr, graph.adj, graph.weights, mate)
    return _result(graph, mate, {"algorithm": "locally_dominant", "rounds": int(rounds),
                                 "processed": int(processed)})


def path_growing(graph: WeightedGraph) -> WeightedMatchingResult:
    """PGA': the Path Growing Algorithm with an optimal matching of each path (1/2-approximation).

    From every vertex not yet on a path, in id order, grow a path: step along the heaviest
    positive-weight edge (ties to the larger id) to a vertex on no path, and repeat from there
    until no such edge is left.  PGA would take the heavier of the odd and even edges of each
    path; PGA' takes a maximum-weight matching of each path by dynamic programming
    (``f[i] = max(f[i-1], f[i-2] + w_i)``), which is never lighter.

    Parameters
    ----------
    graph : WeightedGraph

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``; ``stats`` has ``algorithm``, ``size`` and ``paths`` (paths with
        at least one edge).

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a :class:`~gpusim.types.graphs.WeightedGraph`.

    Notes
    -----
    O(n + m) time: each vertex's list is scanned once, when the path reaches it.  The
    dynamic program prefers leaving an edge out on equal values.

    References
    ----------
    D. E. Drake and S. Hougardy, "A simple approximation algorithm for the weighted matching
    problem", IPL 85, 2003; J. Maue and P. Sanders, "Engineering algorithms for approximate
    weighted matching", WEA 2007 (PGA').  Seed 002 (Hovland, MSc thesis 2020), §3.3.2.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [3.0, 4.0, 3.0])   # path 0-1-2-3
    >>> r = path_growing(g)     # the path grows 0-1-2-3; the DP takes both 3's
    >>> r.mate.tolist(), r.weight, r.stats["paths"]
    ([1, 0, 3, 2], 6.0, 1)
    >>> path_growing(WeightedGraph.from_edges([], [])).stats["size"]
    0
    """
    graph = _check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    paths, _ = _path_growing(graph.ptr, graph.adj, graph.weights, mate)
    return _result(graph, mate, {"algorithm": "path_growing", "paths": int(paths)})


def gpa(graph: WeightedGraph) -> WeightedMatchingResult:
    """GPA, the Global Paths Algorithm of Maue and Sanders (1/2-approximation).

    Scan the positive-weight edges in greedy order (decreasing ``(w, max, min)``, as
    :func:`greedy`) and keep every *applicable* edge: one that joins two ends of different
    paths, or the two ends of one path with an odd number of edges (closing an even cycle).
    The kept edges form vertex-disjoint paths and even cycles; each gets a maximum-weight
    matching by dynamic programming (a cycle twice: with its closing edge left out, and with it
    taken).

    Parameters
    ----------
    graph : WeightedGraph

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``; ``stats`` has ``algorithm``, ``size``, ``paths`` and ``cycles``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a :class:`~gpusim.types.graphs.WeightedGraph`.

    Notes
    -----
    O(m log m) time, dominated by the sort (as Greedy); union-find with path compression
    decides whether two ends lie on one path.  Maue and Sanders recommend it as the start of
    ROMA (see :func:`start_matching`).

    References
    ----------
    J. Maue and P. Sanders, "Engineering algorithms for approximate weighted matching",
    WEA 2007.  Seed 002 (Hovland, MSc thesis 2020), §3.3.3.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [3.0, 4.0, 3.0])
    >>> r = gpa(g)
    >>> r.mate.tolist(), r.weight
    ([1, 0, 3, 2], 6.0)
    >>> square = WeightedGraph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [1.0, 1.0, 1.0, 1.0])
    >>> gpa(square).stats["cycles"], gpa(square).stats["size"]
    (1, 2)
    >>> gpa(WeightedGraph.from_edges([], [])).mate.tolist()
    []
    """
    graph = _check_graph(graph)
    u, v, w, order = _edge_order(graph)
    mate = np.full(graph.n, -1, np.int32)
    paths, cycles, _ = _gpa(graph.n, u, v, w, order, mate)
    return _result(graph, mate, {"algorithm": "gpa", "paths": int(paths), "cycles": int(cycles)})


def exact_maximum_weight(graph: WeightedGraph) -> WeightedMatchingResult:
    """A maximum-weight matching, by NetworkX's blossom algorithm: the oracle on small graphs.

    Parameters
    ----------
    graph : WeightedGraph

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``; ``stats`` has ``algorithm`` (``"networkx"``) and ``size``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a :class:`~gpusim.types.graphs.WeightedGraph`.

    Notes
    -----
    ``networkx.max_weight_matching(G, maxcardinality=False)``: pure Python, O(n^3); fine up to a
    few thousand edges.  It may match zero-weight edges (they change nothing).

    References
    ----------
    J. Edmonds, "Paths, trees, and flowers", 1965; Z. Galil, "Efficient algorithms for finding
    maximum matching in graphs", ACM Computing Surveys 18(1), 1986 (NetworkX's implementation).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [3.0, 4.0, 3.0])
    >>> exact_maximum_weight(g).weight
    6.0
    >>> exact_maximum_weight(WeightedGraph.from_edges([], [])).mate.tolist()
    []
    """
    import networkx as nx

    graph = _check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    for a, c in nx.max_weight_matching(graph.to_networkx(), maxcardinality=False):
        mate[a] = c
        mate[c] = a
    return _result(graph, mate, {"algorithm": "networkx"})


# ----------------------------------------------------------------------------------------------
# b-matching


def greedy_b_matching(graph: WeightedGraph, b: Any, *, max_memory: int | None = None) -> BMatchingResult:
    """The greedy b-matching: heaviest edge first while both ends have room (1/2-approximation).

    Edges of positive weight are scanned in the order of :func:`greedy` (decreasing
    ``(w, max(u, v), min(u, v))``); an edge is taken when each end ``x`` has fewer than ``b[x]``
    chosen edges.  With ``b = 1`` this is :func:`greedy`.

    Parameters
    ----------
    graph : WeightedGraph
    b : int or array_like of int, length n
        The capacity of every vertex (a scalar), or of each; non-negative.
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the partners table would take more bytes (default
        half the memory available).

    Returns
    -------
    BMatchingResult
        ``(partners, weight, stats)``: ``partners[v]`` lists ``v``'s partners in increasing id
        order, padded with -1 (see :class:`BMatchingResult`); ``stats`` has ``algorithm`` and
        ``size`` (chosen edges).

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a WeightedGraph; ``b`` is a bool, a float or holds non-integers.
    InvalidArgument
        ``b`` is negative, or an array of the wrong length or shape.

    Notes
    -----
    O(m log m) time.  The weight is at least half that of a maximum-weight b-matching (Mestre).

    References
    ----------
    J. Mestre, "Greedy in approximation algorithms", ESA 2006.  Seed 003 (Naim, PhD thesis
    2017), Paper IV §3 (greedy b-matching as a many-to-many stable assignment).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], [4.0, 3.0, 2.0, 1.0])
    >>> r = greedy_b_matching(g, 2)
    >>> r.partners.tolist(), r.weight
    ([[1, 2], [0, 2], [0, 1], [-1, -1]], 8.0)
    >>> greedy_b_matching(g, [1, 0, 1, 1]).partners.tolist()
    [[2], [-1], [0], [-1]]
    >>> greedy_b_matching(WeightedGraph.from_edges([], []), 3).partners.shape
    (0, 0)
    """
    graph = _check_graph(graph)
    bb = b_capacities(graph, b, max_memory)
    u, v, _, order = _edge_order(graph)
    deg = np.zeros(graph.n, np.int64)
    chosen = np.empty(order.shape[0], np.int64)
    size = _greedy_b(u, v, order, bb, deg, chosen)
    chosen = chosen[:size]
    return b_matching_result(graph, bb, u[chosen], v[chosen], {"algorithm": "greedy_b_matching"})


def b_suitor(graph: WeightedGraph, b: Any, *, max_memory: int | None = None) -> BMatchingResult:
    """b-Suitor, run sequentially: equal to :func:`greedy_b_matching` exactly.

    Every vertex ``v`` holds at most ``b[v]`` suitors, its best offers so far.  Each vertex
    ``u``, in id order, proposes to its best neighbours (largest ``(w(u, v), v)`` first) until
    ``b[u]`` of its offers are held: ``v`` accepts while it has room, and when full replaces its
    worst suitor (smallest ``(w, id)``) by ``u`` if ``(w(u, v), u)`` is larger; the displaced
    vertex then proposes again.  At the end ``u`` holds an offer of ``v`` exactly when ``v``
    holds one of ``u``: these pairs are the b-matching.

    Parameters
    ----------
    graph : WeightedGraph
    b : int or array_like of int, length n
        The capacity of every vertex (a scalar), or of each; non-negative.
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the partners table would take more bytes (default
        half the memory available).

    Returns
    -------
    BMatchingResult
        ``(partners, weight, stats)`` (see :func:`greedy_b_matching`); ``stats`` also has
        ``proposals`` and ``displacements``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a WeightedGraph; ``b`` is a bool, a float or holds non-integers.
    InvalidArgument
        ``b`` is negative, or an array of the wrong length or shape.
    GpusimInternalError
        The suitor sets ended asymmetric (a bug in gpusim).

    Notes
    -----
    Each list is sorted once by decreasing ``(w, id)`` (O(m log m)) and scanned with a pointer
    that never moves back: a full suitor set only ever gets better offers, so a refusal, or a
    displacement, is final.  Finding a full vertex's worst suitor scans its ``b[v]`` slots:
    O(m log m + m b_max) time in all.  This is the Gale-Shapley style *b*-matching algorithm
    that Paper IV §3.1 relates to many-to-many stable assignment ("a vertex v will accept the
    b(v) best offers at any given time"), in its eager (McVitie-Wilson) form.

    References
    ----------
    A. Khan, A. Pothen, M. M. A. Patwary, N. Satish, N. Sundaram, F. Manne, M. Halappanavar and
    P. Dubey, "Efficient approximation algorithms for weighted b-matching", SIAM J. Sci. Comput.
    38(5), 2016.  Seed 003 (Naim, PhD thesis 2017), Paper IV §3 and §3.1.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], [4.0, 3.0, 2.0, 1.0])
    >>> r = b_suitor(g, 2)
    >>> r.partners.tolist(), r.weight
    ([[1, 2], [0, 2], [0, 1], [-1, -1]], 8.0)
    >>> b_suitor(g, 1).partners.tolist() == greedy_b_matching(g, 1).partners.tolist()
    True
    >>> b_suitor(WeightedGraph.from_edges([], [], n=1), 2).partners.tolist()
    [[]]
    """
    graph = _check_graph(graph)
    bb = b_capacities(graph, b, max_memory)
    n = graph.n
    ptr = graph.ptr.astype(np.int64)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    # within each list: decreasing weight, then decreasing id (lexsort's last key is primary)
    order = np.lexsort((-graph.adj.astype(np.int64), -graph.weights, src))
    sadj = graph.adj[order]
    sw = graph.weights[order]
    caps = np.minimum(bb, np.diff(ptr))
    slot_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(caps, out=slot_ptr[1:])
    s_id = np.full(int(slot_ptr[-1]), -1, np.int32)
    s_w = np.zeros(int(slot_ptr[-1]), np.float64)
    count = np.zeros(n, np.int64)
    proposals, displacements = _b_suitor(ptr, sadj, sw, caps, slot_ptr, s_id, s_w, count)
    # the pairs (suitor x, vertex v); each edge of the b-matching appears once from each side
    v_of_slot = np.repeat(np.arange(n, dtype=np.int64), np.diff(slot_ptr))
    used = s_id >= 0
    x, v = s_id[used].astype(np.int64), v_of_slot[used]
    fwd = np.sort(x * n + v)
    bwd = np.sort(v * n + x)
    if not np.array_equal(fwd, bwd):
        raise GpusimInternalError(f"b_suitor ended with asymmetric suitor sets on {graph!r}")
    keep = x < v
    return b_matching_result(graph, bb, x[keep], v[keep],
                     {"algorithm": "b_suitor", "proposals": int(proposals), "displacements": int(displacements)})


# ----------------------------------------------------------------------------------------------
# 4-cycle augmentation on complete graphs (seed 002, §3.5)


def _check_pad(pad: Any) -> bool:
    if not isinstance(pad, (bool, np.bool_)):
        raise InvalidArgumentType(f"pad must be a bool, got pad={pad!r} of type {type(pad).__name__}")
    return bool(pad)


def _complete_graph(w: np.ndarray) -> WeightedGraph:
    n = w.shape[0]
    iu, iv = np.triu_indices(n, 1)
    return WeightedGraph.from_edges(iu, iv, w[iu, iv], n)


def _complete(mate: np.ndarray) -> np.ndarray:
    """Pair the unmatched vertices in increasing id order (seed 002 §3.5: any pairing will do)."""
    free = np.flatnonzero(mate == -1)
    mate[free[0::2]] = free[1::2]
    mate[free[1::2]] = free[0::2]
    return mate


def start_matching(n: int, kind: str, weights: Any = None, seed: int = 0, *, max_memory: int | None = None
                   ) -> np.ndarray:
    """A perfect start matching for :func:`rama` and :func:`roma`, as seed 002 builds them.

    ==============  ======================================================================
    ``kind``        matching
    ==============  ======================================================================
    ``"i,i+1"``     ``2i <-> 2i + 1`` (the thesis's first, "neighbour matching")
    ``"i,i+n/2"``   ``i <-> i + n/2`` (the "n/2-matching", §5.5.5)
    ``"shuffled"``  ``i <-> n/2 + p[i]`` for a random permutation ``p`` of the second half
                    (the "shuffled matching", §5.5.7), from ``default_rng(seed)``
    ``"greedy"``    :func:`greedy` on the complete graph of ``weights``, completed
    ``"gpa"``       :func:`gpa` on the complete graph of ``weights``, completed
    ==============  ======================================================================

    "Completed": vertices left unmatched (their edges all have weight 0) are paired in
    increasing id order, as the thesis allows (§3.5).

    Parameters
    ----------
    n : int
        Number of vertices: even, ``>= 0``.
    kind : str
        One of :data:`START_KINDS`.
    weights : array_like, shape (n, n), optional
        Symmetric non-negative weights; required by ``"greedy"`` and ``"gpa"``, checked when given.
    seed : int
        Seed for ``"shuffled"`` (default 0); ignored otherwise.
    max_memory : int, optional
        ``"greedy"`` and ``"gpa"`` refuse (``InvalidArgument``) when the complete graph's edge
        list would take more bytes (default half the memory available).

    Returns
    -------
    ndarray of int32, length n
        A perfect matching: ``mate[mate[v]] == v != mate[v]`` for every ``v``.

    Raises
    ------
    InvalidArgument
        ``n`` odd or negative; an unknown ``kind``; ``weights`` missing for ``"greedy"`` or
        ``"gpa"``, malformed, or not ``n x n``.

    Notes
    -----
    ``"greedy"`` and ``"gpa"`` build the complete graph's edge list: O(n^2 log n) time and
    O(n^2) memory, more than a ROMA phase; the others take O(n).

    References
    ----------
    Seed 002 (Hovland, MSc thesis 2020), §3.5, §5.5.5 and §5.5.7 (start matchings), §3.3.3
    and §5.6.2 (GPA or Greedy before ROMA).

    Examples
    --------
    >>> start_matching(4, "i,i+1").tolist(), start_matching(4, "i,i+n/2").tolist()
    ([1, 0, 3, 2], [2, 3, 0, 1])
    >>> w = np.array([[0, 1, 5, 1], [1, 0, 1, 1], [5, 1, 0, 1], [1, 1, 1, 0]], float)
    >>> start_matching(4, "greedy", w).tolist()
    [2, 3, 0, 1]
    >>> start_matching(0, "gpa", np.zeros((0, 0))).tolist()
    []
    """
    n = check_int("n", n)
    if not isinstance(kind, str) or kind not in START_KINDS:
        raise InvalidArgument(f"kind={kind!r} is not one of {list(START_KINDS)!r}")
    seed = check_seed(seed)
    if n % 2:
        raise InvalidArgument(f"n={n} is odd: a perfect matching needs an even number of vertices "
                              "(rama and roma take pad=True to add a zero-weight dummy vertex)")
    w = None
    if weights is not None:
        w = check_weight_matrix("weights", weights)
        if w.shape[0] != n:
            raise InvalidArgument(f"weights has shape {w.shape} but n={n}")
    if kind in ("greedy", "gpa") and w is None:
        raise InvalidArgument(f"kind={kind!r} needs the weights: start_matching(n, {kind!r}, weights)")
    if kind in ("greedy", "gpa"):
        check_memory(augmentation_bytes(n, kind) - augmentation_bytes(n, "i,i+1"), max_memory,
                     f"start_matching({n}, {kind!r}): the complete graph's edge list")
    return _start(n, kind, w, seed)


def _start(n: int, kind: str, w: np.ndarray | None, seed: int) -> np.ndarray:
    """:func:`start_matching` on checked arguments (``n`` even; ``w`` given for greedy and gpa)."""
    half = n // 2
    if kind == "i,i+1":
        return (np.arange(n) ^ 1).astype(np.int32)
    if kind == "i,i+n/2":
        return ((np.arange(n) + half) % max(n, 1)).astype(np.int32)
    if kind == "shuffled":
        second = half + np.random.default_rng(seed).permutation(half)
        mate = np.empty(n, np.int64)
        mate[:half] = second
        mate[second] = np.arange(half)
        return mate.astype(np.int32)
    graph = _complete_graph(w)
    mate = (greedy if kind == "greedy" else gpa)(graph).mate.astype(np.int64)
    return _complete(mate).astype(np.int32)


class AugmentationInput(NamedTuple):
    """Checked arguments of a 4-cycle augmentation: the (padded) weights and a perfect start matching."""

    weights: np.ndarray  # size x size, float64
    mate: np.ndarray  # int32, perfect
    n: int  # vertices before padding
    padded: bool
    threshold: float
    max_phases: int | None
    seed: int


def augmentation_bytes(n: int, mate: Any, on_device: bool = False) -> int:
    """Bytes RAMA and ROMA allocate on ``n`` vertices, at most: the dense float64 matrix and its
    padded copy, the GPU ROMA's device copy, and for a ``"greedy"`` or ``"gpa"`` start the
    complete graph's edge list (about six matrices more).

    >>> augmentation_bytes(200_000, "i,i+1") / 2**30
    596.0464477539062
    """
    size = n + n % 2
    start = 6 if isinstance(mate, str) and mate in ("greedy", "gpa") else 0
    return dense_bytes(size, 2 + int(on_device) + start)


def prepare_augmentation(weights: Any, mate: Any, threshold: Any, max_phases: Any, pad: Any,
                         seed: Any, max_memory: int | None = None, on_device: bool = False) -> AugmentationInput:
    """Check the arguments of RAMA / ROMA (sequential or GPU), the memory they need against
    ``max_memory`` (:func:`gpusim.types.complete_graphs.check_memory`), pad odd n, build the start matching."""
    w = check_weight_matrix("weights", weights)
    n = w.shape[0]
    check_memory(augmentation_bytes(n, mate, on_device), max_memory,
                 f"a 4-cycle augmentation (RAMA/ROMA) on {n} vertices, with its dense {n} x {n} weight matrix")
    pad = _check_pad(pad)
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, float, np.integer, np.floating)):
        raise InvalidArgumentType(f"threshold must be a real number, got threshold={threshold!r} "
                                  f"of type {type(threshold).__name__}")
    threshold = float(threshold)
    if not (math.isfinite(threshold) and threshold >= 0):
        raise InvalidArgument(f"threshold={threshold!r} must be finite and >= 0 (a flip must gain more than it)")
    if max_phases is not None:
        max_phases = check_int("max_phases", max_phases, 0, None)
    seed = check_seed(seed)
    padded = n % 2 == 1
    if padded and not pad:
        raise InvalidArgument(f"weights is {n} x {n} with n odd: a complete graph has a perfect matching only for "
                              "even n; pass pad=True to add a dummy vertex whose edges all weigh 0 (seed 002 §5.1)")
    size = n + 1 if padded else n
    if padded:
        w = np.pad(w, ((0, 1), (0, 1)))
    if isinstance(mate, str):
        if mate not in START_KINDS:
            raise InvalidArgument(f"mate={mate!r} is neither a matching array nor one of {list(START_KINDS)!r}")
        start = _start(size, mate, w, seed).astype(np.int64)
    else:
        given = check_mate("mate", mate, n)
        start = np.full(size, -1, np.int64)
        start[:n] = given
        start = _complete(start)
    return AugmentationInput(w, start.astype(np.int32), n, padded, threshold, max_phases, seed)


def unpad(mate: np.ndarray, n: int, padded: bool) -> np.ndarray:
    """The matching of the ``n`` real vertices: the partner of the dummy vertex becomes -1."""
    if padded:
        mate = mate.copy()
        mate[mate == n] = -1
        mate = mate[:n]
    return mate


def _augmentation(name: str, weights: Any, mate: Any, threshold: Any, max_phases: Any, pad: Any, seed: Any,
                  order: str, max_memory: int | None) -> WeightedMatchingResult:
    """RAMA and ROMA: checks, padding, the phase loop, the stats, the validation."""
    w, m, n, padded, threshold, max_phases, seed = prepare_augmentation(weights, mate, threshold, max_phases, pad,
                                                                         seed, max_memory)
    size = w.shape[0]
    rng = np.random.default_rng(seed)
    phase_weights = [dense_matching_weight(w, m)]
    phase_swaps: list[int] = []
    converged = size == 0
    while not converged and (max_phases is None or len(phase_swaps) < max_phases):
        if name == "rama":
            visit = rng.integers(0, size, size).astype(np.int32)
        elif order == "random":
            visit = rng.permutation(size).astype(np.int32)
        else:
            visit = np.arange(size, dtype=np.int32)
        flips = int(_augment_phase(w, m, visit, threshold))
        phase_swaps.append(flips)
        phase_weights.append(dense_matching_weight(w, m))
        if flips == 0:
            # ROMA visited every vertex without a flip; RAMA's random draws may have missed one
            converged = name == "roma" or not _has_flip(w, m, threshold)
    m = unpad(m, n, padded)
    stats = {"algorithm": name, "size": int(np.count_nonzero(m >= 0)) // 2, "phases": len(phase_swaps),
             "phase_weights": phase_weights, "phase_swaps": phase_swaps, "converged": bool(converged),
             "threshold": threshold, "seed": seed, "padded": padded}
    if name == "roma":
        stats["order"] = order
    checked_output(name, f"the {n} x {n} complete graph", check_weighted_matching, w[:n, :n], m)
    return WeightedMatchingResult(m, phase_weights[-1], stats)


def rama(weights: Any, mate: Any, threshold: float = 1e-5, max_phases: int | None = None, *,
         pad: bool = False, seed: int = 0, max_memory: int | None = None) -> WeightedMatchingResult:
    """RAMA with 4-cycle augmentation on a complete graph (seed 002, Alg. 2, 4 and 5).

    Each step augments a vertex ``u`` drawn uniformly at random (with replacement): among all
    other matched edges ``(x, y)``, find the flip of ``{(u, v), (x, y)}`` to ``{(u, x), (v, y)}``
    or ``{(u, y), (v, x)}`` of largest gain, and flip if the gain exceeds ``threshold``.  A
    *phase* is ``n`` steps (the thesis's ``l = k / n``).  After a phase without a flip, a full
    scan of all matched edges decides whether the matching has converged (RAMA's draws may miss
    a vertex, so a quiet phase alone proves nothing).

    Parameters
    ----------
    weights : array_like, shape (n, n)
        Symmetric, finite, non-negative; the diagonal is not read.
    mate : array_like of int, length n, or str
        The start matching: ``mate[v]`` the partner of ``v`` or -1 (unmatched vertices are then
        paired in id order), or a ``kind`` of :func:`start_matching`.  Never modified.
    threshold : float
        A flip must gain strictly more (default 1e-5, the thesis's; 0 runs to a local optimum).
    max_phases : int, optional
        Stop after this many phases (the thesis used 8); ``None`` (default): until convergence.
    pad : bool
        For odd ``n``: add a dummy vertex whose edges weigh 0 (default False: odd ``n`` raises).
        The vertex paired with the dummy gets ``mate = -1`` in the result.
    seed : int
        Seed of ``numpy.random.default_rng`` for the draws (and for ``mate="shuffled"``).
    max_memory : int, optional
        Refuse (``InvalidArgument``, before allocating) when the padded copy and the start
        matching's temporaries (:func:`augmentation_bytes`) would take more bytes; default half
        the memory available (:func:`gpusim.types.complete_graphs.check_memory`).

    Returns
    -------
    WeightedMatchingResult
        ``(mate, weight, stats)``: ``mate`` is perfect (but for the dummy's partner);
        ``stats`` has ``algorithm``, ``size``, ``phases``, ``phase_weights`` (the weight of the
        start matching, then after each phase: never decreasing), ``phase_swaps`` (flips in each
        phase), ``converged`` (no flip gains more than ``threshold``), ``threshold``, ``seed``
        and ``padded``.

    Raises
    ------
    InvalidArgumentType
        Non-numeric ``weights`` or ``threshold``; ``mate`` not integers; ``pad`` not a bool.
    InvalidArgument
        ``weights`` not square, not symmetric, with a NaN, infinite or negative entry; odd ``n``
        without ``pad``; a malformed ``mate`` or unknown kind; negative ``threshold``,
        ``max_phases`` or ``seed``.

    Notes
    -----
    A step costs O(n) (Alg. 5 scans every vertex), a phase O(n^2).  Each flip raises the exact
    weight (``fl(a + b) > fl(c + d)`` implies ``a + b > c + d``), so the phase weights, summed
    with ``math.fsum``, never decrease and the loop ends.

    The input is a complete graph (seed 002's setting): every pair of distinct vertices is an
    edge, those of weight 0 included, and the result is a perfect matching of it.  For a sparse
    graph, :func:`gpusim.algorithms.weighted.maximum_weight_matching` runs RAMA on its dense
    matrix (non-edges weigh 0) and then drops the pairs that are not edges of the graph.

    A perfect matching with no positive flip weighs at least *half* the optimum (an optimal edge
    ``{x, y}`` weighs at most ``w(x, mate[x]) + w(y, mate[y])``, else flipping those two matched
    edges would gain).  The 2/3 - epsilon guarantee of RAMA and ROMA is for general
    2-augmentations (Pettie and Sanders), which also remove a matched edge at each end of a path;
    4-cycle flips alone do not give it: on six vertices with matched edges ``ab, cd, ef`` of
    weight 1, edges ``bc, de, fa`` of weight 2 and all others 0, no flip gains and the gap to
    optimality is 1/2.

    References
    ----------
    S. Pettie and P. Sanders, "A simpler linear time 2/3 - epsilon approximation for maximum
    weight matching", IPL 91, 2004.  Seed 002 (Hovland, MSc thesis 2020), §3.3.4, §3.5, Alg. 2,
    4 and 5.

    Examples
    --------
    >>> w = np.array([[0, 1, 4, 1], [1, 0, 1, 4], [4, 1, 0, 1], [1, 4, 1, 0]], float)
    >>> r = rama(w, "i,i+1", threshold=0.0)
    >>> r.mate.tolist(), r.weight, r.stats["phase_weights"][0], r.stats["converged"]
    ([2, 3, 0, 1], 8.0, 2.0, True)
    >>> rama(np.zeros((0, 0)), []).mate.tolist()
    []
    """
    return _augmentation("rama", weights, mate, threshold, max_phases, pad, seed, "random", max_memory)


def roma(weights: Any, mate: Any, threshold: float = 1e-5, max_phases: int | None = None, *,
         pad: bool = False, seed: int = 0, order: str = "random", max_memory: int | None = None
         ) -> WeightedMatchingResult:
    """ROMA with 4-cycle augmentation on a complete graph (seed 002, Alg. 3, 4 and 5).

    Each phase augments every vertex once (see :func:`rama` for one augmentation), in a fresh
    random order (``order="random"``, Alg. 3) or in id order (``order="fixed"``, the order in
    which the thesis's parallel ROMA assigns vertices to threads).  The loop stops after a phase
    with no flip (convergence: no flip gains more than ``threshold``) or after ``max_phases``.

    Parameters
    ----------
    weights : array_like, shape (n, n)
        Symmetric, finite, non-negative; the diagonal is not read.
    mate : array_like of int, length n, or str
        The start matching (see :func:`rama`).  Never modified.
    threshold : float
        A flip must gain strictly more (default 1e-5, the thesis's).
    max_phases : int, optional
        Stop after this many phases; ``None`` (default): until convergence.
    pad : bool
        For odd ``n``: add a zero-weight dummy vertex (see :func:`rama`).
    seed : int
        Seed of ``numpy.random.default_rng`` for the orders (and ``mate="shuffled"``).
    order : {"random", "fixed"}
        The order of the vertices within a phase.
    max_memory : int, optional
        As :func:`rama`.

    Returns
    -------
    WeightedMatchingResult
        As :func:`rama`; ``stats`` also has ``order``.  The last phase of a converged run has 0 swaps.

    Raises
    ------
    InvalidArgument
        As :func:`rama`; an unknown ``order``.

    Notes
    -----
    O(n^2) per phase, as the thesis's sequential ROMA (Table 5.1: doubling n costs ~4x).
    Unlike RAMA, a quiet phase proves convergence, since every vertex was tried.

    References
    ----------
    J. Maue and P. Sanders, "Engineering algorithms for approximate weighted matching",
    WEA 2007.  Seed 002 (Hovland, MSc thesis 2020), §3.3.5, §3.5, Alg. 3, 4 and 5, §5.4.

    Examples
    --------
    >>> w = np.array([[0, 1, 4, 1], [1, 0, 1, 4], [4, 1, 0, 1], [1, 4, 1, 0]], float)
    >>> r = roma(w, "i,i+1", order="fixed")
    >>> r.mate.tolist(), r.stats["phase_weights"], r.stats["phase_swaps"]
    ([2, 3, 0, 1], [2.0, 8.0, 8.0], [1, 0])
    >>> roma(np.ones((3, 3)) - np.eye(3), [-1, -1, -1], pad=True).mate.tolist()
    [1, 0, -1]
    >>> roma(np.zeros((0, 0)), "i,i+1").weight
    0.0
    """
    if not isinstance(order, str) or order not in ("random", "fixed"):
        raise InvalidArgument(f"order={order!r} must be 'random' or 'fixed'")
    return _augmentation("roma", weights, mate, threshold, max_phases, pad, seed, order, max_memory)
