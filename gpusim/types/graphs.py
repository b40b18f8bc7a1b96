"""Graph types for matching: bipartite graphs and undirected weighted graphs, with validation.

:class:`BipartiteGraph` stores a bipartite graph in compressed sparse row (CSR) form on *both*
sides, as the GPU bipartite matching kernels of Deveci et al. (Euro-Par 2013, ICPP 2013) need (rows look up columns,
columns look up rows).  :class:`WeightedGraph` stores an undirected edge-weighted graph as a
symmetric CSR, as Locally-Dominant and Suitor need (Naim et al., HiPC 2015).  Both are immutable:
their arrays are int32 (ids, offsets) or float64 (weights) and read-only.

They are built from Matrix Market files, SciPy sparse matrices, NumPy edge arrays and NetworkX
graphs.  Bad input raises :class:`gpusim.errors.InvalidArgument` (a ``ValueError``) or
:class:`gpusim.errors.InvalidArgumentType` (a ``TypeError``) naming the argument and showing the
offending value; it never reaches a kernel.  The array constructors are vectorised (``np.sort``
of int64 pair keys and SciPy's O(m) COO-to-CSR conversion, no Python loop over edges), so graphs
with 10^7 edges build in a few seconds.

Examples
--------
>>> from gpusim.types.graphs import BipartiteGraph, WeightedGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [1, 0, 1])
>>> g.row_ptr.tolist(), g.row_adj.tolist(), g.col_ptr.tolist(), g.col_adj.tolist()
([0, 2, 3], [0, 1, 1], [0, 1, 3], [0, 0, 1])
>>> w = WeightedGraph.from_edges([0, 1], [1, 2], [2.0, 0.5])
>>> w.ptr.tolist(), w.adj.tolist(), w.weights.tolist()
([0, 1, 3, 4], [1, 0, 2, 1], [2.0, 2.0, 0.5, 0.5])
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import scipy.sparse as sp

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import type_name
from gpusim.types.bipartite_graph import BipartiteGraph
from gpusim.types.device_graphs import DeviceBipartiteGraph, DeviceWeightedGraph, is_device_sparse
from gpusim.types.weighted_graph import WeightedGraph

__all__ = ["BipartiteGraph", "WeightedGraph", "example_path", "examples_dir", "load_graph"]



_KINDS = {"bipartite": BipartiteGraph, "weighted": WeightedGraph}
_DEVICE_KINDS = {"bipartite": DeviceBipartiteGraph, "weighted": DeviceWeightedGraph}


def load_graph(source: Any, kind: Literal["bipartite", "weighted"] = "bipartite"
               ) -> BipartiteGraph | WeightedGraph | DeviceBipartiteGraph | DeviceWeightedGraph:
    """Build a graph from whatever ``source`` is, dispatching on its type.

    ====================================  ====================================
    ``source``                            constructor
    ====================================  ====================================
    a graph of the requested kind          returned unchanged (device-resident too)
    ``cupyx.scipy.sparse`` matrix          ``DeviceBipartiteGraph.from_cupyx`` /
                                           ``DeviceWeightedGraph.from_cupyx`` (stays on the GPU)
    a path or an open file                 ``from_matrix_market``
    SciPy sparse matrix or array           ``from_scipy``
    ``networkx.Graph``                     ``from_networkx``
    tuple ``(rows, cols)`` /               ``from_edges``
    ``(u, v)`` or ``(u, v, w)``
    ====================================  ====================================

    Parameters
    ----------
    source : str, os.PathLike, scipy.sparse.sparray, networkx.Graph, tuple or BipartiteGraph or WeightedGraph
    kind : str
        ``"bipartite"`` (a :class:`BipartiteGraph`) or ``"weighted"`` (a :class:`WeightedGraph`).

    Returns
    -------
    BipartiteGraph or WeightedGraph

    Raises
    ------
    InvalidArgument
        Unknown ``kind``; a tuple of the wrong length; whatever the constructor raises.
    InvalidArgumentType
        A ``source`` of no supported type.

    Examples
    --------
    >>> load_graph(([0, 1], [1, 0])).shape
    (2, 2)
    >>> load_graph(example_path("karate"), kind="weighted").n_edges
    78
    >>> load_graph(([], [], []), kind="weighted").n
    0
    """
    if not isinstance(kind, str) or kind not in _KINDS:
        raise InvalidArgument(f"kind={kind!r} is not one of {sorted(_KINDS)!r}")
    cls = _KINDS[kind]
    if isinstance(source, (cls, _DEVICE_KINDS[kind])):
        return source
    if is_device_sparse(source):
        return _DEVICE_KINDS[kind].from_cupyx(source)
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        return cls.from_matrix_market(source)
    if sp.issparse(source):
        return cls.from_scipy(source)
    if isinstance(source, tuple):
        lengths = (2,) if cls is BipartiteGraph else (2, 3)
        if len(source) not in lengths:
            names = "(rows, cols)" if cls is BipartiteGraph else "(u, v) or (u, v, w)"
            raise InvalidArgument(f"a tuple for kind={kind!r} must be {names}, got {len(source)} arrays")
        return cls.from_edges(*source)
    import networkx as nx

    if isinstance(source, nx.Graph):
        return cls.from_networkx(source)
    raise InvalidArgumentType(
        f"cannot build a {kind} graph from a {type_name(source)}: give a Matrix Market path, a SciPy sparse "
        "matrix, a networkx.Graph or a tuple of edge arrays"
    )


def examples_dir() -> Any:
    """The folder of the bundled examples (inside the installed package)."""
    return resources.files("gpusim") / "examples"


def example_path(name: str) -> Path:
    """Path of a bundled example file: ``karate.mtx``, ``west0067.mtx``, ``ash219.mtx``, ``marriage.json``.

    The extension may be left out (``"karate"``).  The three matrices come from the SuiteSparse
    collection (see ``tests/data/README.md``): ``karate`` is 34 x 34 symmetric pattern,
    ``west0067`` 67 x 67 real general, ``ash219`` 219 x 85 pattern.

    Parameters
    ----------
    name : str

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidArgument
        No bundled example has that name; the message lists the available names.

    Examples
    --------
    >>> example_path("west0067").name
    'west0067.mtx'
    >>> example_path("marriage.json").suffix
    '.json'
    """
    if not isinstance(name, str):
        raise InvalidArgumentType(f"name must be a str, got {name!r} of type {type_name(name)}")
    root = examples_dir()
    available = sorted(p.name for p in root.iterdir() if p.is_file() and p.name.endswith((".mtx", ".json")))
    matches = [f for f in available if name in (f, f.rsplit(".", 1)[0])]
    if len(matches) != 1:
        raise InvalidArgument(f"no bundled example named {name!r}; available: {', '.join(available)}")
    return Path(str(root / matches[0]))
