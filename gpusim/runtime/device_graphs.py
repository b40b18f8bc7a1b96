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

from typing import Any

from gpusim.errors import InvalidArgument
from gpusim.runtime.device import Device
from gpusim.runtime.device_checks import csr_problem, transpose_problem, weighted_problem
from gpusim.types.device_graphs import DeviceBipartiteGraph, DeviceWeightedGraph, memory_of

__all__ = ["adopt", "is_device_graph", "resident"]


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


def resident(dev: Device, graph: Any) -> Any:
    """``graph`` ready for ``dev``: a host graph unchanged; a device graph adopted and checked (once)."""
    if isinstance(graph, DeviceBipartiteGraph):
        names = ("row_ptr", "row_adj", "col_ptr", "col_adj")
        arrays = [adopt(dev, name, a) for name, a in zip(names, (graph.row_ptr, graph.row_adj, graph.col_ptr,
                                                                 graph.col_adj), strict=True)]
        adopted = DeviceBipartiteGraph(graph.n_rows, graph.n_cols, *arrays)
        if not graph.checked:
            nr, nc = graph.n_rows, graph.n_cols
            problem = (csr_problem(dev, arrays[0], arrays[1], nr, nc, "row_ptr", "row_adj")
                       or csr_problem(dev, arrays[2], arrays[3], nc, nr, "col_ptr", "col_adj")
                       or transpose_problem(dev, *arrays, nr, ("row_adj", "col_adj")))
            if problem is not None:
                raise InvalidArgument(problem)
            graph.checked = True
        adopted.checked = True
        return adopted
    if isinstance(graph, DeviceWeightedGraph):
        names = ("ptr", "adj", "weights")
        arrays = [adopt(dev, name, a) for name, a in zip(names, (graph.ptr, graph.adj, graph.weights), strict=True)]
        adopted = DeviceWeightedGraph(graph.n, *arrays)
        if not graph.checked:
            problem = weighted_problem(dev, graph.n, *arrays)
            if problem is not None:
                raise InvalidArgument(problem)
            graph.checked = True
        adopted.checked = True
        return adopted
    return graph
