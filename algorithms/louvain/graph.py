"""The graph Louvain works on: undirected, non-negatively weighted, self-loops allowed, as a CSR.

Louvain contracts each community into one vertex whose internal edges become a *self-loop*, so
the graph type must carry self-loops (the matching graphs of :mod:`gpusim.types.graphs` refuse them).
:class:`LouvainGraph` stores the symmetric **adjacency matrix** ``A`` row by row: ``A[u, v] =
A[v, u] = w`` for an edge ``{u, v}`` of weight ``w`` and ``A[u, u] = 2 w`` for a self-loop, as
NetworkX counts a self-loop twice in a degree.  Then the weighted degree is the row sum
``k_u = sum_v A[u, v]``, the total weight is ``m = sum(A) / 2``, and contracting communities is
summing blocks of ``A`` (Naim et al., IPDPS 2017, §2).

Loaders (each bad input is one :class:`~gpusim.errors.InvalidArgument` line naming the value):

- :meth:`LouvainGraph.from_edges`: edge arrays ``(u, v[, w])``, each undirected edge once;
- :meth:`LouvainGraph.from_scipy`: a square SciPy sparse matrix (the diagonal is the self-loops'
  weights, as ``networkx.from_scipy_sparse_array`` reads it); a matrix that is not symmetric is
  refused unless ``symmetrise`` names the rule (``"sum"``, ``"max"`` or ``"mean"`` of the two
  directions; the diagonal is kept);
- :meth:`LouvainGraph.from_matrix_market`: the same from a file; a pattern file is weight 1;
- :meth:`LouvainGraph.from_networkx`: an undirected ``Graph`` (a ``MultiGraph``'s parallel edges
  are summed; a directed graph is refused), missing weights 1;
- :func:`karate`: Zachary's karate club, bundled;
- :meth:`LouvainGraph.from_device`: a :class:`~gpusim.types.device_graphs.DeviceWeightedGraph`'s arrays
  copied back (the GPU method takes such a graph where it lives: :mod:`.device_input`).

Weights must be finite and non-negative; zero-weight entries are no edge.

Example
-------
>>> g = LouvainGraph.from_edges([0, 0, 1], [1, 1, 2], [1.0, 0.5, 2.0])
Traceback (most recent call last):
...
gpusim.errors.InvalidArgument: edge {0, 1} is given twice (edges 0 and 1); give each undirected edge once
>>> g = LouvainGraph.from_edges([0, 1, 2], [1, 2, 2], [1.0, 2.0, 3.0])
>>> g.ptr.tolist(), g.adj.tolist(), g.weights.tolist()
([0, 1, 3, 5], [1, 0, 2, 1, 2], [1.0, 1.0, 2.0, 2.0, 6.0])
>>> g.degrees.tolist(), g.total_weight
([1.0, 3.0, 8.0], 6.0)
"""

from __future__ import annotations

import os
from functools import cached_property
from typing import Any

import numba
import numpy as np
import scipy.io
import scipy.sparse as sp

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.device_graphs import DeviceWeightedGraph
from gpusim.types.numeric import scale_exponent, weight_sum

__all__ = ["SYMMETRISE_RULES", "LouvainGraph", "karate", "list_sums", "load_louvain_graph"]

#: How :meth:`LouvainGraph.from_scipy` may turn a matrix that is not symmetric into an undirected graph.
SYMMETRISE_RULES = ("sum", "max", "mean")
_INT32_MAX = int(np.iinfo(np.int32).max)


def list_sums(ptr: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each CSR list's ``values`` added in list order, as ``np.bincount`` over the entries' rows adds them, but with no
    array of rows (8 GB at 10^9 entries).

    >>> list_sums(np.array([0, 2, 2, 3]), np.array([1.0, 2.0, 4.0])).tolist()
    [3.0, 0.0, 4.0]
    """
    sums = np.empty(len(ptr) - 1)
    _add_lists(np.asarray(ptr), np.asarray(values, np.float64), sums)
    return sums


@numba.njit(cache=True)
def _add_lists(ptr, values, sums):  # pragma: no cover - compiled
    for i in range(ptr.size - 1):
        total = 0.0
        for e in range(ptr[i], ptr[i + 1]):
            total += values[e]
        sums[i] = total


@numba.njit(cache=True)
def _upper_entries(ptr, adj, keep):  # pragma: no cover - compiled
    """``keep[e]``: entry ``e`` of row ``i`` has ``i <= adj[e]``; returns how many do."""
    kept = 0
    for i in range(ptr.size - 1):
        for e in range(ptr[i], ptr[i + 1]):
            keep[e] = i <= adj[e]
            kept += keep[e]
    return kept


@numba.njit(cache=True)
def _upper_edges(ptr, adj, weights, keep, u, w):  # pragma: no cover - compiled
    """The kept entries' rows in ``u`` and weights in ``w`` (a self-loop's halved), in entry order."""
    k = 0
    for i in range(ptr.size - 1):
        for e in range(ptr[i], ptr[i + 1]):
            if keep[e]:
                u[k] = i
                w[k] = weights[e] / 2.0 if adj[e] == i else weights[e]
                k += 1


@numba.njit(cache=True)
def _halve_loops(ptr, adj, w):  # pragma: no cover - compiled
    """A self-loop's entry ``2 w`` back to its own weight ``w``."""
    for i in range(ptr.size - 1):
        for e in range(ptr[i], ptr[i + 1]):
            if adj[e] == i:
                w[e] /= 2.0


class LouvainGraph:
    """An undirected weighted graph with self-loops: the rows of its symmetric adjacency matrix.

    Attributes
    ----------
    n:
        Vertices.
    ptr, adj, weights:
        ``adj[ptr[u]:ptr[u + 1]]`` are ``u``'s neighbours (sorted; ``u`` itself for a self-loop),
        ``weights`` the matching entries of ``A`` (int32, int32, float64; read-only).
    degrees:
        ``k_u``, the row sums of ``A`` (a self-loop counted twice).
    total_weight:
        ``m``, the sum of the edge weights (a self-loop counted once).
    nodes:
        The original node of each vertex (NetworkX input), else ``None``.
    """

    def __init__(self, n: int, ptr: np.ndarray, adj: np.ndarray, weights: np.ndarray, nodes: list | None = None):
        self.n = int(n)
        self.ptr = _readonly(ptr, np.int32)
        self.adj = _readonly(adj, np.int32)
        self.weights = _readonly(weights, np.float64)
        self.nodes = nodes
        self.degrees = _readonly(list_sums(self.ptr, self.weights), np.float64)
        self.total_weight = weight_sum(self.weights * 0.5)  # never overflows on the way (gpusim.types.numeric)

    @property
    def n_entries(self) -> int:
        """Entries of the CSR (each edge twice, each self-loop once)."""
        return int(self.adj.shape[0])

    @cached_property
    def n_isolated(self) -> int:
        """Vertices without an edge: they never move, and stay one community each at every level."""
        return int(np.count_nonzero(self.ptr[1:] == self.ptr[:-1]))

    @cached_property
    def max_weight(self) -> float:
        """The largest entry of ``A`` (0.0 without entries); found once, as the arrays are read-only."""
        return float(self.weights.max()) if self.weights.size else 0.0

    @cached_property
    def unit_weights(self) -> bool:
        """Whether every entry of ``A`` is 1 (an unweighted graph without self-loops): the GPU method then makes
        the weights on the device instead of copying them in."""
        return bool(self.weights.size) and self.max_weight == 1.0 and float(self.weights.min()) == 1.0

    def in_normal_range(self) -> LouvainGraph:
        """The numeric policy (:mod:`gpusim.types.numeric`): this graph, or, when its largest weight lies outside
        [2^-64, 2^64], the graph of its weights times the power of two that brings the largest into [0.5, 1): exact,
        so the same partition, while 2m^2 neither overflows (weights 1e300) nor underflows (weights 1e-300).

        >>> LouvainGraph.from_edges([0], [1], [1e300]).in_normal_range().weights.tolist()
        [0.7466108948025751, 0.7466108948025751]
        """
        top = self.max_weight
        if top == 0.0 or 2.0**-64 <= top <= 2.0**64:
            return self
        return LouvainGraph(self.n, self.ptr, self.adj, np.ldexp(self.weights, scale_exponent(self.weights)),
                            self.nodes)

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each undirected edge once, ``u <= v``, with its weight (a self-loop's own weight, ``A[u, u] / 2``): one
        compiled pass, with no array of entry sources (4 GB at 10^9 entries)."""
        keep = np.empty(self.adj.size, np.bool_)
        kept = _upper_entries(self.ptr, self.adj, keep)
        u, w = np.empty(kept, np.int32), np.empty(kept)
        _upper_edges(self.ptr, self.adj, np.asarray(self.weights, np.float64), keep, u, w)
        return u, self.adj[keep], w

    def to_scipy(self) -> sp.csr_array:
        """The adjacency matrix with the self-loops' own weights on the diagonal (NetworkX's reading)."""
        w = np.array(self.weights, np.float64)
        _halve_loops(self.ptr, self.adj, w)
        return sp.csr_array((w, self.adj, self.ptr), shape=(self.n, self.n))

    def to_networkx(self) -> Any:
        """A ``networkx.Graph`` with the same edges and ``weight`` attributes (nodes 0..n-1)."""
        import networkx as nx

        G = nx.Graph()
        G.add_nodes_from(range(self.n))
        G.add_weighted_edges_from(zip(*(a.tolist() for a in self.edges()), strict=True))
        return G

    def __repr__(self) -> str:
        return f"LouvainGraph(n={self.n}, entries={self.n_entries}, total_weight={self.total_weight:g})"

    # -- constructors --------------------------------------------------------------------------

    @classmethod
    def from_device(cls, graph: DeviceWeightedGraph) -> LouvainGraph:
        """A device-resident graph's arrays copied to the host, as they are (a graph without self-loops).

        >>> import numpy as np
        >>> from gpusim import Device
        >>> dev = Device("sim")
        >>> d = DeviceWeightedGraph(2, dev.array(np.array([0, 1, 2], np.int32)), dev.array(np.array([1, 0], np.int32)),
        ...                         dev.array(np.array([0.5, 0.5])))
        >>> LouvainGraph.from_device(d)
        LouvainGraph(n=2, entries=2, total_weight=0.5)
        """
        from gpusim.runtime.device import Device

        if not isinstance(graph, DeviceWeightedGraph):
            raise InvalidArgumentType(f"graph must be a DeviceWeightedGraph, got {type(graph).__name__}")
        memory = graph.memory  # where its arrays live, which need not be the backend that ran
        dev = Device("cupy" if memory == "cuda" else memory)
        return cls(graph.n, *(dev.to_host(dev.array(a)) for a in (graph.ptr, graph.adj, graph.weights)))

    @classmethod
    def from_edges(cls, u: Any, v: Any, w: Any = None, n: int | None = None) -> LouvainGraph:
        """Each undirected edge ``{u[k], v[k]}`` once, weight ``w[k]`` (default 1); ``u[k] == v[k]``: a self-loop."""
        u, v = _ids("u", u), _ids("v", v)
        if u.size != v.size:
            raise InvalidArgument(f"u has {u.size} entries but v has {v.size}")
        w = _weights("w", w, u.size)
        n = _count(n, u, v)
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        key = lo * max(n, 1) + hi
        order = np.argsort(key, kind="stable")
        same = np.flatnonzero(key[order][1:] == key[order][:-1])
        if same.size:
            a, b = sorted((int(order[same[0]]), int(order[same[0] + 1])))
            raise InvalidArgument(f"edge {{{int(lo[a])}, {int(hi[a])}}} is given twice (edges {a} and {b}); "
                                  "give each undirected edge once")
        return cls._from_triangle(lo, hi, w, n)

    @classmethod
    def from_scipy(cls, matrix: Any, symmetrise: str | None = None) -> LouvainGraph:
        """A square sparse matrix: ``M[u, v]`` the weight of ``{u, v}``, ``M[u, u]`` a self-loop's."""
        if not sp.issparse(matrix):
            raise InvalidArgumentType(f"matrix must be a SciPy sparse matrix or array, got {type(matrix).__name__}")
        coo = sp.coo_array(matrix)
        if coo.ndim != 2 or coo.shape[0] != coo.shape[1]:
            raise InvalidArgument(f"the matrix must be square (an undirected graph), got shape {coo.shape}")
        if coo.dtype.kind == "c":
            raise InvalidArgumentType(f"the matrix has complex dtype {coo.dtype}: weights must be real")
        if coo.dtype.kind not in "biuf":
            raise InvalidArgumentType(f"the matrix must hold real numbers, got dtype {coo.dtype}")
        n = coo.shape[0]
        csr = sp.csr_array((coo.data.astype(np.float64), (coo.row, coo.col)), shape=(n, n))  # duplicates summed
        csr.eliminate_zeros()
        data = csr.data
        for bad, what in ((~np.isfinite(data), "is not finite"), (data < 0, "is negative")):
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                row = int(np.searchsorted(csr.indptr, k, side="right") - 1)
                raise InvalidArgument(f"entry ({row}, {int(csr.indices[k])}) = {float(data[k])!r} {what}: "
                                      "Louvain needs finite, non-negative weights")
        if symmetrise is not None and symmetrise not in SYMMETRISE_RULES:
            raise InvalidArgument(f"symmetrise={symmetrise!r} is not one of {SYMMETRISE_RULES}")
        diff = csr - csr.T
        diff.eliminate_zeros()
        if diff.nnz and symmetrise is None:
            first = sp.coo_array(diff)
            r, c = int(first.row[0]), int(first.col[0])
            raise InvalidArgument(
                f"the matrix is not symmetric (entry ({r}, {c}) = {float(csr[r, c])!r} but "
                f"({c}, {r}) = {float(csr[c, r])!r}): "
                f"a directed graph; pass symmetrise= one of {SYMMETRISE_RULES} to combine the two directions")
        if diff.nnz:
            diagonal = csr.diagonal()
            both = {"sum": csr + csr.T, "max": csr.maximum(csr.T), "mean": (csr + csr.T) / 2.0}[symmetrise]
            csr = sp.csr_array(both - sp.diags_array(both.diagonal()) + sp.diags_array(diagonal))
            csr.eliminate_zeros()
        upper = sp.triu(csr, format="coo")
        return cls._from_triangle(upper.row.astype(np.int64), upper.col.astype(np.int64), upper.data, n)

    @classmethod
    def from_matrix_market(cls, path: str | os.PathLike, symmetrise: str | None = None) -> LouvainGraph:
        """A Matrix Market file: symmetric is the undirected graph, pattern is weight 1 (see :meth:`from_scipy`)."""
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidArgumentType(f"path must be a str or os.PathLike, got {type(path).__name__}")
        try:
            info = scipy.io.mminfo(os.fspath(path))
            matrix = scipy.io.mmread(os.fspath(path))
        except OSError:
            raise
        except Exception as exc:
            raise InvalidArgument(f"cannot read {os.fspath(path)!r} as a Matrix Market file: {exc}") from exc
        if info[4] == "complex" or info[5] in ("hermitian", "skew-symmetric"):
            raise InvalidArgument(f"{os.fspath(path)!r} is {info[4]} {info[5]}: Louvain needs real, "
                                  "non-negative weights")
        if sp.issparse(matrix) and info[4] == "pattern":
            matrix = sp.coo_array((np.ones(matrix.nnz), (matrix.row, matrix.col)), shape=matrix.shape)
        if not sp.issparse(matrix):
            matrix = sp.coo_array(np.asarray(matrix))
        return cls.from_scipy(matrix, symmetrise=symmetrise)

    @classmethod
    def from_networkx(cls, G: Any, weight: str | None = "weight") -> LouvainGraph:
        """An undirected NetworkX graph (nodes numbered in ``G``'s order; missing weights 1)."""
        import networkx as nx

        if not isinstance(G, nx.Graph):
            raise InvalidArgumentType(f"G must be a networkx graph, got {type(G).__name__}")
        if G.is_directed():
            raise InvalidArgument(f"G is a directed graph ({type(G).__name__}): Louvain needs an undirected graph; "
                                  "pass G.to_undirected() to drop the directions")
        nodes = list(G.nodes)
        index = {node: i for i, node in enumerate(nodes)}
        total: dict[tuple[int, int], float] = {}
        for a, b, data in G.edges(data=True):
            i, j = sorted((index[a], index[b]))
            value = 1.0 if weight is None else data.get(weight, 1.0)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise InvalidArgument(f"edge ({a!r}, {b!r}) has {weight}={value!r}: weights must be real numbers")
            if not np.isfinite(value) or value < 0:
                raise InvalidArgument(f"edge ({a!r}, {b!r}) has {weight}={value!r}: Louvain needs finite, "
                                      "non-negative weights")
            total[(i, j)] = total.get((i, j), 0.0) + float(value)
        keys = np.array(list(total), dtype=np.int64).reshape(-1, 2)
        graph = cls._from_triangle(keys[:, 0], keys[:, 1], np.array(list(total.values()), np.float64), len(nodes))
        graph.nodes = nodes
        return graph

    @classmethod
    def _from_triangle(cls, lo: np.ndarray, hi: np.ndarray, w: np.ndarray, n: int) -> LouvainGraph:
        """Build from each edge once (``lo <= hi``): mirror the off-diagonal, double the diagonal."""
        keep = w != 0
        lo, hi, w = lo[keep], hi[keep], np.asarray(w, np.float64)[keep]
        off = lo != hi
        rows = np.concatenate([lo, hi[off]])
        cols = np.concatenate([hi, lo[off]])
        vals = np.concatenate([np.where(off, w, 2.0 * w), w[off]])
        if rows.size > _INT32_MAX:
            raise InvalidArgument(f"{rows.size} adjacency entries exceed {_INT32_MAX}: CSR offsets are int32")
        csr = sp.csr_array((vals, (rows, cols)), shape=(n, n))
        csr.sort_indices()
        return cls(n, csr.indptr, csr.indices, csr.data)


def karate() -> LouvainGraph:
    """Zachary's karate club (34 vertices, 78 edges of weight 1), from the bundled Matrix Market file.

    >>> karate()
    LouvainGraph(n=34, entries=156, total_weight=78)
    """
    from gpusim.types.graphs import example_path

    return LouvainGraph.from_matrix_market(example_path("karate"))


def load_louvain_graph(source: Any, symmetrise: str | None = None) -> LouvainGraph:
    """A :class:`LouvainGraph` from a graph, a path, a SciPy matrix, a NetworkX graph or ``(u, v[, w])``.

    >>> load_louvain_graph(([0, 1], [1, 2])).total_weight
    2.0
    """
    if isinstance(source, LouvainGraph):
        return source
    if isinstance(source, (str, os.PathLike)):
        return LouvainGraph.from_matrix_market(source, symmetrise=symmetrise)
    if sp.issparse(source):
        return LouvainGraph.from_scipy(source, symmetrise=symmetrise)
    if isinstance(source, tuple):
        if len(source) not in (2, 3):
            raise InvalidArgument(f"a tuple must be (u, v) or (u, v, w), got {len(source)} arrays")
        return LouvainGraph.from_edges(*source)
    if isinstance(source, DeviceWeightedGraph):
        raise InvalidArgumentType(f"the graph lives in {source.memory} memory: louvain() and gpu_louvain() take it "
                                  "where it is; LouvainGraph.from_device(graph) copies it to the host")
    import networkx as nx

    if isinstance(source, nx.Graph):
        return LouvainGraph.from_networkx(source)
    raise InvalidArgumentType(f"cannot build a Louvain graph from a {type(source).__name__}: give a LouvainGraph, "
                              "a Matrix Market path, a SciPy sparse matrix, a networkx.Graph or (u, v[, w])")


def _readonly(values: Any, dtype: Any) -> np.ndarray:
    out = np.array(values, dtype=dtype, copy=True)
    out.flags.writeable = False
    return out


def _ids(name: str, values: Any) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidArgument(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidArgumentType(f"{name} must hold integer vertex ids, got dtype {arr.dtype}")
    bad = np.flatnonzero((arr < 0) | (arr > _INT32_MAX))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgument(f"{name}[{k}]={arr[k].item()} is not a vertex id (0 to {_INT32_MAX})")
    return arr.astype(np.int64)


def _weights(name: str, values: Any, count: int) -> np.ndarray:
    if values is None:
        return np.ones(count, np.float64)
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size != count:
        raise InvalidArgument(f"{name} must hold one weight per edge ({count}), got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "biuf":
        raise InvalidArgumentType(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    for bad, what in ((~np.isfinite(arr), "is not finite"), (arr < 0, "is negative")):
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise InvalidArgument(f"{name}[{k}]={arr[k].item()!r} {what}: Louvain needs finite, non-negative weights")
    return arr


def _count(n: Any, u: np.ndarray, v: np.ndarray) -> int:
    largest = max((int(a.max()) + 1 for a in (u, v) if a.size), default=0)
    if n is None:
        return largest
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InvalidArgument(f"n={n!r} must be a non-negative integer")
    if int(n) < largest:
        raise InvalidArgument(f"n={int(n)} but vertex {largest - 1} appears in the edges")
    return int(n)
