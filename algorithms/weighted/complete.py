"""ROMA and RAMA on a sparse graph: run on its complete graph's dense matrix, then keep only its edges.

Hovland (MSc thesis 2020)'s algorithms are defined on complete graphs: a sparse
:class:`~gpusim.types.graphs.WeightedGraph`
becomes the complete graph of its dense weight matrix, where non-edges weigh 0; ROMA (on a GPU backend,
:func:`~gpusim.algorithms.weighted.driver_roma.roma`, or sequentially) or RAMA improves a perfect
matching of it, and the pairs that are not edges of the graph are dropped (``stats["dropped"]``).  They
weigh 0, so the result is a matching of the graph with the same weight.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> r = run_rama(g, mate="i,i+n/2")     # 0-2 and 1-3 are no edges
>>> r.mate.tolist(), r.weight, r.stats["dropped"]
([-1, 2, 1, -1], 3.0, 1)
"""

from __future__ import annotations

import numpy as np

from gpusim.runtime.registry import register
from gpusim.types.check import edge_positions
from gpusim.types.complete_graphs import check_memory
from gpusim.types.graphs import WeightedGraph
from gpusim.types.numeric import scale_exponent

from . import reference_augmentation
from .driver_roma import roma
from .kernels_roma import roma_block_phase, roma_thread_phase
from .result import WeightedMatching
from .start_matchings import augmentation_bytes

__all__ = ["run_rama", "run_roma"]


@register("weighted", "roma", backends=("sim", "numba", "cupy", "cpu"), title="ROMA (4-cycle augmentation)",
          paper="hovland2020", where="Alg. 6-9 (parallel), Alg. 3-5 (sequential)",
          guarantees="a perfect matching of the complete graph with no 4-cycle of gain above the threshold",
          kernels=(roma_block_phase, roma_thread_phase))
def run_roma(graph: WeightedGraph, backend: str, max_memory: int | None = None, **options) -> WeightedMatching:
    """ROMA on ``graph``'s complete graph (``mate`` defaults to ``"i,i+1"``): on a GPU backend, or with
    ``backend="cpu"`` sequentially; then only the pairs that are edges of ``graph``."""
    return _complete_graph_matching(graph, "roma", backend, max_memory, options)


@register("weighted", "rama", backends=("cpu",), title="RAMA (random 4-cycle augmentation)",
          paper="hovland2020", where="Alg. 2, 4 and 5",
          guarantees="a perfect matching of the complete graph, weight never "
          "decreasing")
def run_rama(graph: WeightedGraph, backend: str = "cpu", max_memory: int | None = None, **options
             ) -> WeightedMatching:
    """RAMA on ``graph``'s complete graph (``mate`` defaults to ``"i,i+1"``), then only the pairs that are edges."""
    return _complete_graph_matching(graph, "rama", backend, max_memory, options)


def _complete_graph_matching(graph: WeightedGraph, algorithm: str, chosen: str, max_memory: int | None,
                             options: dict) -> WeightedMatching:
    """ROMA or RAMA on the complete graph of ``graph``'s dense matrix, then only the pairs that are edges."""
    mate = options.pop("mate", "i,i+1")
    n = graph.n
    check_memory(augmentation_bytes(n, mate, chosen != "cpu"), max_memory,
                 f"{algorithm} on {n} vertices: a dense {n} x {n} weight matrix (complete graphs only)")
    weights = graph.to_scipy().toarray()
    # The numeric policy (gpusim.types.numeric): a flip must gain more than ``threshold``, an absolute amount;
    # weights whose largest is below 1/2 are scaled up by a power of two (exact) so that the largest is in
    # [0.5, 1) and weights of 1e-300 flip as weights of 1 do.
    top = float(weights.max(initial=0.0))
    exponent = scale_exponent(weights) if 0.0 < top < 0.5 else 0
    if exponent:
        weights = np.ldexp(weights, exponent)
    if chosen != "cpu":
        found = roma(weights, mate, backend=chosen, max_memory=max_memory, **options)
    else:
        reference = reference_augmentation.roma if algorithm == "roma" else reference_augmentation.rama
        found = reference(weights, mate, max_memory=max_memory, **options)
    del weights
    complete = np.asarray(found.mate, np.int32)
    kept = _edges_only(graph, complete)
    stats = dict(found.stats, dropped=int(np.count_nonzero(kept != complete)) // 2)
    return WeightedMatching(kept, float(np.ldexp(found.weight, -exponent)), algorithm, chosen, stats, graph)


def _edges_only(graph: WeightedGraph, mate: np.ndarray) -> np.ndarray:
    """``mate`` without the pairs that are not edges of ``graph`` (their vertices become unmatched)."""
    kept = mate.copy()
    first = np.flatnonzero(mate > np.arange(mate.size))
    gone = first[edge_positions(graph, first, mate[first]) < 0]
    kept[gone] = -1
    kept[mate[gone]] = -1
    return kept
