"""``maximum_bipartite_matching``: the family's entry, one call to the dispatcher.

It checks the input type and hands the rest to :func:`gpusim.runtime.dispatch.dispatch`, which runs
the registered algorithm on the backend asked for (or the one ``"auto"`` chooses) and says in
``stats["chosen"]`` what ran and why.  The algorithms register themselves where they are defined.

Example
-------
>>> ALGORITHMS
('gpr', 'apfb', 'apsb', 'hk', 'pfp', 'pr')
"""

from __future__ import annotations

from typing import Any

from gpusim.errors import InvalidArgumentType
from gpusim.runtime.dispatch import dispatch
from gpusim.runtime.registry import lookup, names
from gpusim.runtime.resident_graphs import device_backend
from gpusim.types.device_graphs import DeviceBipartiteGraph, is_device_sparse
from gpusim.types.graphs import BipartiteGraph, load_graph
from gpusim.types.results import BipartiteMatching

# isort: off
# The order of registration is the order of ALGORITHMS: G-PR (the default) first, then APFB, APsB and
# the sequential references.
from . import gpu_push_relabel, augmenting, reference_hk, reference_pf, reference_pr  # noqa: F401
# isort: on

__all__ = ["ALGORITHMS", "maximum_bipartite_matching"]

#: Every maximum-matching algorithm by its CLI name (the registry's): the GPU ones (Deveci et al., Euro-Par 2013, ICPP
#: 2013) and
#: the sequential references.
ALGORITHMS = names("bipartite")


def maximum_bipartite_matching(graph: BipartiteGraph, algorithm: str = "gpr", backend: str = "auto",
                               **options: Any) -> BipartiteMatching:
    """A maximum-cardinality matching of ``graph`` by ``algorithm`` on ``backend``, certified.

    Parameters
    ----------
    graph:
        A :class:`~gpusim.types.graphs.BipartiteGraph`, or a device-resident graph (a
        :class:`~gpusim.types.device_graphs.DeviceBipartiteGraph` or a ``cupyx.scipy.sparse`` matrix) for
        a GPU algorithm on the device that holds it (``"auto"`` picks that device).
    algorithm:
        ``"gpr"``, ``"apfb"``, ``"apsb"`` (GPU algorithms, on ``sim``, ``numba`` or ``cupy``) or
        ``"hk"``, ``"pfp"``, ``"pr"`` (sequential references, on ``cpu``).
    backend:
        ``"auto"`` takes a GPU when one works, else ``cpu`` (never the simulator: ask for ``"sim"``).
        On ``cpu`` a GPU algorithm runs its sequential counterpart (``gpr`` → ``pr``,
        ``apfb``/``apsb`` → ``hk``); ``stats["chosen"]`` says what ran and why.
    **options:
        Passed on to the algorithm (e.g. ``layout="mt"``, ``variant="first"``, ``k=0.5``,
        ``output="device"``).

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1])
    >>> m = maximum_bipartite_matching(g, "hk", backend="cpu")
    >>> m.size, m.certified, m.backend
    (2, True, 'cpu')
    >>> m = maximum_bipartite_matching(g, "gpr", backend="cpu")
    >>> m.algorithm, m.stats["chosen"]
    ('pr', 'asked for: ran its sequential counterpart pr')
    """
    graph = load_graph(graph) if is_device_sparse(graph) else graph  # a cupyx matrix stays on the GPU
    if not isinstance(graph, (BipartiteGraph, DeviceBipartiteGraph)):
        raise InvalidArgumentType(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    if isinstance(graph, DeviceBipartiteGraph):
        backend = device_backend(graph, backend if lookup("bipartite", algorithm).gpu else "cpu")
    return dispatch("bipartite", graph, algorithm, backend, size=graph.n_edges, **options)
