"""The Suitor algorithm, run sequentially (Naim et al., HiPC 2015, Alg. 3): equal to the greedy matching.

Examples
--------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])   # path 0-1-2-3
>>> suitor(g).mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

import numba
import numpy as np

from gpusim.types.graphs import WeightedGraph

from .reference_common import check_graph
from .result import WeightedMatchingResult, matching_result

__all__ = ["suitor"]


@numba.njit(cache=True)
def _suitor(ptr, adj, w, suitor, ws):  # pragma: no cover - compiled
    """Naim et al. (HiPC 2015), Alg. 3 run sequentially: ``suitor[v]`` is the best offer ``v`` holds.

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
    stable marriage algorithm on a general graph (Manne et al., CSC 2016 §3.1).

    References
    ----------
    F. Manne and M. Halappanavar, "New effective multithreaded matching algorithms", IPDPS 2014.
    Naim et al. (HiPC 2015), §2.2 and Alg. 3; Manne et al. (CSC 2016) §3.1.

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
    graph = check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    ws = np.zeros(graph.n, np.float64)
    proposals = _suitor(graph.ptr, graph.adj, graph.weights, mate, ws)
    return matching_result(graph, mate, {"algorithm": "suitor", "proposals": int(proposals)})
