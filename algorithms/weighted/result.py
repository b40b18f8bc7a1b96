"""What the weighted-matching algorithms return, and the result assembly they share.

:class:`WeightedMatching` is the result of every weighted algorithm (the GPU kernels, the sequential
references through :func:`~gpusim.algorithms.weighted.maximum_weight_matching`, and ROMA), validated
on demand.  The sequential references return the plainer :class:`WeightedMatchingResult` (built by
:func:`matching_result`) and :class:`BMatchingResult`; a b-matching, GPU or sequential, is built by
:func:`b_matching_result` from the chosen edges (:func:`suitor_pairs` turns the suitor sets of
b-Suitor into them) after :func:`b_capacities` checked ``b``.  The modules that compute results import
from here, and none of them from another: a GPU path builds its result here, never through a sequential reference.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 3.0])
>>> b = b_capacities(g, 1)
>>> found = b_matching_result(g, b, np.array([1]), np.array([2]), {"algorithm": "hand"})
>>> found.partners.tolist(), found.weight
([[-1], [2], [1]], 3.0)
"""

from __future__ import annotations

import math
import reprlib
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument, InvalidArgumentType
from gpusim.types.check import check_b_matching, check_weighted_matching, checked_output, undominated_edges
from gpusim.types.complete_graphs import check_memory
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.graphs import WeightedGraph
from gpusim.types.results import CheckedResult

__all__ = [
    "BMatchingResult", "WeightedMatching", "WeightedMatchingResult", "b_capacities", "b_matching_result",
    "check_b", "check_partners_memory", "from_reference", "matching_result", "suitor_pairs",
]


class WeightedMatching(CheckedResult):
    """A weighted matching (or b-matching) of the graph it was computed from, validated on demand.

    Attributes
    ----------
    mate:
        ``mate[v]``: the mate of ``v`` or -1 (int32; all -1 for a b-matching with ``b > 1``).
    weight:
        The total weight the algorithm found.
    algorithm, backend, stats:
        What computed it; launches, rounds, seconds per phase.
    graph:
        The input: a :class:`~gpusim.types.graphs.WeightedGraph`, or the dense weight matrix of a
        complete graph (:func:`gpusim.algorithms.weighted.roma`).
    partners, b:
        For a b-matching: row ``v`` lists the partners of ``v`` (-1 padded), at most ``b``.
    size:
        Matched pairs (counted on the device by the GPU algorithms, given as ``pairs``).
    valid, problem:
        Every pair an edge of ``graph``, each vertex matched at most once (``b`` times), and
        ``weight`` the sum of the input's weights of the pairs: checked, on first access, by
        :func:`gpusim.types.check.check_weighted_matching` (:func:`~gpusim.types.check.check_b_matching`);
        else ``problem`` names the first fault.

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 3.0])
    >>> WeightedMatching(np.array([-1, 2, 1]), 3.0, "hand", "cpu", {}, g).valid
    True
    >>> bad = WeightedMatching(np.array([2, -1, 0]), 0.0, "hand", "cpu", {}, g)
    >>> bad.valid, bad.problem
    (False, 'mate[0]=2: (0, 2) is not an edge of the input graph')
    """

    def __init__(self, mate: np.ndarray, weight: float, algorithm: str, backend: str, stats: dict,
                 graph: WeightedGraph | np.ndarray, partners: np.ndarray | None = None, b=None,
                 pairs: int | None = None):
        self.mate = np.asarray(mate, np.int32)
        self.weight = weight
        self.algorithm = algorithm
        self.backend = backend
        self.stats = stats
        self.graph = graph
        self.partners = None if partners is None else np.asarray(partners, np.int32)
        self.b = b
        self.pairs = pairs

    @property
    def size(self) -> int:
        if self.pairs is not None:
            return self.pairs
        if self.partners is not None:
            return int(np.count_nonzero(self.partners >= 0)) // 2
        return int(np.count_nonzero(self.mate >= 0)) // 2

    @cached_property
    def input_graph(self) -> WeightedGraph | np.ndarray:
        """The input on the host, for the checks: a device-resident graph is copied back here, once, on demand."""
        if isinstance(self.graph, DeviceWeightedGraph):
            from gpusim.runtime.device import Device

            memory = self.graph.memory  # where its arrays live, which need not be the backend that ran
            dev = Device("cupy" if memory == "cuda" else memory)
            return WeightedGraph(self.graph.n, *(dev.to_host(dev.array(a)) for a in (self.graph.ptr, self.graph.adj,
                                                                                   self.graph.weights)))
        return self.graph

    def _check(self) -> float:
        if self.partners is not None:
            weight = check_b_matching(self.input_graph, self.partners, self.b)
        else:
            weight = check_weighted_matching(self.input_graph, self.mate)
        if not math.isclose(weight, self.weight, rel_tol=1e-9, abs_tol=1e-12):
            raise InvalidArgument(f"the weight is reported as {self.weight!r} but the pairs weigh {weight!r} "
                                  "in the input")
        return weight

    def certificate(self) -> list[tuple[int, int]]:
        """The edges no matched edge at either end dominates (:func:`gpusim.types.check.undominated_edges`):
        none for a locally dominant matching (Suitor, Locally-Dominant, greedy, b-Suitor), which proves
        it weighs at least half the maximum."""
        return undominated_edges(self.input_graph, mate=self.mate if self.partners is None else None,
                                 partners=self.partners, b=self.b)

    @cached_property
    def certified(self) -> bool:
        """Valid, and locally dominant: at least half the maximum weight, proven by :meth:`certificate`."""
        return self.valid and not self.certificate()

    def __repr__(self) -> str:
        return (f"WeightedMatching(size={self.size}, weight={self.weight!r}, algorithm={self.algorithm!r}, "
                f"backend={self.backend!r})")


class WeightedMatchingResult(NamedTuple):
    """A matching, its weight, and the counters of the run that found it (what the sequential references return).

    Attributes
    ----------
    mate : ndarray of int32, length ``n``
        ``mate[v]``: the vertex matched to ``v``, or -1.  Symmetric: ``mate[mate[v]] == v``.
    weight : float
        Total weight of the matched edges, summed with ``math.fsum`` (exactly rounded, so equal
        matchings have equal weights bit for bit).
    stats : dict
        ``"algorithm"``, ``"size"`` (matched pairs) and per-algorithm counters; see each function.
    """

    mate: np.ndarray
    weight: float
    stats: dict


def matching_result(graph: WeightedGraph, mate: np.ndarray, stats: dict) -> WeightedMatchingResult:
    """Validate the matching against ``graph`` (:func:`gpusim.types.check.check_weighted_matching`), count
    pairs and take the weight the validator recomputed from the graph's weights."""
    weight = checked_output(stats["algorithm"], graph, check_weighted_matching, graph, mate)
    stats = {"algorithm": stats["algorithm"], "size": int(np.count_nonzero(mate >= 0)) // 2, **stats}
    return WeightedMatchingResult(mate.astype(np.int32, copy=False), weight, stats)


class BMatchingResult(NamedTuple):
    """A b-matching, its weight, and the counters of the run that found it.

    Attributes
    ----------
    partners : ndarray of int32, shape ``(n, width)``
        Row ``v`` lists the partners of ``v`` in increasing id order, then ``-1`` padding.
        ``width = max over v of min(b[v], degree(v))`` (0 for an empty graph), which depends only
        on the graph and ``b``, so results of two algorithms compare with ``np.array_equal``.
    weight : float
        Total weight of the chosen edges (``math.fsum``).
    stats : dict
        ``"algorithm"``, ``"size"`` (number of chosen edges) and per-algorithm counters.
    """

    partners: np.ndarray
    weight: float
    stats: dict


def b_capacities(graph: WeightedGraph, b: Any, max_memory: int | None = None, degrees: np.ndarray | None = None
                 ) -> np.ndarray:
    """``b`` as an int64 array of length n: a non-negative integer, or one per vertex; refused when the
    partners table (a row of ``max(min(b, degree))`` entries per vertex) would pass ``max_memory``.
    ``degrees`` (default: from ``graph.ptr``) for a graph whose offsets live on a device."""
    value = check_b(graph, b)
    n = graph.n
    bb = np.full(n, value, np.int64) if isinstance(value, int) else value
    degrees = np.diff(graph.ptr) if degrees is None else degrees
    check_partners_memory(n, int(np.max(np.minimum(bb, degrees))) if n else 0, max_memory)
    return bb


def check_partners_memory(n: int, width: int, max_memory: int | None) -> None:
    """Refuse (``InvalidArgument``) a partners table of ``n`` rows of ``width`` entries above ``max_memory`` bytes.

    >>> check_partners_memory(10, 3, 1000)
    >>> check_partners_memory(10, 3, 100)
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: the partners table of a b-matching (10 vertices x 3 partners) needs about ...
    """
    check_memory(8 * n * width, max_memory, f"the partners table of a b-matching ({n} vertices x {width} partners)",
                 "choose a smaller b (a row per vertex holds min(b, degree) partners)")


def check_b(graph: Any, b: Any) -> int | np.ndarray:
    """``b`` checked against ``graph`` (anything with ``n``): a non-negative integer (capped at 2^62) as an
    ``int``, or one per vertex as an int64 array of length n.

    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0], [1], [1.0])
    >>> check_b(g, 3), check_b(g, [1, 2]).tolist()
    (3, [1, 2])
    """
    if isinstance(b, (bool, np.bool_)):
        raise InvalidArgumentType(f"b must be a non-negative integer or an integer array, got b={b!r} (a bool)")
    if isinstance(b, (int, np.integer)):
        if b < 0:
            raise InvalidArgument(f"b={int(b)} must be non-negative")
        return min(int(b), 2**62)
    return _b_values(graph, b)


def _b_values(graph: Any, b: Any) -> np.ndarray:
    """``b`` (not an integer: :func:`check_b` takes those) as an int64 array of length n, one per vertex."""
    n = graph.n
    try:
        arr = np.asarray(b)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentType(f"b must be an integer or a 1-D integer array, got {reprlib.repr(b)}: {exc}") from exc
    if arr.ndim == 0:
        raise InvalidArgumentType(f"b must be a non-negative integer or a 1-D array of integers, got b={b!r} "
                                  f"of type {type(b).__name__}")
    if arr.ndim != 1:
        raise InvalidArgument(f"b must be an integer or a one-dimensional array, got shape {arr.shape}")
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidArgumentType(f"b must hold integers, got dtype {arr.dtype}: {reprlib.repr(b)}")
    if arr.shape[0] != n:
        raise InvalidArgument(f"b has {arr.shape[0]} entries, expected one per vertex ({n})")
    if arr.dtype.kind == "u":
        arr = np.minimum(arr, np.uint64(2**62))
    arr = arr.astype(np.int64)
    neg = np.flatnonzero(arr < 0)
    if neg.size:
        i = int(neg[0])
        raise InvalidArgument(f"b[{i}]={int(arr[i])} must be non-negative")
    return arr


def b_matching_result(graph: WeightedGraph, b: np.ndarray, a: np.ndarray, c: np.ndarray, stats: dict, *,
                      csr_entries: bool = False) -> BMatchingResult:
    """Partners table (rows sorted, -1 padded) from the chosen edges ``{a[k], c[k]}``; with ``csr_entries``,
    ``(a[k], c[k])`` are the chosen CSR entries in CSR order, both ways (already sorted: no sort)."""
    n = graph.n
    deg = np.diff(graph.ptr).astype(np.int64)
    width = int(np.max(np.minimum(b, deg))) if n else 0
    if csr_entries:
        ends, others = a.astype(np.int64, copy=False), c.astype(np.int64, copy=False)
        a = a[a < c]
    else:
        ends = np.concatenate([a, c]).astype(np.int64)
        others = np.concatenate([c, a]).astype(np.int64)
        order = np.lexsort((others, ends))
        ends, others = ends[order], others[order]
    counts = np.bincount(ends, minlength=n) if n else np.zeros(0, np.int64)
    if np.any(counts > b):
        raise GpusimInternalError(f"{stats['algorithm']} gave a vertex more than b partners on {graph!r}")
    partners = np.full((n, width), -1, np.int32)
    if ends.size:
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        partners[ends, np.arange(ends.size) - starts[ends]] = others
    stats = {"algorithm": stats["algorithm"], "size": int(a.size), **stats}
    weight = checked_output(stats["algorithm"], graph, check_b_matching, graph, partners, b)
    return BMatchingResult(partners, weight, stats)


def suitor_pairs(graph: WeightedGraph, suitor: np.ndarray, caps: np.ndarray, algorithm: str
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``(x, v)``, ``x < v``, of b-Suitor's suitor sets: ``suitor[s]`` is the suitor held in slot ``s``
    (-1: empty), vertex ``v`` owning ``caps[v]`` consecutive slots.  Each edge of the b-matching is held from
    both sides; an asymmetric set is a bug of ``algorithm`` (``GpusimInternalError``)."""
    n = graph.n
    v_of_slot = np.repeat(np.arange(n, dtype=np.int64), caps)
    used = suitor >= 0
    x, v = suitor[used].astype(np.int64), v_of_slot[used]
    if not np.array_equal(np.sort(x * n + v), np.sort(v * n + x)):
        raise GpusimInternalError(f"{algorithm} ended with asymmetric suitor sets on {graph!r}")
    keep = x < v
    return x[keep], v[keep]


def from_reference(found: WeightedMatchingResult, algorithm: str, graph: WeightedGraph) -> WeightedMatching:
    """A sequential reference's matching as the family's result, ``algorithm`` run on ``"cpu"``."""
    return WeightedMatching(found.mate, found.weight, algorithm, "cpu", dict(found.stats), graph)
