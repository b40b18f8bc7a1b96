"""Path-based half-approximations, run sequentially: PGA' (Drake & Hougardy) and GPA (Maue & Sanders).

Both grow vertex-disjoint paths (and, for GPA, even cycles) and match each one optimally by dynamic
programming (Hovland, MSc thesis 2020, §3.3.2–3.3.3).

Examples
--------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])   # path 0-1-2-3
>>> path_growing(g).weight, gpa(g).weight
(2.0, 2.0)
"""

from __future__ import annotations

import numba
import numpy as np

from gpusim.runtime.registry import register
from gpusim.types.graphs import WeightedGraph

from .reference_common import check_graph, edge_order
from .result import WeightedMatching, WeightedMatchingResult, from_reference, matching_result

__all__ = ["gpa", "path_growing", "run_gpa", "run_path_growing"]


@numba.njit(cache=True)
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


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _path_growing(ptr, adj, w, mate):  # pragma: no cover - compiled
    """PGA' (Drake & Hougardy; Hovland (MSc thesis 2020) §3.3.2): grow paths, then match each one optimally.

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


@numba.njit(cache=True)
def _find(parent, x):  # pragma: no cover - compiled
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:  # path compression
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@numba.njit(cache=True)
def _gpa(n, eu, ev, ew, order, mate):  # pragma: no cover - compiled
    """GPA (Maue & Sanders; Hovland (MSc thesis 2020) §3.3.3).  Returns ``(paths, cycles, size)``."""
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


@numba.njit(cache=True)
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
    weighted matching", WEA 2007 (PGA').  Hovland (MSc thesis 2020), §3.3.2.

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
    graph = check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    paths, _ = _path_growing(graph.ptr, graph.adj, graph.weights, mate)
    return matching_result(graph, mate, {"algorithm": "path_growing", "paths": int(paths)})


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
    ROMA (see :func:`~gpusim.algorithms.weighted.start_matchings.start_matching`).

    References
    ----------
    J. Maue and P. Sanders, "Engineering algorithms for approximate weighted matching",
    WEA 2007.  Hovland (MSc thesis 2020), §3.3.3.

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
    graph = check_graph(graph)
    u, v, w, order = edge_order(graph)
    mate = np.full(graph.n, -1, np.int32)
    paths, cycles, _ = _gpa(graph.n, u, v, w, order, mate)
    return matching_result(graph, mate, {"algorithm": "gpa", "paths": int(paths), "cycles": int(cycles)})


@register("weighted", "pga", backends=("cpu",), title="PGA' (Path Growing, paths matched optimally)",
          paper=("drake2003", "maue2007", "hovland2020"), where="as Hovland §3.3.2 presents it",
          guarantees="a 1/2-approximation")
def run_path_growing(graph: WeightedGraph, backend: str = "cpu", max_memory: int | None = None, **options
                     ) -> WeightedMatching:
    """:func:`path_growing` for :func:`~gpusim.algorithms.weighted.maximum_weight_matching`."""
    return from_reference(path_growing(graph, **options), "pga", graph)


@register("weighted", "gpa", backends=("cpu",), title="GPA (Global Paths Algorithm)",
          paper=("maue2007", "hovland2020"), where="as Hovland §3.3.3 presents it", guarantees="a 1/2-approximation")
def run_gpa(graph: WeightedGraph, backend: str = "cpu", max_memory: int | None = None, **options) -> WeightedMatching:
    """:func:`gpa` for :func:`~gpusim.algorithms.weighted.maximum_weight_matching`."""
    return from_reference(gpa(graph, **options), "gpa", graph)
