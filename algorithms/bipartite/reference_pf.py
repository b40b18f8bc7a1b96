"""Pothen-Fan with lookahead and fairness (PFP), compiled with Numba: Deveci et al. (Euro-Par 2013)'s sequential
baseline.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> pothen_fan(BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])).stats["size"]
2
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from gpusim.runtime.registry import register
from gpusim.types.arguments import check_bool
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching

from .cheap import start_matching
from .reference_inputs import check_graph, checked_result, matched_size
from .result import MatchingResult

__all__ = ["pfp", "pothen_fan"]


@numba.njit(cache=True)
def _pothen_fan(n_rows, col_ptr, col_adj, row_match, col_match, lookahead, fairness):  # pragma: no cover
    """PF phases: a DFS from every free column, rows visited at most once per phase.

    Returns ``(phases, augmentations)``.
    """
    n_cols = col_ptr.shape[0] - 1
    # visited[r]: the last phase whose DFSs visited row r
    visited = np.zeros(n_rows, np.int64)
    # look[c]: next position of column c's lookahead scan; the rows before it are matched for good
    look = np.empty(n_cols, np.int64)
    for c in range(n_cols):
        look[c] = col_ptr[c]
    # it[c]: how many of column c's rows its DFS has scanned this phase
    it = np.zeros(n_cols, np.int64)
    # stack[i]: the column at depth i of the DFS; via[i]: the row joining stack[i] to stack[i + 1]
    stack = np.empty(n_cols, np.int32)
    via = np.empty(n_cols, np.int32)
    # free[:n_free]: the columns still unmatched, the roots of the next phase's DFSs
    free = np.empty(n_cols, np.int32)
    n_free = 0
    for c in range(n_cols):
        if col_match[c] == -1:
            free[n_free] = c
            n_free += 1
    phases = 0
    augmentations = 0
    while n_free > 0:
        phases += 1
        forward = (not fairness) or phases % 2 == 1
        found_in_phase = 0
        for i_free in range(n_free):
            s = free[i_free]
            top = 0
            stack[0] = s
            it[s] = 0
            found = -1
            while top >= 0:
                c = stack[top]
                lo = col_ptr[c]
                hi = col_ptr[c + 1]
                if lookahead:
                    while look[c] < hi:
                        r = col_adj[look[c]]
                        look[c] += 1
                        if row_match[r] == -1:
                            found = r
                            break
                    if found != -1:
                        break
                pushed = False
                while it[c] < hi - lo:
                    k = lo + it[c] if forward else hi - 1 - it[c]
                    it[c] += 1
                    r = col_adj[k]
                    if visited[r] == phases:
                        continue
                    visited[r] = phases
                    c2 = row_match[r]
                    if c2 == -1:
                        found = r
                        break
                    via[top] = r
                    top += 1
                    stack[top] = c2
                    it[c2] = 0
                    pushed = True
                    break
                if found != -1:
                    break
                if not pushed:
                    top -= 1
            if found != -1:
                row_match[found] = stack[top]
                col_match[stack[top]] = found
                for i in range(top):
                    row_match[via[i]] = stack[i]
                    col_match[stack[i]] = via[i]
                found_in_phase += 1
        augmentations += found_in_phase
        if found_in_phase == 0:
            break
        kept = 0
        for i_free in range(n_free):
            if col_match[free[i_free]] == -1:
                free[kept] = free[i_free]
                kept += 1
        n_free = kept
    return phases, augmentations


def pothen_fan(graph: BipartiteGraph, initial: Any = None, lookahead: bool = True,
               fairness: bool = True) -> MatchingResult:
    """A maximum-cardinality matching by Pothen-Fan with lookahead and fairness (PFP).

    Each phase runs a DFS from every unmatched column; a row visited by any DFS of the phase is
    not visited again in that phase, so the paths found are vertex-disjoint and a phase costs
    O(m).  With ``lookahead`` a column first scans its rows for an unmatched one (one pointer per
    column that never moves back, since a matched row stays matched), then descends.  With
    ``fairness`` the DFS scans adjacency lists forward in odd phases and backward in even ones.
    The algorithm stops after a phase that augments nothing: then no augmenting path is left.

    Parameters
    ----------
    graph : BipartiteGraph
    initial : (row_match, col_match) or MatchingResult, optional
        Starting matching, checked and copied; ``None`` (default) starts from :func:`cheap_matching`.
    lookahead : bool
        Look for an unmatched row among a column's neighbours before descending (default True).
    fairness : bool
        Alternate the direction in which adjacency lists are scanned (default True).

    Returns
    -------
    MatchingResult
        ``(row_match, col_match, stats)``; ``stats`` has ``algorithm``, ``size``, ``initial_size``,
        ``phases`` (the last one augments nothing) and ``augmentations``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a BipartiteGraph; ``initial`` is not a pair of integer arrays;
        ``lookahead`` or ``fairness`` is not a bool.
    InvalidArgument
        ``initial`` is malformed (see :func:`hopcroft_karp`).

    Notes
    -----
    O(n m) time in the worst case (at most n phases of O(m + n)); fast in practice, and, with
    HK, the sequential baseline of Deveci et al. (Euro-Par 2013)'s experiments (PFP).  O(n) extra memory.

    References
    ----------
    A. Pothen and C.-J. Fan, "Computing the block triangular form of a sparse matrix", ACM TOMS
    16(4), 1990; I. S. Duff, K. Kaya and B. Uçar, "Design, implementation, and analysis of
    maximum transversal algorithms", ACM TOMS 38(2), 2011 (fairness).  Deveci et al. (Euro-Par 2013), §4 (the PFP
    baseline).

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 0, 1, 2], [0, 1, 0, 2], n_rows=4)
    >>> row_match, col_match, stats = pothen_fan(g)
    >>> row_match.tolist(), col_match.tolist(), stats["size"]
    ([1, 0, 2, -1], [1, 0, 2], 3)
    >>> pothen_fan(g, lookahead=False, fairness=False).stats["size"]
    3
    >>> pothen_fan(BipartiteGraph.from_edges([], [], 0, 3)).col_match.tolist()
    [-1, -1, -1]
    """
    graph = check_graph(graph)
    lookahead = check_bool("lookahead", lookahead)
    fairness = check_bool("fairness", fairness)
    row_match, col_match = start_matching(graph, initial)
    initial_size = matched_size(row_match)
    phases, augmentations = _pothen_fan(graph.n_rows, graph.col_ptr, graph.col_adj, row_match, col_match,
                                        lookahead, fairness)
    stats = {"algorithm": "pothen_fan", "size": initial_size + int(augmentations),
             "initial_size": initial_size, "phases": int(phases), "augmentations": int(augmentations)}
    return checked_result(graph, row_match, col_match, stats)


@register("bipartite", "pfp", backends=("cpu",), title="Pothen-Fan with lookahead and fairness (sequential reference)",
          paper=("pothen1990", "duff2011", "deveci2013apfb"), where="",
          guarantees="maximum")
def pfp(graph: BipartiteGraph, backend: str = "cpu", **options: Any) -> BipartiteMatching:
    """:func:`pothen_fan` as a registered algorithm: its matching as a checked :class:`BipartiteMatching`.

    >>> from gpusim.types.graphs import BipartiteGraph
    >>> pfp(BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0]), lookahead=False).size
    2
    """
    row_match, col_match, stats = pothen_fan(graph, **options)
    return BipartiteMatching(graph, row_match, col_match, "pfp", "cpu", stats)
