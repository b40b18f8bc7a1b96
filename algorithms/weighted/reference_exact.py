"""A maximum-weight matching by NetworkX's blossom algorithm: the exact oracle on small graphs.

Examples
--------
>>> from gpusim.types.graphs import WeightedGraph
>>> exact_maximum_weight(WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])).weight
2.0
"""

from __future__ import annotations

import numpy as np

from gpusim.types.graphs import WeightedGraph

from .reference_common import check_graph
from .result import WeightedMatchingResult, matching_result

__all__ = ["exact_maximum_weight"]


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

    graph = check_graph(graph)
    mate = np.full(graph.n, -1, np.int32)
    for a, c in nx.max_weight_matching(graph.to_networkx(), maxcardinality=False):
        mate[a] = c
        mate[c] = a
    return matching_result(graph, mate, {"algorithm": "networkx"})
