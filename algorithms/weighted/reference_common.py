"""What the sequential weighted-matching references share: the input check and the greedy order of the edges.

The references (``reference_*`` modules of :mod:`gpusim.algorithms.weighted`) are the CPU baselines and
the oracles' partners of the GPU algorithms of Naim et al. (HiPC 2015: Locally-Dominant and Suitor;
Manne et al. (CSC 2016): b-Suitor) and 002 (Hovland: ROMA on complete graphs).  Each public function checks its input
and calls a private ``numba.njit`` function on plain arrays; the private functions never validate.  A
matching is an int32 array ``mate`` with ``mate[v]`` the partner of ``v`` or ``-1``, as in Naim (PhD thesis 2017),
Naim et al. (HiPC 2015).

The tie rule
------------
Edges are ranked by the key ``(w, max(u, v), min(u, v))``, compared lexicographically, larger
first.  Greedy scans edges in decreasing key order (:func:`edge_order`).  Seen from one vertex ``x``
this order ranks its neighbours by ``(w(x, y), y)``: *the heavier neighbour first, and among equal
weights the larger vertex id*.  That local rule is what Suitor, Locally-Dominant and b-Suitor use, both
to choose whom to propose to and to decide which of two suitors wins (a suitor ``u`` beats ``s`` at
``v`` when ``(w(u, v), u) > (w(s, v), s)``).  Because the local rules are induced by one global
order, the greedy matching is the unique stable matching of the derived instance (Naim, PhD thesis 2017,
Manne et al. (CSC 2016), Lemma 3.1) and all three algorithms return it exactly.

Zero-weight edges are never matched by any algorithm here (as if absent, like a zero entry of
a Matrix Market file): Suitor's "no offer yet" is weight 0 (Naim et al., HiPC 2015, Alg. 3, ``ws[u] <- 0``),
and a GPU packing ``(weight key, id)`` into a uint64 may keep 0 as its "no offer" sentinel.
They add nothing to the weight, so every approximation guarantee holds unchanged.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 1.0])   # path 0-1-2-3
>>> u, v, w, order = edge_order(g)
>>> [(int(u[e]), int(v[e])) for e in order]      # heaviest first, then by (max, min)
[(1, 2), (2, 3), (0, 1)]
"""

from __future__ import annotations

import reprlib
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgumentType
from gpusim.types.graphs import WeightedGraph

__all__ = ["check_graph", "edge_order"]


def check_graph(graph: Any) -> WeightedGraph:
    """``graph`` itself when it is a :class:`~gpusim.types.graphs.WeightedGraph`; else ``InvalidArgumentType``."""
    if not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(
            f"graph must be a gpusim.types.graphs.WeightedGraph, got graph={reprlib.repr(graph)} of type "
            f"{type(graph).__name__}; build one with WeightedGraph.from_edges, from_scipy or load_graph"
        )
    return graph


def edge_order(graph: WeightedGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each edge once (u < v) and the positive-weight ones in decreasing ``(w, v, u)`` order."""
    u, v, w = graph.edges()
    order = np.lexsort((u, v, w))[::-1]
    order = order[w[order] > 0].astype(np.int64)
    return u, v, w, order
