"""A matching whose mate arrays stay in device memory (``output="device"``), checked on the device.

:class:`DeviceBipartiteMatching` is what a GPU bipartite algorithm returns for ``output="device"`` or a
device-resident input: ``row_match`` and ``col_match`` are arrays of the backend (CuPy arrays on
``"cupy"``, numba device arrays on ``"numba"``, simulator arrays on ``"sim"``), so a pipeline pays no copy
out.  ``valid`` runs a checking kernel against the device input (the function ``problem_of`` the driver
hands over: every matched pair an edge, both sides agreeing), so it needs no host copy either;
:meth:`~DeviceBipartiteMatching.to_host` copies everything back into a
:class:`~gpusim.types.results.BipartiteMatching`, and ``certified`` (a König cover) does so.

>>> import numpy as np
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0], [0])
>>> m = DeviceBipartiteMatching(g, "R", "C", 1, "gpr", "sim", problem_of=lambda: "row 0 is not matched back",
...                             host_arrays=lambda: (np.array([0], np.int32), np.array([-1], np.int32)))
>>> m.size, m.valid, m.problem
(1, False, 'row 0 is not matched back')
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument
from gpusim.types.graphs import BipartiteGraph
from gpusim.types.results import BipartiteMatching, CheckedResult

__all__ = ["DeviceBipartiteMatching"]


class DeviceBipartiteMatching(CheckedResult):
    """A maximum-cardinality bipartite matching left on the device.

    Attributes
    ----------
    graph:
        The graph it matches (a host :class:`~gpusim.types.graphs.BipartiteGraph` or a device-resident one).
    row_match, col_match:
        Device arrays of the backend: ``row_match[r]`` the column matched to row ``r``, -1 when unmatched.
    size:
        Matched rows (counted on the device).
    valid, problem:
        Checked on the device by a kernel, against the device input.
    certified:
        Valid, and the König cover of :meth:`to_host`'s result proves it maximum (copies to the host).
    """

    def __init__(self, graph: Any, row_match: Any, col_match: Any, size: int, algorithm: str, backend: str,
                 stats: dict | None = None, *, problem_of: Callable[[], str | None],
                 host_arrays: Callable[[], tuple[np.ndarray, ...]]):
        self.graph = graph
        self.row_match, self.col_match = row_match, col_match
        self.size = int(size)
        self.algorithm, self.backend = algorithm, backend
        self.stats = dict(stats or {})
        self._problem_of, self._host_arrays = problem_of, host_arrays

    def _check(self) -> int:
        problem = self._problem_of()
        if problem is not None:
            raise InvalidArgument(problem)
        return self.size

    @cached_property
    def host(self) -> BipartiteMatching:
        """The same matching copied to the host (the graph too, when it lives on the device)."""
        arrays = self._host_arrays()
        row_match, col_match = arrays[:2]
        graph = self.graph if isinstance(self.graph, BipartiteGraph) else BipartiteGraph(
            self.graph.n_rows, self.graph.n_cols, arrays[2], arrays[3])
        return BipartiteMatching(graph, row_match, col_match, self.algorithm, self.backend, self.stats)

    def to_host(self) -> BipartiteMatching:
        """:attr:`host`: a :class:`~gpusim.types.results.BipartiteMatching` of host arrays."""
        return self.host

    def certificate(self) -> tuple[np.ndarray, np.ndarray]:
        """The König cover of :meth:`to_host`'s matching (computed on the host)."""
        return self.host.certificate()

    @cached_property
    def certified(self) -> bool:
        return self.valid and self.host.certified

    def __repr__(self) -> str:
        return (f"DeviceBipartiteMatching(size={self.size}, algorithm={self.algorithm!r}, "
                f"backend={self.backend!r})")
