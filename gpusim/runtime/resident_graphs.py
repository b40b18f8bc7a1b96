"""Device-resident graphs taken by an algorithm: adopted by its ``Device`` without a copy, checked once.

:func:`resident` is what a GPU driver calls on its input: a host graph passes through unchanged (the
driver copies its arrays as before); a :class:`~gpusim.types.device_graphs.DeviceBipartiteGraph` or
:class:`~gpusim.types.device_graphs.DeviceWeightedGraph` comes back with every array adopted by the
device (``Device.array`` on a device array is no copy), its contents checked by the kernels of
:mod:`gpusim.runtime.device_checks` the first time.

>>> import numpy as np
>>> from gpusim import Device
>>> from gpusim.types.device_graphs import DeviceBipartiteGraph
>>> dev = Device("sim")
>>> a = lambda *x: dev.array(np.array(x, np.int32))
>>> g = DeviceBipartiteGraph(2, 2, a(0, 2, 3), a(0, 1, 0), a(0, 2, 3), a(0, 1, 1))
>>> resident(dev, g)
Traceback (most recent call last):
...
gpusim.errors.InvalidArgument: row_adj lists edge (0, 1) at position 1, but col_adj does not: the two sides disagree
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.runtime.device import Device
from gpusim.runtime.device_checks import (
    csr_problem,
    matched_count,
    matching_problem,
    transpose_problem,
    weighted_problem,
)
from gpusim.runtime.launcher import Launcher
from gpusim.types.device_graphs import DeviceBipartiteGraph, DeviceWeightedGraph, memory_of
from gpusim.types.device_results import DeviceBipartiteMatching
from gpusim.types.graphs import BipartiteGraph, WeightedGraph
from gpusim.types.results import BipartiteMatching

__all__ = ["OUTPUTS", "adopt", "backend_where", "bipartite_bytes", "bipartite_result", "check_fits", "check_output",
           "device_backend", "is_device_graph", "resident", "to_device", "weighted_bytes"]

#: Where a GPU algorithm leaves its result: copied to the host (the default) or on the device.
OUTPUTS = ("host", "device")


def is_device_graph(graph: Any) -> bool:
    """Whether ``graph`` is one of the device-resident graph types."""
    return isinstance(graph, (DeviceBipartiteGraph, DeviceWeightedGraph))


def adopt(dev: Device, name: str, array: Any) -> Any:
    """``array`` (a device array) as an array of ``dev``, without a copy; a one-line error when ``dev``
    cannot see that memory (a CuPy array on the simulator, a simulator array on a GPU)."""
    if not dev.holds(array):
        raise InvalidArgument(
            f"{name} lives in {memory_of(array)} memory, which backend {dev.backend!r} cannot use without a copy; "
            f"run on backend={'cupy' if memory_of(array) != 'sim' else 'sim'!r}"
        )
    return dev.array(array)


def to_device(dev: Device, graph: BipartiteGraph | WeightedGraph) -> DeviceBipartiteGraph | DeviceWeightedGraph:
    """A host graph copied to ``dev`` once, as a device-resident graph (already valid: not checked again).

    For pipelines and benchmarks that time calls with the input already on the device.

    >>> from gpusim.types.graphs import BipartiteGraph
    >>> d = to_device(Device("sim"), BipartiteGraph.from_edges([0, 1], [1, 0]))
    >>> d, d.checked
    (DeviceBipartiteGraph(n_rows=2, n_cols=2, n_edges=2, memory='sim'), True)
    """
    if isinstance(graph, BipartiteGraph):
        arrays = (graph.row_ptr, graph.row_adj, graph.col_ptr, graph.col_adj)
        device_graph = DeviceBipartiteGraph(graph.n_rows, graph.n_cols, *(dev.array(a) for a in arrays))
    elif isinstance(graph, WeightedGraph):
        device_graph = DeviceWeightedGraph(graph.n, *(dev.array(a) for a in (graph.ptr, graph.adj, graph.weights)))
    else:
        raise InvalidArgumentType(f"graph must be a BipartiteGraph or a WeightedGraph, got {type(graph).__name__}")
    device_graph.checked = True
    return device_graph


def resident(dev: Device, graph: Any) -> Any:
    """``graph`` ready for ``dev``: a host graph unchanged; a device graph adopted and checked (once), the
    adopted graph kept for the next calls on the same backend."""
    if not is_device_graph(graph):
        return graph
    if not _taken(dev, graph):
        graph.derived["adopted", dev.backend] = _adopted(dev, graph)
    return graph.derived["adopted", dev.backend]


def _taken(dev: Device, graph: DeviceBipartiteGraph | DeviceWeightedGraph) -> bool:
    """Whether ``dev``'s backend has already adopted and checked the device graph ``graph`` (:func:`resident`)."""
    return graph.checked and ("adopted", dev.backend) in graph.derived


def check_fits(dev: Device, graph: Any, needed: int | Callable[[], int], algorithm: str, alternative: str) -> None:
    """:meth:`Device.check_fits <gpusim.Device.check_fits>` of ``needed`` bytes (or ``needed()``, counted only when
    asked) for a call on ``graph``, before any copy — except on a device graph ``dev``'s backend has already taken
    (:func:`resident`): such a call copies nothing in, the arrays of its own were allocated once before, and an
    allocation the device refuses still ends in one line (:class:`~gpusim.errors.InsufficientDeviceMemory`).  That
    saves a query of the device's free memory (9 to 17 us on an H100), and the count of bytes, on every later call."""
    if not (is_device_graph(graph) and _taken(dev, graph)):
        dev.check_fits(needed() if callable(needed) else needed, algorithm, alternative)


def _adopted(dev: Device, graph: DeviceBipartiteGraph | DeviceWeightedGraph) -> Any:
    """``graph`` with its arrays adopted by ``dev``, its contents checked on the device unless already done."""
    if isinstance(graph, DeviceBipartiteGraph):
        names = ("row_ptr", "row_adj", "col_ptr", "col_adj")
        arrays = [adopt(dev, name, a) for name, a in zip(names, (graph.row_ptr, graph.row_adj, graph.col_ptr,
                                                                 graph.col_adj), strict=True)]
        adopted = DeviceBipartiteGraph(graph.n_rows, graph.n_cols, *arrays)
        nr, nc = graph.n_rows, graph.n_cols
        problem = None if graph.checked else (
            csr_problem(dev, arrays[0], arrays[1], nr, nc, "row_ptr", "row_adj")
            or csr_problem(dev, arrays[2], arrays[3], nc, nr, "col_ptr", "col_adj")
            or transpose_problem(dev, *arrays, nr, ("row_adj", "col_adj")))
    else:
        names = ("ptr", "adj", "weights")
        arrays = [adopt(dev, name, a) for name, a in zip(names, (graph.ptr, graph.adj, graph.weights), strict=True)]
        adopted = DeviceWeightedGraph(graph.n, *arrays)
        problem = None if graph.checked else weighted_problem(dev, graph.n, *arrays)
    if problem is not None:
        raise InvalidArgument(problem)
    graph.checked = adopted.checked = True
    return adopted


def device_backend(graph: Any, backend: str) -> str:
    """The backend for a device-resident ``graph``: ``"auto"`` takes the one whose memory it is in (CuPy
    for any other CUDA array); ``"cpu"`` is refused — its arrays are not on the host.

    >>> import numpy as np
    >>> from gpusim.types.device_graphs import DeviceWeightedGraph
    >>> dev = Device("sim")
    >>> g = DeviceWeightedGraph(0, dev.array(np.zeros(1, np.int32)), dev.zeros(0), dev.zeros(0, np.float64))
    >>> device_backend(g, "auto")
    'sim'
    """
    return backend_where(graph.memory, backend,
                         f"the graph lives in {graph.memory} memory: the sequential algorithms (backend='cpu') need a "
                         "host graph; run a GPU algorithm on its device, or copy the graph to the host first")


def backend_where(memory: str, backend: str, refusal: str) -> str:
    """The backend for an input already in ``memory`` (:func:`~gpusim.types.device_graphs.memory_of`): ``"auto"``
    takes the one whose memory it is (CuPy for any other CUDA array), ``"cpu"`` is refused with ``refusal`` (its
    data are not on the host), any other name is kept.  The graphs, preference lists and dense matrices on a
    device all choose their backend so.

    >>> backend_where("cuda", "auto", "no"), backend_where("numba", "cupy", "no")
    ('cupy', 'cupy')
    """
    if backend == "cpu":
        raise InvalidArgument(refusal)
    if backend == "auto":
        return "cupy" if memory == "cuda" else memory
    return backend


def check_output(output: Any) -> str:
    """``output`` checked: ``"host"`` or ``"device"``."""
    if not isinstance(output, str) or output not in OUTPUTS:
        raise InvalidArgument(f"output={output!r} is not one of {OUTPUTS}")
    return output


def bipartite_bytes(graph: Any, sides: tuple[str, ...], vertex_words: int) -> int:
    """Device bytes a bipartite driver needs: the CSR ``sides`` (``"row"``, ``"col"``) it copies — none
    for a device-resident graph, already there — and ``vertex_words`` int32 arrays over all vertices.

    >>> from gpusim.types.graphs import BipartiteGraph
    >>> bipartite_bytes(BipartiteGraph.from_edges([0, 1], [1, 1]), ("row", "col"), 4)
    104
    """
    nr, nc, m = graph.n_rows, graph.n_cols, graph.n_edges
    copied = 0 if is_device_graph(graph) else sum(4 * ((nr if s == "row" else nc) + 1 + m) for s in sides)
    return copied + 4 * vertex_words * (nr + nc)


def weighted_bytes(graph: Any, vertex_words: int) -> int:
    """Device bytes a weighted driver needs: the CSR, weights and each entry's owner (none for a
    device-resident graph) and ``vertex_words`` 8-byte words per vertex."""
    entries = 2 * graph.n_edges
    copied = 0 if is_device_graph(graph) else 4 * (graph.n + 1) + 16 * entries
    return copied + 8 * vertex_words * graph.n


def bipartite_result(launch: Launcher, graph: Any, col_ptr: Any, col_adj: Any, rmatch: Any, cmatch: Any,
                     algorithm: str, stats: dict, output: str, size: int | None = None
                     ) -> BipartiteMatching | DeviceBipartiteMatching:
    """A bipartite driver's result, ``stats`` (the driver's own dict) completed with the launches and phases of
    ``launch``: as before for a host graph and ``output="host"``; else a
    :class:`~gpusim.types.device_results.DeviceBipartiteMatching` checked on the device against the column side's
    CSR (``col_ptr``, ``col_adj``), its mates on the device for ``output="device"``.  ``size``: the rows matched,
    when the driver already counted them on the device (else a kernel counts them here, in phase ``"result"``:
    device work, timed as such)."""
    dev, nr, nc = launch.device, graph.n_rows, graph.n_cols
    counted = output == "device" or is_device_graph(graph)
    if size is None and counted:
        with launch.phase("result"):
            size = matched_count(dev, rmatch, nr)
    stats["launches"], stats["seconds"] = dict(launch.launches), dict(launch.seconds)
    if not counted:
        return BipartiteMatching(graph, dev.to_host(rmatch)[:nr], dev.to_host(cmatch)[:nc], algorithm,
                                 dev.backend, stats)

    def problem_of() -> str | None:
        return matching_problem(dev, col_ptr, col_adj, cmatch, rmatch, nc, nr, "column", "row")

    def host_arrays() -> tuple[np.ndarray, ...]:
        arrays = (dev.to_host(rmatch)[:nr], dev.to_host(cmatch)[:nc])
        if is_device_graph(graph):
            arrays += (dev.to_host(graph.row_ptr), dev.to_host(graph.row_adj)[:graph.n_edges])
        return arrays

    if output == "device":
        rows, cols = (rmatch if nr else dev.zeros(0, np.int32)), (cmatch if nc else dev.zeros(0, np.int32))
    else:
        rows, cols = dev.to_host(rmatch)[:nr], dev.to_host(cmatch)[:nc]
    return DeviceBipartiteMatching(graph, rows, cols, size, algorithm, dev.backend, stats,
                                   problem_of=problem_of, host_arrays=host_arrays)
