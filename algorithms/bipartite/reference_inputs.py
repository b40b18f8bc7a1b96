"""The argument checks and the output check the sequential references share.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> matched_size(np.array([1, -1, 0]))
2
>>> check_graph(BipartiteGraph.from_edges([0], [0])).n_edges
1
"""

from __future__ import annotations

import reprlib
from typing import Any

import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgumentType
from gpusim.types.check import check_bipartite_matching, checked_output
from gpusim.types.graphs import BipartiteGraph

from .result import MatchingResult

__all__ = ["check_graph", "checked_result", "matched_size"]


def check_graph(graph: Any) -> BipartiteGraph:
    """``graph``, refused unless it is a :class:`~gpusim.types.graphs.BipartiteGraph`."""
    if not isinstance(graph, BipartiteGraph):
        raise InvalidArgumentType(
            f"graph must be a gpusim.types.graphs.BipartiteGraph, got graph={reprlib.repr(graph)} of type "
            f"{type(graph).__name__}; build one with BipartiteGraph.from_edges, from_scipy or load_graph"
        )
    return graph


def matched_size(row_match: np.ndarray) -> int:
    """The number of matched rows."""
    return int(np.count_nonzero(row_match >= 0))


def checked_result(graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray, stats: dict) -> MatchingResult:
    """The result, validated against ``graph`` (:func:`gpusim.types.check.check_bipartite_matching`: every pair an entry
    of the matrix, both sides agreeing) and its size checked against the algorithm's count."""
    size = checked_output(stats["algorithm"], graph, check_bipartite_matching, graph, row_match, col_match)
    if size != stats["size"]:
        raise GpusimInternalError(f"{stats['algorithm']} counted {stats['size']} pairs but matched {size} on {graph!r}")
    return MatchingResult(row_match, col_match, stats)
