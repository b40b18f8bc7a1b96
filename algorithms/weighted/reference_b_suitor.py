"""b-matching, run sequentially: the greedy b-matching and b-Suitor (Khan et al. 2016; Manne et al. (CSC 2016) §3).

Examples
--------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], [4.0, 3.0, 2.0, 1.0])
>>> b_suitor(g, 2).partners.tolist() == greedy_b_matching(g, 2).partners.tolist()
True
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from gpusim.types.graphs import WeightedGraph

from .reference_common import check_graph, edge_order
from .result import BMatchingResult, b_capacities, b_matching_result, suitor_pairs

__all__ = ["b_suitor", "greedy_b_matching"]


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _b_suitor(ptr, sadj, sw, b, slot_ptr, s_id, s_w, count):  # pragma: no cover - compiled
    """b-Suitor, sequential (Khan et al. 2016; Manne et al. (CSC 2016) §3).

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


def greedy_b_matching(graph: WeightedGraph, b: Any, *, max_memory: int | None = None) -> BMatchingResult:
    """The greedy b-matching: heaviest edge first while both ends have room (1/2-approximation).

    Edges of positive weight are scanned in the order of :func:`greedy` (decreasing
    ``(w, max(u, v), min(u, v))``); an edge is taken when each end ``x`` has fewer than ``b[x]``
    chosen edges.  With ``b = 1`` this is :func:`greedy`.

    Parameters
    ----------
    graph : WeightedGraph
    b : int or array_like of int
        The capacity of every vertex (a scalar), or of each (length n); non-negative.
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
    J. Mestre, "Greedy in approximation algorithms", ESA 2006.  Manne et al. (CSC 2016) §3 (greedy b-matching as a
    many-to-many stable assignment).

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
    graph = check_graph(graph)
    bb = b_capacities(graph, b, max_memory)
    u, v, _, order = edge_order(graph)
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
    b : int or array_like of int
        The capacity of every vertex (a scalar), or of each (length n); non-negative.
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
    that Manne et al. (CSC 2016) §3.1 relates to many-to-many stable assignment ("a vertex v will accept the
    b(v) best offers at any given time"), in its eager (McVitie-Wilson) form.

    References
    ----------
    A. Khan, A. Pothen, M. M. A. Patwary, N. Satish, N. Sundaram, F. Manne, M. Halappanavar and
    P. Dubey, "Efficient approximation algorithms for weighted b-matching", SIAM J. Sci. Comput.
    38(5), 2016.  Manne et al. (CSC 2016) §3 and §3.1.

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
    graph = check_graph(graph)
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
    x, v = suitor_pairs(graph, s_id, np.diff(slot_ptr), "b_suitor")
    stats = {"algorithm": "b_suitor", "proposals": int(proposals), "displacements": int(displacements)}
    return b_matching_result(graph, bb, x, v, stats)
