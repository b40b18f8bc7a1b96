"""The undirected weighted graph of the weighted-matching algorithms (Hovland, MSc thesis 2020 and Naim's thesis
(2017)): a symmetric CSR.

>>> from gpusim.types.graphs import WeightedGraph
>>> WeightedGraph.from_edges([0, 1], [1, 2], [2.0, 0.5]).adj.tolist()
[1, 0, 2, 1]
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from gpusim.errors import InvalidArgument
from gpusim.types.arguments import (
    as_ids,
    as_weights,
    check_below,
    check_count,
    check_edge_total,
    count_or_infer,
    readonly,
)
from gpusim.types.graph_inputs import (
    check_csr,
    check_networkx_graph,
    check_symmetric,
    csr_of,
    first_duplicate,
    networkx_weights,
    node_numbering,
    offdiagonal_abs,
    read_matrix_market,
)

__all__ = ["WeightedGraph"]


def _weighted_arrays(u: np.ndarray, v: np.ndarray, w: np.ndarray, n: int, check_duplicates: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric CSR from undirected edges ``u < v`` (validated), each given once."""
    if check_duplicates:
        _, dup = first_duplicate(u * n + v)
        if dup is not None:
            i, j = dup
            raise InvalidArgument(
                f"duplicate edge {{{int(u[i])}, {int(v[i])}}}: given at positions {i} and {j} "
                "(either orientation counts; give each undirected edge once)"
            )
    check_edge_total(2 * u.shape[0], "adjacency entries (twice the edges)")
    a = csr_of(np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w]), (n, n))
    return a.indptr, a.indices, a.data


def _symmetrise_by_max(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Undirected edges ``u < v`` from directed entries; the weight is the largest of the two directions."""
    b = csr_of(rows, cols, values, (n, n))  # values are > 0, so the maximum drops no entry
    s = b.maximum(b.T).tocoo()
    upper = s.row < s.col
    return s.row[upper].astype(np.int64), s.col[upper].astype(np.int64), s.data[upper]


class WeightedGraph:
    """An undirected edge-weighted graph as a symmetric CSR, read-only.

    Every undirected edge ``{u, v}`` appears twice, as ``v`` in ``u``'s list and ``u`` in
    ``v``'s, with the same weight.  No self loops, no parallel edges; weights are finite and
    non-negative float64.

    Parameters
    ----------
    n : int
        Number of vertices (zero allowed).
    ptr : array_like of int, length ``n + 1``
        ``adj[ptr[u]:ptr[u + 1]]`` are the neighbours of ``u``.
    adj : array_like of int
        Neighbour ids, strictly increasing within each list.
    weights : array_like of float
        ``weights[k]`` is the weight of the edge to ``adj[k]``.

    Attributes
    ----------
    n, n_edges : int
        Vertices and undirected edges (``len(adj) == 2 * n_edges``).
    ptr, adj : ndarray of int32
    weights : ndarray of float64

    Raises
    ------
    InvalidArgument
        Broken offsets, unsorted or duplicate neighbours, self loops, bad weights, or an adjacency
        that is not symmetric in pattern and weights.

    Notes
    -----
    Constructors sort the int64 keys ``u * n + v`` (duplicate check) and assemble the symmetric
    CSR with SciPy's COO-to-CSR conversion: O(m log m) time, O(m) memory.

    References
    ----------
    Naim et al. (HiPC 2015): Locally-Dominant and Suitor read each vertex's weighted adjacency list.

    Examples
    --------
    >>> g = WeightedGraph(3, [0, 1, 2, 2], [1, 0], [4.0, 4.0])
    >>> g.n_edges, g.edges()[2].tolist()
    (1, [4.0])
    >>> WeightedGraph(0, [0], [], []).n_edges
    0
    """

    __slots__ = ("_n", "_ptr", "_adj", "_weights")

    def __init__(self, n: int, ptr: Any, adj: Any, weights: Any):
        n = check_count("n", n)
        src = check_csr("ptr", ptr, "adj", adj, n, n)
        dst = as_ids("adj", adj)
        w = as_weights("weights", weights, dst.shape[0])
        loops = np.flatnonzero(src == dst)
        if loops.size:
            k = int(loops[0])
            raise InvalidArgument(f"adj[{k}]={int(dst[k])} is a self loop at vertex {int(src[k])}")
        check_symmetric("the adjacency (ptr, adj, weights)", src, dst, w, n)
        self._set(n, as_ids("ptr", ptr), dst, w)

    @classmethod
    def _from_arrays(cls, n: int, ptr: np.ndarray, adj: np.ndarray, weights: np.ndarray) -> WeightedGraph:
        graph = object.__new__(cls)
        graph._set(n, ptr, adj, weights)
        return graph

    def _set(self, n: int, ptr, adj, weights) -> None:
        self._n = n
        self._ptr, self._adj = readonly(ptr, np.int32), readonly(adj, np.int32)
        self._weights = readonly(weights, np.float64)

    @classmethod
    def _from_canonical(cls, u, v, w, n, check_duplicates=False) -> WeightedGraph:
        return cls._from_arrays(n, *_weighted_arrays(u, v, w, n, check_duplicates))

    n = property(lambda self: self._n, doc="Number of vertices.")
    ptr = property(lambda self: self._ptr, doc="CSR offsets, int32, length n + 1.")
    adj = property(lambda self: self._adj, doc="Neighbour ids of each vertex, sorted, int32.")
    weights = property(lambda self: self._weights, doc="Weight of each adjacency entry, float64.")

    @property
    def n_edges(self) -> int:
        """Number of undirected edges."""
        return int(self._adj.shape[0]) // 2

    # -- constructors --------------------------------------------------------------------------

    @classmethod
    def from_edges(cls, u: Any, v: Any, w: Any = None, n: int | None = None) -> WeightedGraph:
        """Build from undirected edges ``{u[k], v[k]}`` of weight ``w[k]``, each given once.

        Parameters
        ----------
        u, v : array_like of int
            Edge ends, equal-length 1-D integer arrays; either orientation.
        w : array_like of float, optional
            Finite, non-negative weights (zero allowed); default 1.0 for every edge.
        n : int, optional
            Number of vertices; default one more than the largest id (0 for no edges).

        Returns
        -------
        WeightedGraph

        Raises
        ------
        InvalidArgumentType
            Non-integer ids, complex or non-numeric weights.
        InvalidArgument
            Negative or out-of-range ids, a self loop, an edge given twice (in either orientation),
            NaN, infinite or negative weights, arrays of different lengths.

        Examples
        --------
        >>> g = WeightedGraph.from_edges([2, 0], [1, 1], [3.0, 1.0])
        >>> [x.tolist() for x in g.edges()]
        [[0, 1], [1, 2], [1.0, 3.0]]
        >>> WeightedGraph.from_edges([], [], [], n=4).n
        4
        """
        a, b = as_ids("u", u), as_ids("v", v)
        if a.shape != b.shape:
            raise InvalidArgument(f"u and v must have the same length, got {a.shape[0]} and {b.shape[0]}")
        weights = as_weights("w", w, a.shape[0])
        size = count_or_infer("n", n, a, b)
        check_below("u", a, size, "n")
        check_below("v", b, size, "n")
        loops = np.flatnonzero(a == b)
        if loops.size:
            k = int(loops[0])
            raise InvalidArgument(f"u[{k}] = v[{k}] = {int(a[k])} is a self loop; self loops are not allowed")
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        return cls._from_canonical(lo, hi, weights, size, check_duplicates=True)

    @classmethod
    def from_scipy(cls, matrix: Any) -> WeightedGraph:
        """Build from a square, symmetric SciPy sparse matrix: ``a_ij != 0`` (i != j) is edge ``{i, j}``.

        The weight of an edge is the absolute value of its entry (as Naim et al. (HiPC 2015) does with
        real matrices); explicit zeros are no edge; the diagonal is ignored; duplicate stored
        entries are summed first, as SciPy does.  ``|A|`` must be symmetric off the diagonal,
        in pattern and values (so a skew-symmetric matrix is accepted).

        Parameters
        ----------
        matrix : scipy.sparse.sparray, scipy.sparse.spmatrix or numpy.ndarray
            A square, real matrix.

        Returns
        -------
        WeightedGraph

        Raises
        ------
        InvalidArgumentType
            Not SciPy sparse; complex or non-numeric dtype.
        InvalidArgument
            Not square; not symmetric (the message names an entry without its mirror or with a
            different value); a NaN or infinite off-diagonal entry.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> a = sp.csr_array([[9.0, -2.0, 0.0], [-2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
        >>> g = WeightedGraph.from_scipy(a)
        >>> g.n, [x.tolist() for x in g.edges()]
        (3, [[0], [1], [2.0]])
        >>> WeightedGraph.from_scipy(sp.csr_array((0, 0))).n
        0
        """
        rows, cols, values, n = offdiagonal_abs("matrix", matrix)
        check_symmetric("matrix", rows, cols, values, n)
        upper = rows < cols
        return cls._from_canonical(rows[upper], cols[upper], values[upper], n)

    @classmethod
    def from_matrix_market(cls, path: str | os.PathLike | Any) -> WeightedGraph:
        """Read a square Matrix Market file as an undirected weighted graph.

        The diagonal is ignored, zero entries are no edge, and the weight of an edge is the
        absolute value of its entry (DESIGN "Inputs"; Naim et al. (HiPC 2015)).  A symmetric file
        stores one triangle and ``mmread`` mirrors it.  **A general (non-symmetric) file is
        symmetrised**: ``{i, j}`` is an edge when ``a_ij`` or ``a_ji`` is nonzero, and its weight
        is ``max(|a_ij|, |a_ji|)``.  A pattern file gives every edge weight 1.0.  Duplicate
        stored entries are summed, as SciPy does.  Use :meth:`from_scipy` to *require* symmetry.

        Parameters
        ----------
        path : str, os.PathLike or typing.IO

        Returns
        -------
        WeightedGraph

        Raises
        ------
        FileNotFoundError
            No such file.
        InvalidArgumentType
            A complex-valued file.
        InvalidArgument
            Not square; not valid Matrix Market; a NaN or infinite off-diagonal entry.

        Examples
        --------
        >>> from gpusim.types.graphs import example_path
        >>> g = WeightedGraph.from_matrix_market(example_path("karate.mtx"))
        >>> g.n, g.n_edges
        (34, 78)
        >>> import io
        >>> WeightedGraph.from_matrix_market(io.StringIO(
        ...     "%%MatrixMarket matrix coordinate real general\\n2 2 2\\n1 2 -3\\n2 1 1\\n")).weights.tolist()
        [3.0, 3.0]
        >>> WeightedGraph.from_matrix_market(io.StringIO(
        ...     "%%MatrixMarket matrix coordinate real general\\n0 0 0\\n")).n
        0
        """
        rows, cols, values, n = offdiagonal_abs("the matrix in the file", read_matrix_market(path))
        u, v, w = _symmetrise_by_max(rows, cols, values, n)
        return cls._from_canonical(u, v, w, n)

    @classmethod
    def from_networkx(cls, G: Any, weight: str | None = "weight") -> WeightedGraph:
        """Build from an undirected NetworkX graph.

        Vertex ids: when the nodes are exactly the integers ``0..n-1`` each keeps its value;
        otherwise nodes are numbered in ``G``'s node order.

        Parameters
        ----------
        G : networkx.Graph
            Undirected, not a multigraph, no self loops.
        weight : str or None
            Edge attribute holding the weight (default ``"weight"``); an edge without it weighs
            1.0.  ``None`` gives every edge weight 1.0.

        Returns
        -------
        WeightedGraph

        Raises
        ------
        InvalidArgumentType
            Not a NetworkX graph, directed or a multigraph; a non-numeric weight.
        InvalidArgument
            A self loop; a NaN, infinite or negative weight.

        Examples
        --------
        >>> import networkx as nx
        >>> G = nx.Graph([(0, 1, {"weight": 2.5}), (1, 2)])
        >>> WeightedGraph.from_networkx(G).weights.tolist()
        [2.5, 2.5, 1.0, 1.0]
        >>> WeightedGraph.from_networkx(nx.empty_graph(3)).n
        3
        """
        check_networkx_graph(G)
        labels = node_numbering(G)
        index = {v: i for i, v in enumerate(labels)}
        us, vs, ws = [], [], []
        edges = G.edges(data=weight, default=1.0) if weight is not None else G.edges(data=False)
        for a, b, *x in edges:
            if a == b:
                raise InvalidArgument(
                    f"G has a self loop at node {a!r}; drop it: G.remove_edges_from(nx.selfloop_edges(G))"
                )
            us.append(index[a])
            vs.append(index[b])
            ws.append(x[0] if x else 1.0)
        warr = networkx_weights(ws, weight, [(labels[a], labels[b]) for a, b in zip(us, vs, strict=True)])
        a, b = np.array(us, np.int64), np.array(vs, np.int64)
        return cls._from_canonical(np.minimum(a, b), np.maximum(a, b), warr, len(labels))

    # -- conversions ---------------------------------------------------------------------------

    def edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each undirected edge once: ``(u, v, w)`` with ``u < v``, sorted by ``u`` then ``v``.

        Examples
        --------
        >>> g = WeightedGraph.from_edges([1, 1], [0, 2], [5.0, 6.0])
        >>> [x.tolist() for x in g.edges()]
        [[0, 1], [1, 2], [5.0, 6.0]]
        >>> [x.tolist() for x in WeightedGraph.from_edges([], []).edges()]
        [[], [], []]
        """
        src = np.repeat(np.arange(self._n, dtype=np.int32), np.diff(self._ptr))
        upper = src < self._adj
        return src[upper], self._adj[upper], self._weights[upper]

    def to_scipy(self) -> sp.csr_array:
        """The symmetric weighted adjacency as a SciPy ``csr_array`` of shape ``(n, n)``.

        A zero-weight edge becomes an explicit zero entry, which :meth:`from_scipy` reads as no edge.

        Examples
        --------
        >>> WeightedGraph.from_edges([0], [1], [2.0]).to_scipy().toarray().tolist()
        [[0.0, 2.0], [2.0, 0.0]]
        >>> WeightedGraph.from_edges([], []).to_scipy().shape
        (0, 0)
        """
        arrays = (self._weights.copy(), self._adj.copy(), self._ptr.copy())
        return sp.csr_array(arrays, shape=(self._n, self._n))

    def to_networkx(self) -> Any:
        """A ``networkx.Graph`` on nodes ``0..n-1`` with a ``"weight"`` attribute on every edge.

        Examples
        --------
        >>> G = WeightedGraph.from_edges([0], [1], [2.0], n=3).to_networkx()
        >>> G.number_of_nodes(), list(G.edges(data="weight"))
        (3, [(0, 1, 2.0)])
        >>> WeightedGraph.from_edges([], []).to_networkx().number_of_nodes()
        0
        """
        import networkx as nx

        G = nx.Graph()
        G.add_nodes_from(range(self._n))
        u, v, w = self.edges()
        G.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist(), strict=True))
        return G

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WeightedGraph):
            return NotImplemented
        return (self._n == other._n and np.array_equal(self._ptr, other._ptr)
                and np.array_equal(self._adj, other._adj) and np.array_equal(self._weights, other._weights))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"WeightedGraph(n={self._n}, n_edges={self.n_edges})"
