"""Sequential push-relabel (PR) with global relabelling (Deveci et al., ICPP 2013, Alg. 1 and 2), compiled with Numba.

The CPU baseline Deveci et al. (ICPP 2013)'s G-PR is measured against.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> push_relabel(BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])).stats["size"]
2
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument, InvalidArgumentType
from gpusim.runtime.registry import register
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching

from .cheap import start_matching
from .reference_inputs import check_graph, checked_result, matched_size
from .result import MatchingResult

__all__ = ["pr", "push_relabel"]


@numba.njit(cache=True)
def _global_relabel(row_ptr, row_adj, row_match, col_match, psi_r, psi_c, inf, queue):  # pragma: no cover
    """Deveci et al. (ICPP 2013), Alg. 2: exact labels by a BFS from every free row; unreached vertices get ``inf``."""
    n_rows = row_ptr.shape[0] - 1
    tail = 0
    for r in range(n_rows):
        if row_match[r] == -1:
            psi_r[r] = 0
            queue[tail] = r
            tail += 1
        else:
            psi_r[r] = inf
    psi_c[:] = inf
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(row_ptr[u], row_ptr[u + 1]):
            v = row_adj[k]
            if psi_c[v] == inf:
                psi_c[v] = psi_r[u] + 1
                w = col_match[v]
                if w != -1:
                    psi_r[w] = psi_c[v] + 1
                    queue[tail] = w
                    tail += 1


@numba.njit(cache=True)
def _push_relabel(row_ptr, row_adj, col_ptr, col_adj, row_match, col_match, threshold):  # pragma: no cover
    """Deveci et al. (ICPP 2013), Alg. 1 with FIFO active columns and a global relabel every ``threshold`` pushes.

    Returns ``(pushes, double_pushes, global_relabels, ok)``; ``ok`` is False only if the push
    count passed its proven bound (a bug).
    """
    n_rows = row_ptr.shape[0] - 1
    n_cols = col_ptr.shape[0] - 1
    inf = np.int64(n_rows + n_cols)  # the paper's m + n: no alternating path is this long
    # psi_r[r], psi_c[c]: lower bounds on the alternating distance to a free row (Deveci et al., ICPP 2013's psi)
    psi_r = np.zeros(n_rows, np.int64)
    psi_c = np.ones(n_cols, np.int64)
    bfs_queue = np.empty(n_rows, np.int32)
    # active columns, FIFO in a ring: a column is queued only while unmatched, so at most n_cols
    cap = n_cols + 1
    active = np.empty(cap, np.int32)
    head = 0
    count = 0
    for c in range(n_cols):
        if col_match[c] == -1:
            active[count] = c
            count += 1
    # every push raises one row's label by 2, and labels stay below inf + 2
    bound = np.int64(n_rows) * (inf // 2 + 1)
    pushes = np.int64(0)
    double_pushes = np.int64(0)
    global_relabels = 0
    since = 0
    if count > 0:
        _global_relabel(row_ptr, row_adj, row_match, col_match, psi_r, psi_c, inf, bfs_queue)
        global_relabels += 1
    while count > 0:
        v = active[head]
        head = (head + 1) % cap
        count -= 1
        if psi_c[v] >= inf:
            continue  # no augmenting path from v: it stays unmatched
        psi_min = inf
        u = -1
        target = psi_c[v] - 1
        for k in range(col_ptr[v], col_ptr[v + 1]):
            r = col_adj[k]
            if psi_r[r] < psi_min:
                psi_min = psi_r[r]
                u = r
                if psi_min == target:
                    break
        if psi_min >= inf:
            psi_c[v] = inf
            continue
        w = row_match[u]
        if w != -1:  # double push: w loses u and becomes active
            col_match[w] = -1
            active[(head + count) % cap] = w
            count += 1
            double_pushes += 1
        row_match[u] = v
        col_match[v] = u
        psi_c[v] = psi_min + 1
        psi_r[u] = psi_min + 2
        pushes += 1
        since += 1
        if pushes > bound:
            return pushes, double_pushes, global_relabels, False
        if since >= threshold and count > 0:
            _global_relabel(row_ptr, row_adj, row_match, col_match, psi_r, psi_c, inf, bfs_queue)
            global_relabels += 1
            since = 0
    return pushes, double_pushes, global_relabels, True


def push_relabel(graph: BipartiteGraph, initial: Any = None, k: float = 0.5) -> MatchingResult:
    """A maximum-cardinality matching by sequential push-relabel (PR) with global relabelling.

    Deveci et al. (ICPP 2013), Alg. 1: every row ``u`` and column ``v`` carries a label psi, a lower bound on the
    length of an alternating path to an unmatched row.  Unmatched columns are *active* and are
    processed first in, first out.  An active column ``v`` finds a neighbour ``u`` of minimum
    psi (stopping early at ``psi(v) - 1``); if ``psi(u) < n_rows + n_cols`` it takes ``u``
    (a *single push*, or a *double push* that unmatches ``u``'s column ``w`` and makes ``w``
    active), then relabels ``psi(v) = psi(u) + 1`` and ``psi(u) += 2``; otherwise ``v`` can
    reach no unmatched row and is dropped.  Deveci et al. (ICPP 2013), Alg. 2 (global relabel): a BFS from all
    unmatched rows sets every label to its exact distance, ``n_rows + n_cols`` for vertices it
    does not reach; it runs once at the start and again after every ``k * (n_rows + n_cols)``
    pushes.  When no column is active the matching is maximum.

    Parameters
    ----------
    graph : BipartiteGraph
    initial : (row_match, col_match) or MatchingResult, optional
        Starting matching, checked and copied; ``None`` (default) starts from :func:`cheap_matching`.
    k : float
        Global relabelling frequency: a relabel after every ``max(1, floor(k * (n_rows + n_cols)))``
        pushes.  Positive and finite; Deveci et al. (ICPP 2013) found 0.5 best for the sequential PR (default).

    Returns
    -------
    MatchingResult
        ``(row_match, col_match, stats)``; ``stats`` has ``algorithm``, ``size``, ``initial_size``,
        ``pushes`` (single and double), ``double_pushes``, ``relabels`` (Alg. 1 lines 11-12, once
        per push) and ``global_relabels``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a BipartiteGraph; ``initial`` is not a pair of integer arrays; ``k`` is
        not a real number.
    InvalidArgument
        ``initial`` is malformed (see :func:`hopcroft_karp`); ``k`` is not positive and finite.
    GpusimInternalError
        The push count passed its proven bound (this would be a bug in gpusim).

    Notes
    -----
    Terminates: a push raises its row's label by 2, labels never decrease (a global relabel sets
    exact distances, which the labels bound from below, and distances to unmatched rows never
    shrink), and a row with label ``n_rows + n_cols`` or more takes no push; so there are at most
    ``n_rows * (n_rows + n_cols) / 2 + n_rows`` pushes, O(n m) time in the worst case.  Labels are
    int64, the queue a ring of ``n_cols + 1`` entries.  Deveci et al. (ICPP 2013)'s G-PR (Alg. 3-8) is the GPU
    version; this is the sequential PR it is compared with.

    References
    ----------
    A. V. Goldberg and R. E. Tarjan, "A new approach to the maximum-flow problem", J. ACM 35(4),
    1988; K. Kaya, J. Langguth, F. Manne and B. Uçar, "Push-relabel based algorithms for the
    maximum transversal problem", Computers & OR 40(5), 2013.  Deveci et al. (ICPP 2013), Alg. 1 (PR) and Alg. 2 (GR).

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
    >>> row_match, col_match, stats = push_relabel(g)
    >>> row_match.tolist(), col_match.tolist(), stats["size"], stats["double_pushes"]
    ([1, 0], [1, 0], 2, 1)
    >>> push_relabel(g, k=2.0, initial=([-1, -1], [-1, -1])).stats["size"]
    2
    >>> push_relabel(BipartiteGraph.from_edges([], [], 2, 0)).row_match.tolist()
    [-1, -1]
    """
    graph = check_graph(graph)
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, float, np.integer, np.floating)):
        raise InvalidArgumentType(f"k must be a real number, got k={k!r} of type {type(k).__name__}")
    if not (math.isfinite(k) and k > 0):
        raise InvalidArgument(f"k={k!r} must be positive and finite: a global relabel every k * (n_rows + n_cols) "
                              "pushes")
    row_match, col_match = start_matching(graph, initial)
    initial_size = matched_size(row_match)
    threshold = max(1, int(math.floor(float(k) * (graph.n_rows + graph.n_cols))))
    pushes, double_pushes, global_relabels, ok = _push_relabel(
        graph.row_ptr, graph.row_adj, graph.col_ptr, graph.col_adj, row_match, col_match, np.int64(threshold))
    if not ok:
        raise GpusimInternalError(f"push_relabel exceeded its push bound ({int(pushes)} pushes) on {graph!r}")
    stats = {"algorithm": "push_relabel", "size": matched_size(row_match), "initial_size": initial_size,
             "pushes": int(pushes), "double_pushes": int(double_pushes), "relabels": int(pushes),
             "global_relabels": int(global_relabels)}
    return checked_result(graph, row_match, col_match, stats)


@register("bipartite", "pr", backends=("cpu",), title="Push-relabel with global relabelling (sequential reference)",
          paper="deveci2013gpr", where="Alg. 1-2 (PR, GR)", guarantees="maximum")
def pr(graph: BipartiteGraph, backend: str = "cpu", **options: Any) -> BipartiteMatching:
    """:func:`push_relabel` as a registered algorithm: its matching as a checked :class:`BipartiteMatching`.

    >>> from gpusim.types.graphs import BipartiteGraph
    >>> pr(BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0]), k=1.0).size
    2
    """
    row_match, col_match, stats = push_relabel(graph, **options)
    return BipartiteMatching(graph, row_match, col_match, "pr", "cpu", stats)
