"""Louvain's input when it already lives in device memory: no copy of the edge arrays in.

The GPU Louvain method (:func:`~gpusim.algorithms.louvain.driver.gpu_louvain`) takes, besides every host
input of :func:`~gpusim.algorithms.louvain.graph.load_louvain_graph`, a
:class:`~gpusim.types.device_graphs.DeviceWeightedGraph` (a symmetric weighted CSR of CuPy, numba, other
CUDA or simulator arrays) or a ``cupyx.scipy.sparse`` matrix, which becomes one on the GPU.  The graph
is Louvain's input as it is: its arrays are those of a
:class:`~gpusim.algorithms.louvain.graph.LouvainGraph` (``A[u, v]`` per entry, sorted lists), with one
restriction: **no self-loops** (a device weighted graph refuses them, as the matching graphs do).  A
graph with self-loops goes in as a host graph.

Its contents are checked once, on the device, by the kernels of :mod:`gpusim.runtime.device_checks`
(:func:`gpusim.runtime.resident_graphs.resident`: offsets, ids in range, sorted lists, finite weights
>= 0, symmetric weights, no self-loops).  The few numbers the host loop needs about the input
(:class:`InputFacts`: entries, vertices without an edge, whether there is any weight, whether every weight is 1)
are computed by :func:`input_facts`, one launch, with three numbers read back.

Example
-------
>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.device_graphs import DeviceWeightedGraph
>>> dev = Device("sim", seed=0)
>>> g = DeviceWeightedGraph(4, dev.array(np.array([0, 1, 3, 4, 4], np.int32)),
...                         dev.array(np.array([1, 0, 2, 1], np.int32)), dev.array(np.array([1.0, 1.0, 2.5, 2.5])))
>>> device_facts(dev, g)
InputFacts(n=4, entries=4, isolated=1, total_weight=3.5, unit_weights=False)
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from gpusim import T, kernel
from gpusim.errors import InvalidArgument
from gpusim.runtime.device import Device
from gpusim.runtime.device_checks import NONE, check_grid, smallest_offenders
from gpusim.types.device_graphs import DeviceWeightedGraph, canonical_rows, is_device_sparse

from .graph import LouvainGraph, load_louvain_graph

__all__ = ["InputFacts", "device_facts", "entry_problems", "from_cupyx", "host_facts", "input_facts",
           "louvain_input"]



class InputFacts(NamedTuple):
    """What the host loop knows of its input graph (:class:`~gpusim.algorithms.louvain.graph.LouvainGraph`'s
    ``n``, ``n_entries``, ``n_isolated``, ``total_weight`` and ``unit_weights``: every weight 1, so that the kernels
    need not read them)."""

    n: int
    entries: int
    isolated: int
    total_weight: float
    unit_weights: bool


@kernel(signature="int32[:], float64[:], int32, int32, int32[:], float64[:]")
def input_facts(ptr, weights, n, m, counts, total):
    """``counts[0]`` += the vertices ``i < n`` with an entry (``ptr[i + 1] > ptr[i]``), ``counts[1]`` += the entries
    whose weight is not 1, ``total[0]`` += the sum of the ``m`` entries' weights (``2 m`` of Eq. (1): each edge
    twice).  One grid-stride loop over vertices and entries together, a warp sum (``T.reduce_add``) and one atomic
    a warp for each."""
    i = T.gtid()
    count = 0
    other = 0
    weight = 0.0
    while i < n or i < m:
        if i < n and ptr[i + 1] > ptr[i]:
            count += 1
        if i < m:
            weight += weights[i]
            if weights[i] != 1.0:
                other += 1
        i += T.num_threads()
    count = T.reduce_add(count)
    other = T.reduce_add(other)
    weight = T.reduce_add(weight)
    if T.lane_id() == 0:
        T.atomic_add(counts, 0, count)
        T.atomic_add(counts, 1, other)
        T.atomic_add(total, 0, weight)


def host_facts(graph: LouvainGraph) -> InputFacts:
    """The facts of a host graph, from its own attributes.

    >>> from gpusim.algorithms.louvain.graph import karate
    >>> host_facts(karate())
    InputFacts(n=34, entries=156, isolated=0, total_weight=78.0, unit_weights=True)
    """
    return InputFacts(graph.n, graph.n_entries, graph.n_isolated, graph.total_weight, graph.unit_weights)


def device_facts(dev: Device, graph: DeviceWeightedGraph, launch: Any = None) -> InputFacts:
    """The facts of a device-resident graph (adopted by ``dev``), computed there by :func:`input_facts`.

    ``total_weight`` is the weights' sum halved, added in the device's order (it may differ from
    :class:`~gpusim.algorithms.louvain.graph.LouvainGraph`'s in the last bits; the host loop only asks
    whether it is positive, which no order changes).  ``launch`` (a
    :class:`~gpusim.runtime.launcher.Launcher`) counts the launch when given."""
    n, entries = graph.n, int(graph.adj.shape[0])
    counts, total = dev.zeros(2, np.int32), dev.zeros(1, np.float64)
    if n:
        grid, block = check_grid(dev, max(n, entries))
        weights = graph.weights if entries else dev.zeros(1, np.float64)
        args = (graph.ptr, weights, n, entries, counts, total)
        if launch is None:
            dev.launch(input_facts, grid, block, args)
        else:
            launch(input_facts, grid, block, *args)
    (with_edges, others), two_m = dev.to_host(counts)[:2].tolist(), float(dev.to_host(total)[0])
    return InputFacts(n, entries, n - with_edges, two_m / 2.0, entries > 0 and others == 0)


def louvain_input(source: Any, symmetrise: str | None = None) -> LouvainGraph | DeviceWeightedGraph:
    """Louvain's input: a :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` as it is, a
    ``cupyx.scipy.sparse`` matrix as one (:func:`from_cupyx`), anything else through
    :func:`~gpusim.algorithms.louvain.graph.load_louvain_graph` (to the host graph).

    >>> louvain_input(([0, 1], [1, 2]))
    LouvainGraph(n=3, entries=4, total_weight=2)
    """
    if isinstance(source, DeviceWeightedGraph):
        return source
    if is_device_sparse(source):
        if symmetrise is not None:
            raise InvalidArgument("symmetrise= is for host matrices: a cupyx matrix must be symmetric already")
        return from_cupyx(source)
    return load_louvain_graph(source, symmetrise=symmetrise)


@kernel(signature="int32[:], int32[:], float64[:], int32, int32[:]")
def entry_problems(rows, cols, weights, m, bad):
    """Over the ``m`` entries of a ``cupyx`` matrix (its rows, columns and weights): ``bad[0]`` the smallest position
    of a self-loop (a diagonal entry other than 0), ``bad[1]`` of a weight that is negative or not finite,
    ``bad[2]`` of a zero (no edge).  A thread an entry, one pass for the three."""
    k = T.gtid()
    while k < m:
        w = weights[k]
        if rows[k] == cols[k] and w != 0.0:
            T.atomic_min(bad, 0, k)
        if not (w >= 0.0 and w - w == 0.0):
            T.atomic_min(bad, 1, k)
        if w == 0.0:
            T.atomic_min(bad, 2, k)
        k += T.num_threads()


def from_cupyx(matrix: Any) -> DeviceWeightedGraph:
    """A square, symmetric ``cupyx.scipy.sparse`` matrix as a device graph, on the GPU: the graph
    :meth:`LouvainGraph.from_scipy <gpusim.algorithms.louvain.graph.LouvainGraph.from_scipy>` reads from the same
    matrix on the host (duplicates summed, zeros no edge).

    For Louvain a diagonal entry is a self-loop and a negative weight an error: both are refused in one line, found
    with the zeros by one pass over the entries (:func:`entry_problems`, three numbers read back).  A CSR matrix in
    canonical form with no zero, what a user usually holds, becomes the graph as it is (copied to ``int32`` offsets
    and ids and ``float64`` weights); any other goes through
    :meth:`DeviceWeightedGraph.from_cupyx <gpusim.types.device_graphs.DeviceWeightedGraph.from_cupyx>`, which drops
    the zeros.  Symmetry is checked on the device when the driver takes the graph."""
    import cupy

    if len(matrix.shape) != 2 or matrix.shape[0] != matrix.shape[1] or matrix.dtype.kind not in "fiub":
        return DeviceWeightedGraph.from_cupyx(matrix)  # refuses other shapes and dtypes
    rows = canonical_rows(matrix)
    if rows is not None:  # canonical already: its entries as they are, no sort
        coo = SimpleNamespace(row=rows, col=matrix.indices, data=matrix.data)
    else:
        coo = matrix.tocsr().tocoo()  # a new matrix: the caller's is not put in canonical form
        coo.sum_duplicates()
    cols, weights = coo.col.astype(cupy.int32), coo.data.astype(cupy.float64)  # copies: the graph's own arrays
    m = int(weights.shape[0])
    loop, bad, zero = smallest_offenders(Device("cupy"), entry_problems, m, 3, coo.row.astype(cupy.int32, copy=False),
                                         cols, weights, m) if m else [NONE] * 3
    if loop != NONE:
        i = int(coo.row[loop])
        raise InvalidArgument(f"entry ({i}, {i}) = {float(coo.data[loop])!r} is a self-loop: a device-resident "
                              "Louvain input has none (give the graph on the host, e.g. a SciPy matrix, for "
                              "self-loops)")
    if bad != NONE:
        raise InvalidArgument(f"entry ({int(coo.row[bad])}, {int(coo.col[bad])}) = {float(coo.data[bad])!r} is "
                              "negative or not finite: Louvain needs finite, non-negative weights")
    if rows is not None and zero == NONE:  # no zero, so no diagonal entry either: nothing to drop
        return DeviceWeightedGraph(matrix.shape[0], matrix.indptr.astype(cupy.int32), cols, weights)
    return DeviceWeightedGraph.from_cupyx(matrix)
