"""The weighted family's entry point: :func:`maximum_weight_matching`, one call to the dispatcher.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> maximum_weight_matching(g, "ld", backend="cpu").stats["chosen"]
'asked for'
"""

from __future__ import annotations

from typing import Any

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.dispatch import dispatch
from gpusim.runtime.registry import lookup
from gpusim.runtime.resident_graphs import device_backend
from gpusim.types.device_graphs import DeviceWeightedGraph, is_device_sparse
from gpusim.types.graphs import WeightedGraph, load_graph
from gpusim.types.numeric import check_matching_weight_fits

from .device_result import DeviceWeightedMatching
from .result import WeightedMatching

__all__ = ["DEVICE_RESIDENT", "maximum_weight_matching"]

#: The algorithms that take a graph in device memory (and ``output="device"``): the sparse GPU ones of Naim (PhD
#: thesis 2017).
DEVICE_RESIDENT = ("suitor", "ld", "bsuitor")


def maximum_weight_matching(graph: WeightedGraph | DeviceWeightedGraph, algorithm: str = "suitor",
                            backend: str = "auto", *, max_memory: int | None = None, **options: Any
                            ) -> WeightedMatching | DeviceWeightedMatching:
    """A half-approximate maximum-weight matching of ``graph`` by ``algorithm`` on ``backend``.

    ``suitor``, ``ld``, ``bsuitor`` (option ``b``, default 1) and ``roma`` run on the GPU
    backends (``sim``, ``numba``, ``cupy``) or, with ``backend="cpu"``, on the CPU engine (Suitor, LD and
    b-Suitor as locally-dominant rounds on every core, :mod:`~gpusim.algorithms.weighted.parallel_ld` and
    :mod:`~gpusim.algorithms.weighted.parallel_b`: the same matchings; ROMA sequentially); ``greedy``,
    ``pga``, ``gpa`` and ``rama`` run on ``cpu``
    (:data:`~gpusim.algorithms.weighted.WEIGHTED_ALGORITHMS`, read from the registry,
    :mod:`gpusim.runtime.registry`).  ``bsuitor`` puts its b-matching in ``partners`` (for
    ``b = 1`` also in ``mate``).  ``stats["chosen"]`` says which backend
    ran and why (:func:`gpusim.runtime.dispatch.dispatch`).  The result validates itself against
    ``graph`` on first use of ``valid`` (:class:`~gpusim.algorithms.weighted.WeightedMatching`).

    ``suitor``, ``ld`` and ``bsuitor`` (:data:`DEVICE_RESIDENT`) also take a graph already in device memory
    (a :class:`~gpusim.types.device_graphs.DeviceWeightedGraph` or a ``cupyx.scipy.sparse`` matrix; ``"auto"``
    runs on the device that holds it) and ``output="device"`` (GPU backends), which leaves the result's
    arrays on the device: a :class:`~gpusim.algorithms.weighted.device_result.DeviceWeightedMatching`.
    The others refuse ``output="device"`` (ROMA's own :func:`~gpusim.algorithms.weighted.driver_roma.roma` takes a
    dense matrix already on the device and leaves its matching there).  Other options go to the algorithm
    (``layout``, ``variant``, ``b``, ...).

    ``roma`` and ``rama`` are defined on complete graphs (Hovland, MSc thesis 2020): they run on the complete
    graph of ``graph``'s dense weight matrix, where non-edges weigh 0, start from
    ``mate="i,i+1"`` unless told, and need an even ``n`` (or ``pad=True``).  The pairs of that
    perfect matching that are not edges of ``graph`` are then dropped (``stats["dropped"]``
    counts them): they weigh 0, so the result is a matching of ``graph`` with the same weight.
    The dense matrix takes ``8 n^2`` bytes; above ``max_memory`` bytes in all (default half the
    memory available) the call refuses with ``InvalidArgument`` before allocating, as
    ``bsuitor`` does for its partners table (a row of ``min(b, degree)`` entries per vertex).

    Examples
    --------
    >>> from gpusim.types.graphs import WeightedGraph
    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> maximum_weight_matching(g, "greedy", backend="cpu").weight
    3.0
    >>> r = maximum_weight_matching(g, "roma", backend="cpu", mate="i,i+n/2")   # 0-2 and 1-3 are no edges
    >>> r.mate.tolist(), r.weight, r.stats["dropped"], r.valid
    ([-1, 2, 1, -1], 3.0, 1, True)
    >>> m = maximum_weight_matching(g, "ld", backend="sim", output="device")
    >>> type(m).__name__, m.weight, m.to_host().mate.tolist()
    ('DeviceWeightedMatching', 3.0, [-1, 2, 1, -1])
    """
    graph = load_graph(graph, kind="weighted") if is_device_sparse(graph) else graph  # stays on the GPU
    if not isinstance(graph, (WeightedGraph, DeviceWeightedGraph)):
        raise InvalidArgumentType(f"graph must be a WeightedGraph, got {type(graph).__name__}")
    if isinstance(graph, DeviceWeightedGraph):
        if lookup("weighted", algorithm).name not in DEVICE_RESIDENT:
            raise InvalidArgument(f"{algorithm!r} needs a host graph (the graph lives in {graph.memory} memory); "
                                  f"a device-resident graph runs {', '.join(DEVICE_RESIDENT)}")
        backend = device_backend(graph, backend)
    name = lookup("weighted", algorithm).name if options.get("output") == "device" else None
    if name is not None and name not in DEVICE_RESIDENT:
        hint = " (gpusim.algorithms.weighted.roma(weights, output='device') leaves ROMA's on the device)"
        raise InvalidArgument(f"output='device' is offered by {', '.join(DEVICE_RESIDENT)}; {algorithm!r} builds its "
                              f"matching of the graph on the host{hint if name == 'roma' else ''}")
    if isinstance(graph, WeightedGraph):  # the numeric policy: a weight beyond the largest double refused first
        b = options.get("b", 1) if lookup("weighted", algorithm).name == "bsuitor" else 1
        check_matching_weight_fits(graph.ptr, graph.adj, graph.weights, b if b is not None else 1,
                                   "a b-matching" if b != 1 else "a matching")
    return dispatch("weighted", graph, algorithm, backend, size=graph.n_edges, max_memory=max_memory, **options)
