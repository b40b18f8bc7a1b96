"""The bipartite graph of the maximum-matching algorithms (Deveci et al., Euro-Par 2013, ICPP 2013): CSR on both sides.

>>> from gpusim.types.graphs import BipartiteGraph
>>> BipartiteGraph.from_edges([0, 0, 1], [1, 0, 1]).col_adj.tolist()
[0, 0, 1]
"""

from __future__ import annotations

import os
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from gpusim.errors import InvalidArgument
from gpusim.types.arguments import as_ids, check_below, check_count, check_edge_total, count_or_infer, readonly
from gpusim.types.graph_inputs import (
    bipartite_top,
    check_csr,
    check_networkx_graph,
    csr_of,
    first_duplicate,
    ptr_from_sorted,
    read_matrix_market,
    require_sparse,
)

__all__ = ["BipartiteGraph"]


def _bipartite_arrays(rows: np.ndarray, cols: np.ndarray, n_rows: int, n_cols: int,
                      duplicates: Literal["error", "merge", "none"]) -> tuple[np.ndarray, ...]:
    """Both CSR sides from validated int64 edge ends; duplicates are refused, merged or known absent."""
    key = rows * n_cols + cols
    if duplicates == "merge":
        key = np.sort(key)
        key = key[np.concatenate([[True], key[1:] != key[:-1]])] if key.size else key
    elif duplicates == "none":
        key = np.sort(key)
    else:
        key, dup = first_duplicate(key)
        if dup is not None:
            i, j = dup
            raise InvalidArgument(
                f"duplicate edge ({int(rows[i])}, {int(cols[i])}): at positions {i} and {j} of rows/cols"
            )
    check_edge_total(key.shape[0], "edges")
    if key.shape[0] == 0:
        empty = np.zeros(0, np.int64)
        return ptr_from_sorted(empty, n_rows), empty, ptr_from_sorted(empty, n_cols), empty
    r, c = np.divmod(key, n_cols)
    t = csr_of(c, r, np.ones(key.shape[0], np.int8), (n_cols, n_rows))
    return ptr_from_sorted(r, n_rows), c, t.indptr, t.indices


class BipartiteGraph:
    """A bipartite graph with CSR adjacency on both sides, read-only.

    Rows are one side and columns the other, as in a sparse matrix whose pattern is the edge set.
    Build one with a ``from_*`` constructor, or directly from the row side's CSR.

    Parameters
    ----------
    n_rows, n_cols : int
        Number of row and column vertices (zero allowed).
    row_ptr : array_like of int, length ``n_rows + 1``
        ``row_adj[row_ptr[r]:row_ptr[r + 1]]`` are the columns adjacent to row ``r``.
    row_adj : array_like of int
        Column ids, strictly increasing within each row (sorted, no duplicates).

    Attributes
    ----------
    n_rows, n_cols, n_edges : int
    row_ptr, row_adj : ndarray of int32
        Row-side CSR: the sorted columns of every row.
    col_ptr, col_adj : ndarray of int32
        Column-side CSR: the sorted rows of every column (the transpose).

    Raises
    ------
    InvalidArgument
        Offsets that do not start at 0, decrease or disagree with ``len(row_adj)``; ids out of range;
        unsorted or duplicate columns within a row.

    Notes
    -----
    Building sorts the ``m`` int64 keys ``row * n_cols + col`` once (row side, duplicate check)
    and derives the column side with SciPy's COO-to-CSR counting sort: O(m log m) time, O(m)
    memory.  Counts and offsets must fit in int32.

    Examples
    --------
    >>> g = BipartiteGraph(2, 3, [0, 2, 3], [0, 2, 2])
    >>> g.n_edges, g.col_ptr.tolist(), g.col_adj.tolist()
    (3, [0, 1, 1, 3], [0, 0, 1])
    >>> BipartiteGraph(0, 0, [0], []).n_edges
    0
    """

    __slots__ = ("_n_rows", "_n_cols", "_row_ptr", "_row_adj", "_col_ptr", "_col_adj")

    def __init__(self, n_rows: int, n_cols: int, row_ptr: Any, row_adj: Any):
        n_rows, n_cols = check_count("n_rows", n_rows), check_count("n_cols", n_cols)
        rows = check_csr("row_ptr", row_ptr, "row_adj", row_adj, n_rows, n_cols)
        cols = as_ids("row_adj", row_adj)
        self._set(n_rows, n_cols, *_bipartite_arrays(rows, cols, n_rows, n_cols, "none"))

    @classmethod
    def _from_arrays(cls, n_rows: int, n_cols: int, *arrays: np.ndarray) -> BipartiteGraph:
        graph = object.__new__(cls)
        graph._set(n_rows, n_cols, *arrays)
        return graph

    def _set(self, n_rows: int, n_cols: int, row_ptr, row_adj, col_ptr, col_adj) -> None:
        self._n_rows, self._n_cols = n_rows, n_cols
        self._row_ptr, self._row_adj = readonly(row_ptr, np.int32), readonly(row_adj, np.int32)
        self._col_ptr, self._col_adj = readonly(col_ptr, np.int32), readonly(col_adj, np.int32)

    @classmethod
    def _from_pairs(cls, rows, cols, n_rows, n_cols, duplicates="error") -> BipartiteGraph:
        return cls._from_arrays(n_rows, n_cols, *_bipartite_arrays(rows, cols, n_rows, n_cols, duplicates))

    # -- read-only attributes ------------------------------------------------------------------

    n_rows = property(lambda self: self._n_rows, doc="Number of row vertices.")
    n_cols = property(lambda self: self._n_cols, doc="Number of column vertices.")
    row_ptr = property(lambda self: self._row_ptr, doc="Row-side CSR offsets, int32, length n_rows + 1.")
    row_adj = property(lambda self: self._row_adj, doc="Column ids of each row, sorted, int32.")
    col_ptr = property(lambda self: self._col_ptr, doc="Column-side CSR offsets, int32, length n_cols + 1.")
    col_adj = property(lambda self: self._col_adj, doc="Row ids of each column, sorted, int32.")

    @property
    def n_edges(self) -> int:
        """Number of edges."""
        return int(self._row_adj.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_rows, n_cols)``, as for the matrix whose pattern is the edge set."""
        return (self._n_rows, self._n_cols)

    # -- constructors --------------------------------------------------------------------------

    @classmethod
    def from_edges(cls, rows: Any, cols: Any, n_rows: int | None = None, n_cols: int | None = None
                   ) -> BipartiteGraph:
        """Build from edge end arrays: edge ``k`` joins row ``rows[k]`` and column ``cols[k]``.

        Parameters
        ----------
        rows, cols : array_like of int
            Equal-length 1-D integer arrays (lists allowed).  Float ids are refused, even integral ones.
        n_rows, n_cols : int, optional
            Side sizes; default one more than the largest id given (0 for no edges).

        Returns
        -------
        BipartiteGraph

        Raises
        ------
        InvalidArgumentType
            Non-integer ids (floats, bools, strings).
        InvalidArgument
            Arrays of different lengths or not 1-D, negative or out-of-range ids, a duplicate edge.

        Examples
        --------
        >>> g = BipartiteGraph.from_edges([1, 0], [0, 2], n_rows=3)
        >>> g.shape, g.row_ptr.tolist(), g.row_adj.tolist()
        ((3, 3), [0, 1, 2, 2], [2, 0])
        >>> BipartiteGraph.from_edges([], []).shape
        (0, 0)
        """
        r, c = as_ids("rows", rows), as_ids("cols", cols)
        if r.shape != c.shape:
            raise InvalidArgument(f"rows and cols must have equal lengths, got {r.shape[0]} and {c.shape[0]}")
        n_r, n_c = count_or_infer("n_rows", n_rows, r), count_or_infer("n_cols", n_cols, c)
        check_below("rows", r, n_r, "n_rows")
        check_below("cols", c, n_c, "n_cols")
        return cls._from_pairs(r, c, n_r, n_c)

    @classmethod
    def from_scipy(cls, matrix: Any) -> BipartiteGraph:
        """Build from the pattern of a SciPy sparse matrix or array: rows are rows, columns columns.

        Every *stored* entry is an edge, explicit zeros included (the structural rank counts them);
        the values are not looked at.  Duplicate stored entries are one edge.

        Parameters
        ----------
        matrix : scipy.sparse.sparray, scipy.sparse.spmatrix or numpy.ndarray
            A two-dimensional matrix.

        Returns
        -------
        BipartiteGraph

        Raises
        ------
        InvalidArgumentType
            ``matrix`` is not SciPy sparse (a dense array: wrap it in ``scipy.sparse.coo_array``).

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> a = sp.csr_array(([0.0, 5.0], [1, 0], [0, 1, 2]), shape=(2, 2))
        >>> BipartiteGraph.from_scipy(a).row_adj.tolist()
        [1, 0]
        >>> BipartiteGraph.from_scipy(sp.csr_array((0, 4))).shape
        (0, 4)
        """
        coo = require_sparse("matrix", matrix)
        n_r = check_count("matrix.shape[0]", coo.shape[0])
        n_c = check_count("matrix.shape[1]", coo.shape[1])
        rows, cols = coo.row.astype(np.int64), coo.col.astype(np.int64)
        return cls._from_pairs(rows, cols, n_r, n_c, duplicates="merge")

    @classmethod
    def from_matrix_market(cls, path: str | os.PathLike | Any) -> BipartiteGraph:
        """Read a Matrix Market file (``scipy.io.mmread``): rows are one side, columns the other.

        A symmetric, skew-symmetric or Hermitian file stores one triangle; ``mmread`` expands it to
        the full pattern, diagonal once.  Every stored entry is an edge, explicit zeros included;
        a dense ``array`` file contributes its nonzero entries.  Values, complex ones included, are
        ignored.

        Parameters
        ----------
        path : str, os.PathLike or typing.IO

        Returns
        -------
        BipartiteGraph

        Raises
        ------
        FileNotFoundError
            No such file.
        InvalidArgument
            The file is not valid Matrix Market (the message carries SciPy's reason).

        Examples
        --------
        >>> from gpusim.types.graphs import example_path
        >>> g = BipartiteGraph.from_matrix_market(example_path("ash219.mtx"))
        >>> g.shape, g.n_edges
        ((219, 85), 438)
        >>> import io
        >>> BipartiteGraph.from_matrix_market(io.StringIO(
        ...     "%%MatrixMarket matrix coordinate pattern general\\n0 0 0\\n")).shape
        (0, 0)
        """
        return cls.from_scipy(read_matrix_market(path))

    @classmethod
    def from_networkx(cls, G: Any, top_nodes: Any = None) -> BipartiteGraph:
        """Build from an undirected NetworkX graph whose nodes split into two sides.

        The sides are, in order of preference: ``top_nodes`` (they become the rows); else, when
        every node has a ``"bipartite"`` attribute (NetworkX's convention), the nodes with
        ``bipartite == 0``; else a two-colouring: ``networkx.bipartite.sets`` for a connected
        graph, and the same colouring per component otherwise (the first node of each component,
        in ``G``'s node order, is a row).  Within each side vertices are numbered in ``G``'s node
        order.

        Parameters
        ----------
        G : networkx.Graph
            Undirected, not a multigraph.
        top_nodes : collections.abc.Iterable, optional

        Returns
        -------
        BipartiteGraph

        Raises
        ------
        InvalidArgumentType
            ``G`` is not a NetworkX graph, or is directed or a multigraph.
        InvalidArgument
            ``G`` is not bipartite (with the given sides), or ``top_nodes`` names nodes not in ``G``.

        Examples
        --------
        >>> import networkx as nx
        >>> g = BipartiteGraph.from_networkx(nx.path_graph(4))
        >>> g.shape, g.row_adj.tolist()
        ((2, 2), [0, 0, 1])
        >>> BipartiteGraph.from_networkx(nx.Graph()).shape
        (0, 0)
        """
        check_networkx_graph(G)
        top = bipartite_top(G, top_nodes)
        row_labels = [v for v in G if v in top]
        col_labels = [v for v in G if v not in top]
        row_id = {v: i for i, v in enumerate(row_labels)}
        col_id = {v: i for i, v in enumerate(col_labels)}
        rows, cols = [], []
        for u, v in G.edges():
            if (u in top) == (v in top):
                side = "top" if u in top else "bottom"
                raise InvalidArgument(
                    f"G is not bipartite with these sides: edge ({u!r}, {v!r}) joins two {side} nodes"
                )
            if v in top:
                u, v = v, u
            rows.append(row_id[u])
            cols.append(col_id[v])
        r, c = np.array(rows, np.int64), np.array(cols, np.int64)
        return cls._from_pairs(r, c, len(row_labels), len(col_labels), duplicates="none")

    # -- conversions ---------------------------------------------------------------------------

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Edge ends ``(rows, cols)`` as int32 arrays, sorted by row then column.

        Examples
        --------
        >>> r, c = BipartiteGraph.from_edges([1, 0], [0, 1]).edges()
        >>> r.tolist(), c.tolist()
        ([0, 1], [1, 0])
        >>> BipartiteGraph.from_edges([], []).edges()[0].tolist()
        []
        """
        rows = np.repeat(np.arange(self._n_rows, dtype=np.int32), np.diff(self._row_ptr))
        return rows, self._row_adj.copy()

    def to_scipy(self) -> sp.csr_array:
        """The pattern as a SciPy ``csr_array`` of shape ``(n_rows, n_cols)``, every entry 1.0.

        Examples
        --------
        >>> BipartiteGraph.from_edges([0, 1], [1, 1]).to_scipy().toarray().tolist()
        [[0.0, 1.0], [0.0, 1.0]]
        >>> BipartiteGraph.from_edges([], [], 2, 0).to_scipy().shape
        (2, 0)
        """
        data = np.ones(self.n_edges, np.float64)
        return sp.csr_array((data, self._row_adj.copy(), self._row_ptr.copy()), shape=self.shape)

    def to_networkx(self) -> Any:
        """A ``networkx.Graph``: rows are nodes ``0..n_rows-1`` with ``bipartite=0``, columns are
        nodes ``n_rows..n_rows+n_cols-1`` with ``bipartite=1`` (``from_networkx`` reads them back).

        Examples
        --------
        >>> G = BipartiteGraph.from_edges([0, 1], [1, 0]).to_networkx()
        >>> sorted(G.edges()), G.nodes[2]["bipartite"]
        ([(0, 3), (1, 2)], 1)
        >>> BipartiteGraph.from_edges([], []).to_networkx().number_of_nodes()
        0
        """
        import networkx as nx

        G = nx.Graph()
        G.add_nodes_from(range(self._n_rows), bipartite=0)
        G.add_nodes_from(range(self._n_rows, self._n_rows + self._n_cols), bipartite=1)
        rows, cols = self.edges()
        G.add_edges_from(zip(rows.tolist(), (cols.astype(np.int64) + self._n_rows).tolist(), strict=True))
        return G

    def permuted(self, seed: int) -> BipartiteGraph:
        """The same graph with rows and columns randomly renumbered (the papers' RCP instances).

        Row ``r`` becomes row ``p[r]`` and column ``c`` becomes column ``q[c]``, where
        ``rng = numpy.random.default_rng(seed)``, ``p = rng.permutation(n_rows)`` and then
        ``q = rng.permutation(n_cols)``.  Deveci et al. (Euro-Par 2013) and 001 report results on such random row and
        column permutations, which defeat the locality of the original ordering.

        Parameters
        ----------
        seed : int
            Non-negative; the same seed gives the same permutation.

        Examples
        --------
        >>> g = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1])
        >>> h = g.permuted(seed=1)
        >>> h.n_edges, sorted(np.diff(h.row_ptr).tolist())
        (3, [1, 2])
        >>> BipartiteGraph.from_edges([], []).permuted(seed=0).n_edges
        0
        """
        seed = check_count("seed", seed)
        rng = np.random.default_rng(seed)
        p, q = rng.permutation(self._n_rows), rng.permutation(self._n_cols)
        rows, cols = self.edges()
        return self._from_pairs(p[rows], q[cols], self._n_rows, self._n_cols, duplicates="none")

    # -- value semantics -----------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BipartiteGraph):
            return NotImplemented
        return (self.shape == other.shape and np.array_equal(self._row_ptr, other._row_ptr)
                and np.array_equal(self._row_adj, other._row_adj))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"BipartiteGraph(n_rows={self._n_rows}, n_cols={self._n_cols}, n_edges={self.n_edges})"
