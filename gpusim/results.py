"""What the matching algorithms return.

Checking a result costs more than some algorithms (a König cover of a 10^7-edge graph takes
about a second), so results check themselves when asked: ``result.valid`` and
``result.certified`` run the independent checks of :mod:`gpusim.check` once and remember the
answer.  Timings of algorithms therefore never include their certification.

Example
-------
>>> import numpy as np
>>> from gpusim.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0], [0])
>>> m = BipartiteMatching(g, np.array([0], np.int32), np.array([0], np.int32), "hk", "cpu")
>>> m.size, m.valid, m.certified
(1, True, True)
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from gpusim.check import check_bipartite_matching, konig_cover, verify_cover
from gpusim.graphs import BipartiteGraph

__all__ = ["BipartiteMatching"]


class BipartiteMatching:
    """A maximum-cardinality bipartite matching, with its certificate on demand.

    Attributes
    ----------
    graph:
        The graph it matches.
    row_match, col_match:
        ``row_match[r]`` is the column matched to row ``r``, ``col_match[c]`` the row matched to
        column ``c``; -1 when unmatched (as SciPy does).
    size:
        The number of matched rows.
    valid:
        Both sides agree and every pair is an edge (raises ``InvalidArgument`` naming the first
        problem otherwise — an algorithm bug).
    cover:
        ``(row_in_cover, col_in_cover)``: a König vertex cover built from the matching alone.
    certified:
        Valid, and the cover covers every edge with exactly ``size`` vertices: maximum.
    algorithm, backend:
        What computed it.
    stats:
        Kernel launches, BFS levels, global relabels, loop iterations, seconds per phase.
    """

    def __init__(self, graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray, algorithm: str,
                 backend: str, stats: dict | None = None):
        self.graph = graph
        self.row_match = np.asarray(row_match, np.int32)
        self.col_match = np.asarray(col_match, np.int32)
        self.algorithm = algorithm
        self.backend = backend
        self.stats = dict(stats or {})

    @property
    def size(self) -> int:
        return int(np.count_nonzero(self.row_match >= 0))

    @cached_property
    def valid(self) -> bool:
        check_bipartite_matching(self.graph, self.row_match, self.col_match)
        return True

    @cached_property
    def cover(self) -> tuple[np.ndarray, np.ndarray]:
        return konig_cover(self.graph, self.row_match, self.col_match)

    @cached_property
    def certified(self) -> bool:
        row_cover, col_cover = self.cover
        return (self.valid and verify_cover(self.graph, self.cover)
                and int(row_cover.sum() + col_cover.sum()) == self.size)

    def __repr__(self) -> str:
        return f"BipartiteMatching(size={self.size}, algorithm={self.algorithm!r}, backend={self.backend!r})"
