"""What Louvain returns: :class:`CommunityResult`, a partition that checks itself against its input graph.

The check (:func:`check_partition`) is independent of the kernels: the labels must be one community id
per input vertex, consecutive from 0, and the reported modularity must equal Eq. (1) recomputed on the
host from the input graph (to 1e-9 relative; a graph in device memory is copied back for this, once);
every level of the dendrogram must be a partition too, and the final modularity at least every earlier
level's (the driver keeps the best partition of each phase: parallel moves can lower modularity within one).

Example
-------
>>> import numpy as np
>>> from gpusim.algorithms.louvain.graph import LouvainGraph
>>> g = LouvainGraph.from_edges([0, 2], [1, 3])
>>> round(modularity(g, np.array([0, 0, 1, 1])), 6)
0.5
>>> r = CommunityResult(g, np.array([0, 0, 1, 1]), 0.5, [np.array([0, 0, 1, 1])], [0.5], "louvain", "cpu")
>>> r.valid, r.n_communities, r.communities()
(True, 2, [[0, 1], [2, 3]])
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import numba
import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.numeric import normalised, weight_sum
from gpusim.types.results import CheckedResult

from .graph import LouvainGraph, list_sums
from .parallel_modularity import inside_weights, inside_weights_sequential

__all__ = ["CommunityResult", "check_partition", "modularity"]

#: How closely the reported modularity must match the recomputed one (relative, with an absolute floor).
RELATIVE_TOLERANCE = 1e-9


def modularity(graph: LouvainGraph, labels: np.ndarray, resolution: float = 1.0) -> float:
    """Eq. (1) of Naim et al. (IPDPS 2017) (Newman's modularity with resolution ``gamma``), from the input graph.

    ``Q = sum_c [ W_c / 2m - gamma (a_c / 2m)^2 ]`` with ``W_c`` the sum of ``A[i, j]`` over ``i, j`` in ``c``
    (each inner edge twice, a self-loop ``2 w``) and ``a_c`` the sum of the degrees in ``c``.  A graph
    without edge weight has ``Q = 0`` (NetworkX divides by zero there).
    """
    labels = np.asarray(labels, np.int64)
    if graph.weights.size == 0 or float(np.max(graph.weights)) == 0.0:
        return 0.0
    if graph.unit_weights:  # every entry 1: W_c and a_c are counts, summed exactly as integers
        return _unit_modularity(graph, labels, resolution)
    # The numeric policy (gpusim.types.numeric): Q is a ratio of weights, computed on weights divided by the
    # largest, so weights of 1e300 or 1e-300 neither overflow nor underflow and give the Q of weights 1.
    weights = normalised(graph.weights)
    two_m = weight_sum(weights)  # each edge twice (a self-loop's entry is 2w): 2m
    inside_entries = np.empty(weights.size, np.bool_)
    _mark_inside(graph.ptr, graph.adj, labels, inside_entries)
    inside = weight_sum(weights[inside_entries])
    degrees = list_sums(graph.ptr, weights)
    totals = np.bincount(labels, degrees, minlength=int(labels.max(initial=-1)) + 1) / two_m
    return inside / two_m - resolution * weight_sum(totals * totals)


#: From this many entries a unit-weight graph's inside entries are counted on every core (a parallel function is
#: compiled in each process that uses it, a second or so; below, the cached one-core count is quick enough).
PARALLEL_COUNT = 1 << 24


def _unit_modularity(graph: LouvainGraph, labels: np.ndarray, resolution: float) -> float:
    """:func:`modularity` of a graph whose entries are all 1: ``2m`` is the entry count, ``W_c`` summed over the
    communities the inside entries counted (each vertex's by the CPU engine's
    :func:`~.parallel_modularity.inside_weights`, on every core from :data:`PARALLEL_COUNT` entries: integers, so
    their sum is exact), ``a_c`` the degrees' counts, and ``sum a_c^2`` an exact integer (below ``(2m)^2 < 2^62``)."""
    two_m = graph.n_entries
    per_vertex = np.empty(graph.n)
    count = inside_weights if two_m >= PARALLEL_COUNT else inside_weights_sequential
    count(graph.ptr, graph.adj, graph.weights, labels, per_vertex)
    inside = float(per_vertex.sum())
    totals = np.bincount(labels, np.diff(graph.ptr), minlength=int(labels.max(initial=-1)) + 1).astype(np.int64)
    squares = int(np.dot(totals, totals))
    return inside / two_m - resolution * (squares / (float(two_m) * two_m))


@numba.njit(cache=True)
def _mark_inside(ptr, adj, labels, inside):  # pragma: no cover - compiled
    """``inside[e]``: entry ``e`` joins two vertices of one community.  No array of entry sources (8 GB at 10^9
    entries); on one core, so that it is compiled once per machine (a parallel function compiles in every process)."""
    for i in range(ptr.size - 1):
        for e in range(ptr[i], ptr[i + 1]):
            inside[e] = labels[i] == labels[adj[e]]


def check_partition(graph: LouvainGraph, labels: np.ndarray, reported: float | None = None,
                    resolution: float = 1.0) -> float:
    """The modularity of ``labels`` on ``graph``; ``InvalidArgument`` naming the first fault of the partition.

    ``labels`` must hold one id per vertex, consecutive from 0; ``reported`` (if given) must equal the
    recomputed modularity to ``RELATIVE_TOLERANCE``.
    """
    labels = np.asarray(labels)
    if labels.shape != (graph.n,):
        raise InvalidArgument(f"labels has shape {labels.shape}, but the graph has {graph.n} vertices")
    if labels.size and labels.dtype.kind not in "iu":
        raise InvalidArgument(f"labels must be integer community ids, got dtype {labels.dtype}")
    if labels.size:
        lowest, highest = int(labels.min()), int(labels.max())
        if lowest < 0:
            raise InvalidArgument(f"community id {lowest} is negative")
        used = np.zeros(min(highest, labels.size) + 1, bool)  # n ids from 0 end below n: a larger one leaves a gap
        used[labels[labels < used.size]] = True
        gaps = np.flatnonzero(~used)
        if gaps.size:
            raise InvalidArgument(f"community ids are not consecutive from 0: id {int(gaps[0])} is unused "
                                  f"but {highest} is used")
    q = modularity(graph, labels, resolution)
    if reported is not None and not abs(reported - q) <= RELATIVE_TOLERANCE * max(abs(q), 1e-3):
        raise InvalidArgument(f"the reported modularity {reported!r} differs from the recomputed {q!r}")
    return q


class CommunityResult(CheckedResult):
    """A partition of a graph's vertices into communities, checked on demand.

    Attributes
    ----------
    graph:
        The graph it partitions, as given: a :class:`~gpusim.algorithms.louvain.graph.LouvainGraph`, or a
        :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` left where it lives.
    input_graph:
        The input on the host, for the checks: ``graph`` itself, or a device-resident graph's arrays copied
        back once, on the first check (:meth:`LouvainGraph.from_device
        <gpusim.algorithms.louvain.graph.LouvainGraph.from_device>`).
    labels:
        ``labels[v]``: the community of input vertex ``v``, consecutive from 0 (int32).
    modularity:
        Eq. (1) of the final partition on the input graph, with the run's resolution.
    levels:
        The dendrogram: ``levels[l][v]`` is the community of ``v`` after level ``l`` (``levels[-1]`` is
        ``labels`` unless the run refined it, ``stats["refine_sweeps"]`` not None; empty when no vertex ever
        moved).
    level_modularity:
        The modularity after each level, non-decreasing.
    valid, problem:
        Every level a partition, the reported modularity recomputed from the input, the result at least as good
        as every level and, unless refined, the last level itself (:func:`check_partition`); else ``problem``
        names the fault.
    certified:
        Valid: the modularity was recomputed independently of the kernels (there is no certificate of
        optimality; modularity maximisation is NP-hard).
    algorithm, backend, resolution, stats:
        What computed it: levels, sweeps per level, launches, seconds per phase.
    """

    def __init__(self, graph: LouvainGraph | DeviceWeightedGraph, labels: np.ndarray, modularity: float,
                 levels: list[np.ndarray] | Callable[[], list[np.ndarray]], level_modularity: list[float],
                 algorithm: str, backend: str, stats: dict | None = None, resolution: float = 1.0):
        self.graph = graph
        self.labels = np.asarray(labels, np.int32)
        self.modularity = float(modularity)
        self._levels = levels
        self.level_modularity = [float(q) for q in level_modularity]
        self.algorithm = algorithm
        self.backend = backend
        self.resolution = float(resolution)
        self.stats = dict(stats or {})

    @cached_property
    def levels(self) -> list[np.ndarray]:
        """The dendrogram (see the class); a GPU run keeps it on the device until it is first asked for."""
        levels, self._levels = self._levels, None
        return [np.asarray(level, np.int32) for level in (levels() if callable(levels) else levels)]

    @property
    def n_communities(self) -> int:
        return int(self.labels.max(initial=-1)) + 1

    @cached_property
    def input_graph(self) -> LouvainGraph:
        """The input on the host: a device-resident graph is copied back here, once, on demand."""
        if isinstance(self.graph, DeviceWeightedGraph):
            return LouvainGraph.from_device(self.graph)
        return self.graph

    def communities(self) -> list[list]:
        """The communities as lists of vertices (of the original nodes for NetworkX input), by id."""
        order = np.argsort(self.labels, kind="stable")
        groups = np.split(order, np.cumsum(np.bincount(self.labels, minlength=self.n_communities))[:-1])
        nodes = getattr(self.graph, "nodes", None)
        return [[nodes[v] for v in g.tolist()] if nodes is not None else g.tolist() for g in groups if g.size]

    def _check(self) -> float:
        q = check_partition(self.input_graph, self.labels, self.modularity, self.resolution)
        for depth, level in enumerate(self.levels):
            q_level = check_partition(self.input_graph, level, self.level_modularity[depth], self.resolution)
            if q_level > q + RELATIVE_TOLERANCE * max(abs(q), 1e-3):
                raise InvalidArgument(f"level {depth} has modularity {q_level!r}, above the final {q!r}")
        refined = self.stats.get("refine_sweeps") is not None
        if self.levels and not refined and not np.array_equal(self.levels[-1], self.labels):
            raise InvalidArgument("the labels are not the dendrogram's last level")
        return q

    def certificate(self) -> float:
        """The modularity of ``labels`` recomputed from the input graph alone (:func:`check_partition`)."""
        return check_partition(self.input_graph, self.labels, self.modularity, self.resolution)

    @cached_property
    def certified(self) -> bool:
        return self.valid

    def __repr__(self) -> str:
        return (f"CommunityResult(communities={self.n_communities}, modularity={self.modularity:.6f}, "
                f"levels={len(self.levels)}, algorithm={self.algorithm!r}, backend={self.backend!r})")
