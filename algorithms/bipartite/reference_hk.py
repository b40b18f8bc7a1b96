"""Hopcroft-Karp (HK), compiled with Numba: the sequential algorithm Deveci et al. (Euro-Par 2013)'s APsB parallelises.

The searches start from unmatched *columns* and look for unmatched *rows*, as the papers' kernels
do (columns look up their rows in ``graph.col_ptr``/``graph.col_adj``).  ``initial=None`` starts
from the cheap matching (:mod:`gpusim.algorithms.bipartite.cheap`), as both papers do.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> hopcroft_karp(BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])).stats["size"]
2
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from gpusim.runtime.registry import register
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching

from .cheap import start_matching
from .reference_inputs import check_graph, checked_result, matched_size
from .result import MatchingResult

__all__ = ["hk", "hopcroft_karp"]


@numba.njit(cache=True)
def _hopcroft_karp(col_ptr, col_adj, row_match, col_match):  # pragma: no cover - compiled
    """HK phases: BFS layers from the free columns, then layered DFS with an explicit stack.

    Returns ``(phases, augmentations)``.
    """
    n_cols = col_ptr.shape[0] - 1
    inf = np.int64(n_cols + 1)
    # dist[c]: BFS layer of column c (free columns are layer 0); inf when unreached or dead
    dist = np.empty(n_cols, np.int64)
    queue = np.empty(n_cols, np.int32)
    # it[c]: next position in col_adj that column c's DFS scans (each edge once per phase)
    it = np.empty(n_cols, np.int64)
    # stack[i]: the column at depth i of the DFS; via[i]: the row joining stack[i] to stack[i + 1]
    stack = np.empty(n_cols, np.int32)
    via = np.empty(n_cols, np.int32)
    phases = 0
    augmentations = 0
    while True:
        head = 0
        tail = 0
        for c in range(n_cols):
            if col_match[c] == -1:
                dist[c] = 0
                queue[tail] = c
                tail += 1
            else:
                dist[c] = inf
        limit = inf  # layer of the columns adjacent to a free row: the shortest augmenting paths
        while head < tail:
            c = queue[head]
            head += 1
            if dist[c] >= limit:
                break
            for k in range(col_ptr[c], col_ptr[c + 1]):
                c2 = row_match[col_adj[k]]
                if c2 == -1:
                    limit = dist[c]
                elif dist[c2] == inf:
                    dist[c2] = dist[c] + 1
                    queue[tail] = c2
                    tail += 1
        if limit == inf:
            return phases, augmentations
        phases += 1
        for c in range(n_cols):
            it[c] = col_ptr[c]
        for s in range(n_cols):
            if col_match[s] != -1 or dist[s] != 0:
                continue
            top = 0
            stack[0] = s
            while top >= 0:
                c = stack[top]
                found = -1
                pushed = False
                while it[c] < col_ptr[c + 1]:
                    r = col_adj[it[c]]
                    it[c] += 1
                    c2 = row_match[r]
                    if c2 == -1:
                        found = r
                        break
                    if dist[c2] == dist[c] + 1 and dist[c2] <= limit:
                        via[top] = r
                        top += 1
                        stack[top] = c2
                        pushed = True
                        break
                if found != -1:
                    # flip the path: stack[i] takes via[i], the last column takes the free row
                    row_match[found] = stack[top]
                    col_match[stack[top]] = found
                    for i in range(top):
                        row_match[via[i]] = stack[i]
                        col_match[stack[i]] = via[i]
                    augmentations += 1
                    break
                if not pushed:
                    dist[c] = inf  # dead end for the rest of the phase
                    top -= 1


def hopcroft_karp(graph: BipartiteGraph, initial: Any = None) -> MatchingResult:
    """A maximum-cardinality matching by Hopcroft-Karp (HK).

    Each phase runs a BFS from all unmatched columns, layer by layer, until a layer touches an
    unmatched row; then a DFS from every unmatched column, restricted to edges that go one layer
    deeper, augments along a maximal set of vertex-disjoint shortest augmenting paths.  The DFS
    uses an explicit stack and a per-column scan pointer (no recursion).  The algorithm stops when
    a BFS finds no unmatched row: no augmenting path is left, so the matching is maximum (Berge).

    Parameters
    ----------
    graph : BipartiteGraph
    initial : (row_match, col_match) or MatchingResult, optional
        Starting matching, checked and copied; ``None`` (default) starts from :func:`cheap_matching`.

    Returns
    -------
    MatchingResult
        ``(row_match, col_match, stats)``; ``stats`` has ``algorithm``, ``size``, ``initial_size``,
        ``phases`` (BFS+DFS rounds that augmented) and ``augmentations``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a BipartiteGraph; ``initial`` is not a pair of integer arrays.
    InvalidArgument
        ``initial`` has the wrong lengths, ids out of range, is inconsistent (``row_match[r] = c``
        but ``col_match[c] != r``) or matches a pair that is not an edge.

    Notes
    -----
    O(sqrt(n) m) time for n vertices and m edges: O(sqrt(n)) phases of O(m + n) each; O(n)
    extra memory.  HK is what Deveci et al. (Euro-Par 2013)'s APsB (Alg. 1) parallelises: the BFS kernels are its
    BFS, ALTERNATE its augmentations.

    References
    ----------
    J. E. Hopcroft and R. M. Karp, "An n^{5/2} algorithm for maximum matchings in bipartite
    graphs", SIAM J. Comput. 2(4), 1973.  Deveci et al. (Euro-Par 2013), §2 and Alg. 1.

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
    >>> row_match, col_match, stats = hopcroft_karp(g)
    >>> row_match.tolist(), col_match.tolist(), stats["size"], stats["phases"]
    ([1, 0], [1, 0], 2, 1)
    >>> hopcroft_karp(g, initial=([-1, -1], [-1, -1])).stats["initial_size"]
    0
    >>> hopcroft_karp(BipartiteGraph.from_edges([], [])).row_match.tolist()
    []
    """
    graph = check_graph(graph)
    row_match, col_match = start_matching(graph, initial)
    initial_size = matched_size(row_match)
    phases, augmentations = _hopcroft_karp(graph.col_ptr, graph.col_adj, row_match, col_match)
    stats = {"algorithm": "hopcroft_karp", "size": initial_size + int(augmentations),
             "initial_size": initial_size, "phases": int(phases), "augmentations": int(augmentations)}
    return checked_result(graph, row_match, col_match, stats)


@register("bipartite", "hk", backends=("cpu",), title="Hopcroft-Karp (sequential reference)",
          paper=("hopcroft1973", "deveci2013apfb"), where="",
          guarantees="maximum")
def hk(graph: BipartiteGraph, backend: str = "cpu", **options: Any) -> BipartiteMatching:
    """:func:`hopcroft_karp` as a registered algorithm: its matching as a checked :class:`BipartiteMatching`.

    >>> from gpusim.types.graphs import BipartiteGraph
    >>> hk(BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])).size
    2
    """
    row_match, col_match, stats = hopcroft_karp(graph, **options)
    return BipartiteMatching(graph, row_match, col_match, "hk", "cpu", stats)
