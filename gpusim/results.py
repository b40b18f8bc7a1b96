"""What the matching algorithms return.

Example
-------
>>> import numpy as np
>>> from gpusim.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0], [0])
>>> m = BipartiteMatching.certify(g, np.array([0], np.int32), np.array([0], np.int32), "hk", "cpu")
>>> m.size, m.certified
(1, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gpusim.check import check_bipartite_matching, konig_cover, verify_cover
from gpusim.graphs import BipartiteGraph

__all__ = ["BipartiteMatching"]


@dataclass
class BipartiteMatching:
    """A maximum-cardinality bipartite matching with its certificate.

    Attributes
    ----------
    row_match, col_match:
        ``row_match[r]`` is the column matched to row ``r``, ``col_match[c]`` the row matched to
        column ``c``; -1 when unmatched (as SciPy does).
    size:
        The number of matched pairs.
    cover:
        ``(row_in_cover, col_in_cover)``: a König vertex cover built from the matching alone.
    certified:
        The cover covers every edge and has exactly ``size`` vertices: the matching is maximum.
    algorithm, backend:
        What computed it.
    stats:
        Kernel launches, BFS levels, global relabels, loop iterations, seconds per phase.
    """

    row_match: np.ndarray
    col_match: np.ndarray
    size: int
    cover: tuple[np.ndarray, np.ndarray]
    certified: bool
    algorithm: str
    backend: str
    stats: dict = field(default_factory=dict)

    @classmethod
    def certify(cls, graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray, algorithm: str,
                backend: str, stats: dict | None = None) -> BipartiteMatching:
        """Check the matching is valid (raising if not), build its König cover, and record whether it certifies."""
        row_match = np.asarray(row_match, np.int32)
        col_match = np.asarray(col_match, np.int32)
        size = check_bipartite_matching(graph, row_match, col_match)
        cover = konig_cover(graph, row_match, col_match)
        certified = verify_cover(graph, cover) and int(cover[0].sum() + cover[1].sum()) == size
        return cls(row_match, col_match, size, cover, certified, algorithm, backend, dict(stats or {}))

    def __repr__(self) -> str:
        return (f"BipartiteMatching(size={self.size}, certified={self.certified}, algorithm={self.algorithm!r}, "
                f"backend={self.backend!r})")
