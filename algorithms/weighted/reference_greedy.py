"""The greedy matching, run sequentially (Hovland, MSc thesis 2020, Alg. 1): the matching Suitor and Locally-Dominant
equal.

Examples
--------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])   # path 0-1-2-3
>>> greedy(g).mate.tolist()
[-1, 2, 1, -1]
"""

from __future__ import annotations

import numba
import numpy as np

from gpusim.runtime.registry import register
from gpusim.types.graphs import WeightedGraph

from .reference_common import check_graph, edge_order
from .result import WeightedMatching, WeightedMatchingResult, from_reference, matching_result

__all__ = ["greedy", "run_greedy"]


@numba.njit(cache=True)
def _greedy(eu, ev, order, mate):  # pragma: no cover - compiled
    """Hovland (MSc thesis 2020), Alg. 1: take edges in ``order`` (decreasing key) whose ends are both free."""
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


def greedy(graph: WeightedGraph) -> WeightedMatchingResult:
    """The greedy matching: heaviest edge first, ties broken by vertex id (a 1/2-approximation).

    Edges of positive weight are scanned in decreasing order of the key
    ``(w, max(u, v), min(u, v))`` (lexicographic); an edge is matched when both its ends are
    still free.  This is the reference that :func:`~gpusim.algorithms.weighted.reference_suitor.suitor` and
    :func:`~gpusim.algorithms.weighted.reference_ld.locally_dominant` (and the GPU Suitor) must equal exactly;
    see the module docstring for why this tie rule makes them equal.

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
    Hovland (MSc thesis 2020), §3.3.1 and Alg. 1; Naim (PhD thesis 2017),
    Manne et al. (CSC 2016) §3 (the greedy matching, unique under a consistent tie rule).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 1.0])   # a triangle, all ties
    >>> greedy(g).mate.tolist()      # key (1, 2, 1) of edge {1, 2} is the largest
    [-1, 2, 1]
    >>> greedy(WeightedGraph.from_edges([], [])).mate.tolist()
    []
    """
    graph = check_graph(graph)
    u, v, _, order = edge_order(graph)
    mate = np.full(graph.n, -1, np.int32)
    _greedy(u, v, order, mate)
    return matching_result(graph, mate, {"algorithm": "greedy"})


@register("weighted", "greedy", backends=("cpu",), title="Greedy", paper="hovland2020", where="§3.3.1 and Alg. 1",
          guarantees="a 1/2-approximation")
def run_greedy(graph: WeightedGraph, backend: str = "cpu", max_memory: int | None = None, **options
               ) -> WeightedMatching:
    """:func:`greedy` for :func:`~gpusim.algorithms.weighted.maximum_weight_matching`."""
    return from_reference(greedy(graph, **options), "greedy", graph)
