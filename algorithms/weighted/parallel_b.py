"""The CPU engine's b-Suitor: locally-dominant b-matching rounds on every core (the greedy b-matching).

The b-matching analogue of :mod:`~gpusim.algorithms.weighted.parallel_ld`: in a round every vertex ``x`` with
room (``b[x]`` minus its chosen edges) picks its ``room`` best eligible neighbours (the other end has room,
the edge is not chosen yet, its weight is positive), by the tie rule of
:mod:`~gpusim.algorithms.weighted.reference_common`, from one snapshot; an edge picked from both ends is
chosen, each end marking its own CSR entry.  Such an edge has fewer than ``b`` heavier greedy edges at
either end (the chosen ones and the heavier eligible ones, fewer than ``room``), so the greedy b-matching
holds it; the heaviest eligible edge is always picked from both ends, so the rounds end, with
:func:`~gpusim.algorithms.weighted.reference_b_suitor.greedy_b_matching`: b-Suitor's answer.

References
----------
A. Khan, A. Pothen, M. M. A. Patwary, N. Satish, N. Sundaram, F. Manne, M. Halappanavar and P. Dubey,
"Efficient approximation algorithms for weighted b-matching", SIAM J. Sci. Comput. 38(5), 2016
(b-Suitor and its locally-dominant predecessor).  Manne et al. (CSC 2016) §3.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> parallel_b_matching(g, 2).partners.tolist()
[[1, -1], [0, 2], [1, 3], [2, -1]]
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from gpusim.runtime.threads import engine_threads
from gpusim.types.graphs import WeightedGraph

from .parallel_ld import PARALLEL, PARALLEL_FROM
from .reference_b_suitor import b_suitor
from .reference_common import check_graph
from .result import BMatchingResult, b_capacities, b_matching_result

__all__ = ["parallel_b_matching"]


@numba.njit(cache=True)
def _sort_lists(ptr, adj, w):  # pragma: no cover - compiled
    """Each list's entries (CSR positions) by decreasing ``(w, id)``, the lists sorted in parallel."""
    n = ptr.shape[0] - 1
    order = np.empty(adj.shape[0], np.int64)
    for x in range(n):
        lo = ptr[x]
        hi = ptr[x + 1]
        if hi > lo:
            # ids decreasing first (a list is in increasing id order), then a stable sort by decreasing weight
            rev = np.empty(hi - lo, np.int64)
            key = np.empty(hi - lo, np.float64)
            for i in range(hi - lo):
                rev[i] = hi - 1 - i
                key[i] = -w[hi - 1 - i]
            perm = np.argsort(key, kind="mergesort")
            for i in range(hi - lo):
                order[lo + i] = rev[perm[i]]
    return order


@numba.njit(cache=True)
def _pick(x, ptr, adj, w, order, room, in_m, nxt, top, top_ptr):  # pragma: no cover - compiled
    """``x``'s ``room[x]`` best eligible entries (other end has room, not yet matched, weight > 0) into
    ``top[top_ptr[x]:]`` (-1 padded); moves ``nxt[x]`` past a prefix that can never be eligible again."""
    want = room[x]
    got = 0
    j = nxt[x]
    prefix = True
    base = top_ptr[x]
    while got < want and j < ptr[x + 1]:
        k = order[j]
        if w[k] <= 0.0:
            j = ptr[x + 1]
            break
        t = adj[k]
        if t != x and room[t] > 0 and not in_m[k]:
            top[base + got] = k
            got += 1
            prefix = False
        elif prefix:
            nxt[x] = j + 1
        j += 1
    for i in range(got, top_ptr[x + 1] - base):
        top[base + i] = -1
    if got == 0:
        nxt[x] = ptr[x + 1]   # nothing eligible is left: x is done
    return got


@numba.njit(cache=True)
def _points_at(y, x, adj, top, top_ptr):  # pragma: no cover - compiled
    """Whether ``y``'s chosen entries include one to ``x``."""
    for i in range(top_ptr[y], top_ptr[y + 1]):
        k = top[i]
        if k == -1:
            return False
        if adj[k] == x:
            return True
    return False


@numba.njit(cache=True)
def _mark(x, picked, adj, top, top_ptr, in_m):  # pragma: no cover - compiled
    """Mark ``x``'s picked entries whose other end picked ``x`` too; return how many."""
    gained = 0
    for j in range(top_ptr[x], top_ptr[x] + picked):
        k = top[j]
        if _points_at(adj[k], x, adj, top, top_ptr):
            in_m[k] = True
            gained += 1
    return gained


@numba.njit(parallel=PARALLEL, cache=False)
def _b_rounds(ptr, adj, w, order, b, in_m):  # pragma: no cover - compiled
    """Locally-dominant b-matching rounds; marks ``in_m[k]`` for both entries of every chosen edge.
    Returns ``(rounds, processed)``."""
    n = ptr.shape[0] - 1
    room = np.empty(n, np.int64)
    top_ptr = np.zeros(n + 1, np.int64)
    nxt = np.empty(n, np.int64)
    n_live = 0
    for v in range(n):
        room[v] = min(b[v], ptr[v + 1] - ptr[v])
        top_ptr[v + 1] = top_ptr[v] + room[v]
        nxt[v] = ptr[v]
        if room[v] > 0:
            n_live += 1
    top = np.full(max(top_ptr[n], 1), -1, np.int64)
    live = np.empty(n_live, np.int64)
    n_live = 0
    for v in range(n):
        if room[v] > 0:
            live[n_live] = v
            n_live += 1
    rounds = 0
    processed = 0
    while live.shape[0] > 0:
        size = live.shape[0]
        processed += size
        got = np.zeros(size, np.int64)
        for i in numba.prange(size):            # 1: each live vertex picks its room best eligible entries
            got[i] = _pick(live[i], ptr, adj, w, order, room, in_m, nxt, top, top_ptr)
        gained = np.zeros(size, np.int64)
        for i in numba.prange(size):            # 2: an entry both ends picked is matched; each marks its own
            gained[i] = _mark(live[i], got[i], adj, top, top_ptr, in_m)
        keep = np.zeros(size + 1, np.int64)
        for i in numba.prange(size):            # 3: rooms shrink; who has room and picked something goes on
            v = live[i]
            room[v] -= gained[i]
            if room[v] > 0 and nxt[v] < ptr[v + 1] and got[i] > 0:
                keep[i + 1] = 1
        at = np.cumsum(keep)
        kept = np.empty(at[size], np.int64)
        for i in numba.prange(size):
            if keep[i + 1] == 1:
                kept[at[i]] = live[i]
        live = kept
        rounds += 1
    return rounds, processed


def parallel_b_matching(graph: WeightedGraph, b: Any, *, max_memory: int | None = None,
                        parallel_from: int = PARALLEL_FROM) -> BMatchingResult:
    """The greedy b-matching by locally-dominant rounds on every core (the CPU engine's b-Suitor).

    Parameters
    ----------
    graph : WeightedGraph
    b : int or array_like of int
        The capacity of every vertex (a scalar), or of each (length n); non-negative.
    max_memory : int, optional
        Refuse (``InvalidArgument``) when the partners table would take more bytes.
    parallel_from : int
        The fewest adjacency entries the rounds run for (:data:`~.parallel_ld.PARALLEL_FROM`); 0: always.

    Returns
    -------
    BMatchingResult
        ``(partners, weight, stats)``, validated against ``graph`` and ``b``; equal to
        :func:`~gpusim.algorithms.weighted.reference_b_suitor.greedy_b_matching` and b-Suitor's (below
        :data:`~.parallel_ld.PARALLEL_FROM` adjacency entries, b-Suitor's own, run sequentially).

    Notes
    -----
    Each list is sorted once by decreasing ``(w, id)``, the lists in parallel.  A round: every vertex with
    room picks, from a pointer that never moves back over an entry that may still become eligible, its
    ``room`` best eligible entries; an entry picked from both ends is matched (each end marks its own CSR
    entry); a vertex stays live while it has room and picked something.  An entry both ends picked is in
    the greedy b-matching: fewer than ``b`` greedy edges at each end are heavier (module docstring).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], [4.0, 3.0, 2.0, 1.0])
    >>> parallel_b_matching(g, 2).partners.tolist()
    [[1, 2], [0, 2], [0, 1], [-1, -1]]
    >>> parallel_b_matching(g, [1, 0, 1, 1], parallel_from=0).partners.tolist()
    [[2], [-1], [0], [-1]]
    >>> parallel_b_matching(WeightedGraph.from_edges([], [], n=1), 2).partners.tolist()
    [[]]
    """
    graph = check_graph(graph)
    if graph.adj.shape[0] < parallel_from:
        found = b_suitor(graph, b, max_memory=max_memory)
        return found._replace(stats={**found.stats, "algorithm": "parallel_b_matching",
                                     "engine": f"sequential b-Suitor (below {PARALLEL_FROM} entries)"})
    bb = b_capacities(graph, b, max_memory)
    in_m = np.zeros(graph.adj.shape[0], np.bool_)
    rounds = processed = 0
    threads = 1
    if graph.n:
        ptr = graph.ptr.astype(np.int64)
        order = _sort_lists(ptr, graph.adj, graph.weights)
        with engine_threads() as threads:
            rounds, processed = _b_rounds(ptr, graph.adj, graph.weights, order, bb, in_m)
    src = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.ptr))
    chosen = np.flatnonzero(in_m)   # both ends' entries of each chosen edge, in CSR order
    stats = {"algorithm": "parallel_b_matching", "rounds": int(rounds), "processed": int(processed),
             "threads": threads}
    return b_matching_result(graph, bb, src[chosen], graph.adj[chosen], stats, csr_entries=True)
