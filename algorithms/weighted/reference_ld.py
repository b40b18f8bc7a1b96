"""The Locally-Dominant algorithm, run sequentially (Naim et al., HiPC 2015, Alg. 1–2): equal to the greedy matching.

Examples
--------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])   # path 0-1-2-3
>>> locally_dominant(g).mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

import numba
import numpy as np

from gpusim.types.graphs import WeightedGraph

from .reference_common import check_graph
from .result import WeightedMatchingResult, matching_result

__all__ = ["locally_dominant"]


@numba.njit(cache=True)
def _ld_process(s, ptr, adj, w, mate, candidate, queue, tail):  # pragma: no cover - compiled
    """Naim et al. (HiPC 2015), Alg. 2 (ProcessVertex): point ``s`` at its heaviest free neighbour.

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


@numba.njit(cache=True)
def _locally_dominant(ptr, adj, w, mate):  # pragma: no cover - compiled
    """Naim et al. (HiPC 2015), Alg. 1 run sequentially.  Returns ``(rounds, processed)``."""
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
    architectures", IJHPCA 2012.  Naim et al. (HiPC 2015), §2.1, Alg. 1 and 2.

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
    graph = check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    rounds, processed = _locally_dominant(graph.ptr, graph.adj, graph.weights, mate)
    return matching_result(graph, mate, {"algorithm": "locally_dominant", "rounds": int(rounds),
                                 "processed": int(processed)})
