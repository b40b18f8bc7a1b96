"""A weighted matching (or b-matching) left on the device: what ``output="device"`` returns.

:func:`~gpusim.algorithms.weighted.suitor`, :func:`~gpusim.algorithms.weighted.locally_dominant` and
:func:`~gpusim.algorithms.weighted.b_suitor` called with ``output="device"`` copy nothing back but the two
totals they add on the device (:func:`~gpusim.algorithms.weighted.assembly.reduce_pairs`): the result's
``mate`` (or ``partners``) is an array of the backend — a CuPy array on ``"cupy"``, a numba device array on
``"numba"``, a simulator array on ``"sim"`` — and ``weight`` and ``size`` are those totals.  Validation is
on demand: ``valid``, ``problem``, ``certificate()`` and ``certified`` copy the result to the host the
first time they are asked (and the graph too, when it is a
:class:`~gpusim.types.device_graphs.DeviceWeightedGraph`), then check it as
:class:`~gpusim.algorithms.weighted.WeightedMatching` does; :meth:`DeviceWeightedMatching.to_host` is that
host copy.

Example
-------
>>> from gpusim.types.graphs import WeightedGraph
>>> from gpusim.algorithms.weighted import suitor
>>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
>>> m = suitor(g, backend="sim", output="device")
>>> m, type(m.mate).__name__
(DeviceWeightedMatching(size=1, weight=3.0, algorithm='suitor', backend='sim'), 'SimArray')
>>> m.valid, m.to_host().mate.tolist()
(True, [-1, 2, 1, -1])
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.runtime.device import Device
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.graphs import WeightedGraph
from gpusim.types.results import CheckedResult

from .result import WeightedMatching

__all__ = ["DeviceWeightedMatching", "exactly"]


class DeviceWeightedMatching(CheckedResult):
    """A weighted matching or b-matching whose arrays stay on the device, validated on demand on the host.

    Attributes
    ----------
    mate:
        A device array of ``n`` int32: ``mate[v]`` the mate of ``v`` or -1.  For a b-matching, the partners
        array when its rows are one wide (``width == 1``), else None.
    partners, width:
        For a b-matching: a device array of ``n * width`` int32, row ``v`` (``partners[v * width:(v + 1) *
        width]``) the partners of ``v`` in increasing order, -1 padded; None and 0 for a matching.
    weight, size:
        The total weight and the matched pairs, both added on the device.
    b:
        The capacities asked for (a b-matching), else None.
    graph, algorithm, backend, stats:
        The input (a host graph or a device-resident one), what computed it, its counters.
    valid, problem, certified:
        As for :class:`~gpusim.algorithms.weighted.WeightedMatching`, checked on :meth:`to_host`'s copy.
    """

    def __init__(self, graph: WeightedGraph | DeviceWeightedGraph, device: Device, mate: Any, weight: float,
                 size: int, algorithm: str, stats: dict, *, partners: Any = None, width: int = 0, b: Any = None):
        self.graph = graph
        self.device = device
        self.mate, self.partners, self.width, self.b = mate, partners, int(width), b
        self.weight, self.size = float(weight), int(size)
        self.algorithm, self.backend, self.stats = algorithm, device.backend, stats

    @cached_property
    def host(self) -> WeightedMatching:
        """The same result with host arrays (copied once, when first asked): a
        :class:`~gpusim.algorithms.weighted.WeightedMatching` equal to what ``output="host"`` returns; for a
        b-matching, its ``partners`` table ``(n, width)`` and ``mate`` as the registry's ``bsuitor`` gives them."""
        n = self.graph.n
        if self.partners is None:
            return WeightedMatching(self._copy(self.mate, n), self.weight, self.algorithm, self.backend, self.stats,
                                    self.graph, pairs=self.size)
        partners = self._copy(self.partners, n * self.width).reshape(n, self.width)
        mate = partners[:, 0].copy() if self.width == 1 else np.full(n, -1, np.int32)
        return WeightedMatching(mate, self.weight, self.algorithm, self.backend, self.stats, self.graph, partners,
                                self.b, pairs=self.size)

    def _copy(self, array: Any, length: int) -> np.ndarray:
        return self.device.to_host(array)[:length] if length else np.zeros(0, np.int32)

    def to_host(self) -> WeightedMatching:
        """``host``: the result copied back, as a :class:`~gpusim.algorithms.weighted.WeightedMatching`."""
        return self.host

    def _check(self) -> float:
        problem = self.host.problem
        if problem is not None:
            raise InvalidArgument(problem)
        return self.weight

    def certificate(self) -> list[tuple[int, int]]:
        """The undominated edges of :meth:`to_host`'s result (none for a locally dominant one)."""
        return self.host.certificate()

    @cached_property
    def certified(self) -> bool:
        """Valid, and locally dominant (:meth:`certificate` is empty): at least half the maximum weight."""
        return self.valid and not self.certificate()

    def __repr__(self) -> str:
        return (f"DeviceWeightedMatching(size={self.size}, weight={self.weight!r}, algorithm={self.algorithm!r}, "
                f"backend={self.backend!r})")


def exactly(device: Device, array: Any, length: int) -> Any:
    """``array`` (allocated with ``max(length, 1)`` entries, so never empty) as a device array of ``length``
    entries: itself, or a new empty one for ``length == 0``.

    >>> import numpy as np
    >>> dev = Device("sim")
    >>> a = dev.full(1, -1, np.int32)
    >>> exactly(dev, a, 1) is a, len(dev.to_host(exactly(dev, a, 0)))
    (True, 0)
    """
    return array if length else device.zeros(0, np.int32)
