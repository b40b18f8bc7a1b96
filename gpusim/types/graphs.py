"""Graph types for matching: bipartite graphs and undirected weighted graphs, with validation.

:class:`BipartiteGraph` stores a bipartite graph in compressed sparse row (CSR) form on *both*
sides, as the GPU bipartite matching kernels of seeds 000 and 001 need (rows look up columns,
columns look up rows).  :class:`WeightedGraph` stores an undirected edge-weighted graph as a
symmetric CSR, as Locally-Dominant and Suitor need (seed 003, Paper I).  Both are immutable:
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

import numpy as np
import scipy.io
import scipy.sparse as sp

from gpusim.errors import InvalidArgument, InvalidArgumentType

__all__ = ["BipartiteGraph", "WeightedGraph", "example_path", "load_graph"]

INT32_MAX = int(np.iinfo(np.int32).max)

# ----------------------------------------------------------------------------------------------
# Argument checks shared by both graph types


def _type_name(value: Any) -> str:
    return type(value).__name__


def _check_count(name: str, value: Any) -> int:
    """A vertex count: a non-bool integer in 0..INT32_MAX."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidArgumentType(
            f"{name} must be a non-negative integer, got {name}={value!r} of type {_type_name(value)}"
        )
    value = int(value)
    if value < 0:
        raise InvalidArgument(f"{name}={value} must be non-negative")
    if value > INT32_MAX:
        raise InvalidArgument(f"{name}={value} exceeds {INT32_MAX}: vertex ids are int32")
    return value


def _as_1d(name: str, values: Any) -> np.ndarray:
    if sp.issparse(values):
        raise InvalidArgumentType(f"{name} must be a 1-D array, got a SciPy sparse {_type_name(values)}")
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InvalidArgument(f"{name} must be a flat 1-D array of numbers, got {values!r}: {exc}") from exc
    if arr.ndim != 1:
        raise InvalidArgument(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def _as_ids(name: str, values: Any) -> np.ndarray:
    """Vertex ids as an int64 array: integers (not bools, not floats), non-negative, int32-sized."""
    arr = _as_1d(name, values)
    if arr.size == 0:
        return np.zeros(0, np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidArgumentType(
            f"{name} must hold integer vertex ids, got dtype {arr.dtype} ({name}[0]={arr[0].item()!r}); "
            "convert integral values with .astype(np.int32) first"
        )
    if arr.dtype.kind == "i":
        neg = np.flatnonzero(arr < 0)
        if neg.size:
            i = int(neg[0])
            raise InvalidArgument(f"{name}[{i}]={arr[i].item()} is negative: vertex ids start at 0")
    big = np.flatnonzero(arr > INT32_MAX)
    if big.size:
        i = int(big[0])
        raise InvalidArgument(f"{name}[{i}]={arr[i].item()} exceeds {INT32_MAX}: vertex ids are int32")
    return arr.astype(np.int64, copy=False)


def _check_below(name: str, ids: np.ndarray, n: int, n_name: str) -> None:
    bad = np.flatnonzero(ids >= n)
    if bad.size:
        i = int(bad[0])
        valid = f"ids run from 0 to {n - 1}" if n else "no id is valid"
        raise InvalidArgument(f"{name}[{i}]={int(ids[i])} is out of range for {n_name}={n} ({valid})")


def _count_or_infer(name: str, value: Any, *id_arrays: np.ndarray) -> int:
    if value is not None:
        return _check_count(name, value)
    return max((int(a.max()) + 1 for a in id_arrays if a.size), default=0)


def _as_weights(name: str, values: Any, m: int) -> np.ndarray:
    """Edge weights: real, finite, non-negative, one per edge; ``None`` means all 1.0."""
    if values is None:
        return np.ones(m, np.float64)
    arr = _as_1d(name, values)
    if arr.size == 0:
        arr = arr.astype(np.float64)
    if arr.dtype.kind == "c":
        raise InvalidArgumentType(f"{name} has complex dtype {arr.dtype}: weights must be real")
    if arr.dtype.kind not in "iuf":
        raise InvalidArgumentType(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.shape[0] != m:
        raise InvalidArgument(f"{name} has {arr.shape[0]} entries but there are {m} edges")
    arr = arr.astype(np.float64)
    for bad, what in ((~np.isfinite(arr), "is not finite"), (arr < 0, "is negative")):
        idx = np.flatnonzero(bad)
        if idx.size:
            i = int(idx[0])
            raise InvalidArgument(f"{name}[{i}]={arr[i].item()!r} {what}: weights must be finite and >= 0")
    return arr


def _check_edge_total(count: int, what: str) -> None:
    if count > INT32_MAX:
        raise InvalidArgument(f"{count} {what} exceed {INT32_MAX}: CSR offsets are int32")


def _readonly(arr: np.ndarray, dtype: Any) -> np.ndarray:
    out = np.ascontiguousarray(arr, dtype=dtype)
    if out is arr or out.base is not None:
        out = out.copy()
    out.flags.writeable = False
    return out


def _ptr_from_sorted(src: np.ndarray, n: int) -> np.ndarray:
    """CSR offsets of ``n`` lists given the (sorted) list id of every entry."""
    ptr = np.zeros(n + 1, np.int64)
    if n:
        np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    return ptr


def _first_duplicate(key: np.ndarray) -> tuple[np.ndarray, tuple[int, int] | None]:
    """Sort ``key``; return it sorted and the original positions of the smallest repeated key (or None).

    ``np.sort`` on int64 is the fast primitive here (SIMD); ``np.argsort``, ``np.unique`` and
    ``np.isin`` are many times slower at 10^7 keys, so positions are looked up only on error.
    """
    skey = np.sort(key)
    dup = np.flatnonzero(skey[1:] == skey[:-1])
    if dup.size:
        first, second = np.flatnonzero(key == skey[dup[0]])[:2]
        return skey, (int(first), int(second))
    return skey, None


def _csr_of(rows: np.ndarray, cols: np.ndarray, data: np.ndarray, shape: tuple[int, int]) -> sp.csr_array:
    """SciPy CSR with sorted indices from distinct entries (coo->csr is an O(m) counting sort)."""
    a = sp.coo_array((data, (rows, cols)), shape=shape).tocsr()
    a.sort_indices()
    return a


def _check_csr(ptr_name: str, ptr: Any, adj_name: str, adj: Any, n_src: int, n_dst: int) -> np.ndarray:
    """Validate one CSR side (offsets, sorted duplicate-free lists); return each entry's list id."""
    ptr = _as_ids(ptr_name, ptr)
    adj = _as_ids(adj_name, adj)
    if ptr.shape[0] != n_src + 1:
        raise InvalidArgument(f"{ptr_name} must have {n_src + 1} entries, got {ptr.shape[0]}")
    if ptr[0] != 0 or ptr[-1] != adj.shape[0]:
        raise InvalidArgument(
            f"{ptr_name} must start at 0 and end at len({adj_name})={adj.shape[0]}, "
            f"got {ptr_name}[0]={int(ptr[0])}, {ptr_name}[-1]={int(ptr[-1])}"
        )
    drop = np.flatnonzero(np.diff(ptr) < 0)
    if drop.size:
        i = int(drop[0])
        raise InvalidArgument(
            f"{ptr_name} must not decrease: "
            f"{ptr_name}[{i}]={int(ptr[i])} > {ptr_name}[{i + 1}]={int(ptr[i + 1])}"
        )
    _check_below(adj_name, adj, n_dst, "the number of targets")
    src = np.repeat(np.arange(n_src, dtype=np.int64), np.diff(ptr))
    bad = np.flatnonzero((src[1:] == src[:-1]) & (adj[1:] <= adj[:-1]))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgument(
            f"{adj_name} is not strictly increasing within list {int(src[k])}: "
            f"{adj_name}[{k}]={int(adj[k])}, {adj_name}[{k + 1}]={int(adj[k + 1])} (unsorted or duplicate)"
        )
    return src


# ----------------------------------------------------------------------------------------------
# Matrix Market and SciPy input


def _read_matrix_market(source: Any) -> sp.coo_array:
    if not isinstance(source, (str, os.PathLike)) and not hasattr(source, "read"):
        raise InvalidArgumentType(
            f"path must be a str, os.PathLike or an open file, got {source!r} of type {_type_name(source)}"
        )
    target = os.fspath(source) if isinstance(source, (str, os.PathLike)) else source
    try:
        try:
            matrix = scipy.io.mmread(target, spmatrix=False)  # SciPy >= 1.15: sparse arrays, no warning
        except TypeError:
            matrix = scipy.io.mmread(target)
    except OSError:
        raise
    except Exception as exc:  # scipy raises ValueError, fast_matrix_market may raise others
        raise InvalidArgument(f"cannot read {source!r} as a Matrix Market file: {exc}") from exc
    return sp.coo_array(matrix)


def _require_sparse(name: str, matrix: Any) -> sp.coo_array:
    if not sp.issparse(matrix):
        raise InvalidArgumentType(
            f"{name} must be a SciPy sparse matrix or array, got {_type_name(matrix)}; "
            "use from_edges for edge arrays or scipy.sparse.coo_array(dense) for a dense array"
        )
    if len(matrix.shape) != 2:
        raise InvalidArgument(f"{name} must be two-dimensional, got shape {matrix.shape}")
    return sp.coo_array(matrix)


def _offdiagonal_abs(name: str, matrix: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Nonzero off-diagonal entries (i, j, |a_ij|) of a square real matrix, duplicates summed."""
    coo = _require_sparse(name, matrix)
    n_rows, n_cols = coo.shape
    if n_rows != n_cols:
        raise InvalidArgument(f"{name} must be square to be an undirected graph, got shape {coo.shape}")
    _check_count(f"{name}.shape[0]", n_rows)
    if coo.dtype.kind == "c":
        raise InvalidArgumentType(f"{name} has complex dtype {coo.dtype}: complex values are refused")
    if coo.dtype.kind not in "biuf":
        raise InvalidArgumentType(f"{name} must hold real numbers, got dtype {coo.dtype}")
    csr = sp.csr_array(coo)  # a new matrix: converting to CSR sums duplicates in O(m)
    csr.sum_duplicates()
    coo = csr.tocoo()
    rows, cols = coo.row.astype(np.int64), coo.col.astype(np.int64)
    data = coo.data.astype(np.float64)
    keep = (rows != cols) & (data != 0)
    rows, cols, data = rows[keep], cols[keep], data[keep]
    bad = np.flatnonzero(~np.isfinite(data))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgument(f"{name}[{int(rows[k])}, {int(cols[k])}]={data[k].item()!r} is not finite")
    return rows, cols, np.abs(data), n_rows


def _check_symmetric(name: str, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n: int) -> None:
    """Require distinct finite entries (i, j) exactly when (j, i), with equal values (SciPy, O(m))."""
    pattern = _csr_of(rows, cols, np.ones(rows.shape[0], np.int8), (n, n))
    extra = (pattern - pattern.T).tocoo()  # +1 where (i, j) has no mirror; exact zeros are dropped
    if extra.nnz:
        k = int(np.flatnonzero(extra.data > 0)[0])
        i, j = int(extra.row[k]), int(extra.col[k])
        raise InvalidArgument(
            f"{name} is not symmetric: entry ({i}, {j}) is present but ({j}, {i}) is not; "
            "an undirected graph needs a symmetric matrix"
        )
    a = _csr_of(rows, cols, values, (n, n))
    diff = (a - a.T).tocoo()  # finite values: a - b == 0 exactly when a == b
    if diff.nnz:
        i, j = int(diff.row[0]), int(diff.col[0])
        raise InvalidArgument(
            f"{name} is not symmetric: weight of ({i}, {j}) is {a[i, j].item()!r} "
            f"but weight of ({j}, {i}) is {a[j, i].item()!r}"
        )


# ----------------------------------------------------------------------------------------------
# Bipartite graphs


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
        key, dup = _first_duplicate(key)
        if dup is not None:
            i, j = dup
            raise InvalidArgument(
                f"duplicate edge ({int(rows[i])}, {int(cols[i])}): at positions {i} and {j} of rows/cols"
            )
    _check_edge_total(key.shape[0], "edges")
    if key.shape[0] == 0:
        empty = np.zeros(0, np.int64)
        return _ptr_from_sorted(empty, n_rows), empty, _ptr_from_sorted(empty, n_cols), empty
    r, c = np.divmod(key, n_cols)
    t = _csr_of(c, r, np.ones(key.shape[0], np.int8), (n_cols, n_rows))
    return _ptr_from_sorted(r, n_rows), c, t.indptr, t.indices


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
        n_rows, n_cols = _check_count("n_rows", n_rows), _check_count("n_cols", n_cols)
        rows = _check_csr("row_ptr", row_ptr, "row_adj", row_adj, n_rows, n_cols)
        cols = _as_ids("row_adj", row_adj)
        self._set(n_rows, n_cols, *_bipartite_arrays(rows, cols, n_rows, n_cols, "none"))

    @classmethod
    def _from_arrays(cls, n_rows: int, n_cols: int, *arrays: np.ndarray) -> BipartiteGraph:
        graph = object.__new__(cls)
        graph._set(n_rows, n_cols, *arrays)
        return graph

    def _set(self, n_rows: int, n_cols: int, row_ptr, row_adj, col_ptr, col_adj) -> None:
        self._n_rows, self._n_cols = n_rows, n_cols
        self._row_ptr, self._row_adj = _readonly(row_ptr, np.int32), _readonly(row_adj, np.int32)
        self._col_ptr, self._col_adj = _readonly(col_ptr, np.int32), _readonly(col_adj, np.int32)

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
        r, c = _as_ids("rows", rows), _as_ids("cols", cols)
        if r.shape != c.shape:
            raise InvalidArgument(f"rows and cols must have equal lengths, got {r.shape[0]} and {c.shape[0]}")
        n_r, n_c = _count_or_infer("n_rows", n_rows, r), _count_or_infer("n_cols", n_cols, c)
        _check_below("rows", r, n_r, "n_rows")
        _check_below("cols", c, n_c, "n_cols")
        return cls._from_pairs(r, c, n_r, n_c)

    @classmethod
    def from_scipy(cls, matrix: Any) -> BipartiteGraph:
        """Build from the pattern of a SciPy sparse matrix or array: rows are rows, columns columns.

        Every *stored* entry is an edge, explicit zeros included (the structural rank counts them);
        the values are not looked at.  Duplicate stored entries are one edge.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array, two-dimensional

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
        coo = _require_sparse("matrix", matrix)
        n_r = _check_count("matrix.shape[0]", coo.shape[0])
        n_c = _check_count("matrix.shape[1]", coo.shape[1])
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
        path : str, os.PathLike or open file

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
        >>> g = BipartiteGraph.from_matrix_market(example_path("ash219.mtx"))
        >>> g.shape, g.n_edges
        ((219, 85), 438)
        >>> import io
        >>> BipartiteGraph.from_matrix_market(io.StringIO(
        ...     "%%MatrixMarket matrix coordinate pattern general\\n0 0 0\\n")).shape
        (0, 0)
        """
        return cls.from_scipy(_read_matrix_market(path))

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
        top_nodes : iterable of nodes, optional

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
        _check_networkx_graph(G)
        top = _bipartite_top(G, top_nodes)
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
        ``q = rng.permutation(n_cols)``.  Seed 000 and 001 report results on such random row and
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
        seed = _check_count("seed", seed)
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


# ----------------------------------------------------------------------------------------------
# NetworkX helpers


def _check_networkx_graph(G: Any) -> None:
    import networkx as nx

    if not isinstance(G, nx.Graph):
        raise InvalidArgumentType(f"G must be a networkx.Graph, got {_type_name(G)}")
    if G.is_directed():
        raise InvalidArgumentType(f"G must be undirected, got a {_type_name(G)}; use G.to_undirected()")
    if G.is_multigraph():
        raise InvalidArgumentType(f"G must not be a multigraph, got a {_type_name(G)}; use networkx.Graph(G)")


def _bipartite_top(G: Any, top_nodes: Any) -> set:
    import networkx as nx

    if top_nodes is not None:
        top = set(top_nodes)
        unknown = [v for v in top if v not in G]
        if unknown:
            raise InvalidArgument(f"top_nodes names nodes not in G: {unknown[:5]!r}")
        return top
    sides = dict(G.nodes(data="bipartite"))
    if sides and all(s is not None for s in sides.values()):
        odd = [(v, s) for v, s in sides.items() if s not in (0, 1)]
        if odd:
            node, side = odd[0]
            raise InvalidArgument(f"node {node!r} has bipartite={side!r}; expected 0 (top) or 1 (bottom)")
        return {v for v, s in sides.items() if s == 0}
    try:
        colour = nx.bipartite.color(G)
    except nx.NetworkXError as exc:
        raise InvalidArgument(f"G is not bipartite (it has an odd cycle): {exc}") from exc
    return {v for v, c in colour.items() if c == 1}


def _node_numbering(G: Any) -> list:
    """Labels in vertex-id order: labels 0..n-1 keep their value, other labels follow G's order."""
    nodes = list(G)
    n = len(nodes)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in nodes):
        if set(nodes) == set(range(n)):
            return list(range(n))
    return nodes


# ----------------------------------------------------------------------------------------------
# Undirected weighted graphs


def _weighted_arrays(u: np.ndarray, v: np.ndarray, w: np.ndarray, n: int, check_duplicates: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric CSR from undirected edges ``u < v`` (validated), each given once."""
    if check_duplicates:
        _, dup = _first_duplicate(u * n + v)
        if dup is not None:
            i, j = dup
            raise InvalidArgument(
                f"duplicate edge {{{int(u[i])}, {int(v[i])}}}: given at positions {i} and {j} "
                "(either orientation counts; give each undirected edge once)"
            )
    _check_edge_total(2 * u.shape[0], "adjacency entries (twice the edges)")
    a = _csr_of(np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w]), (n, n))
    return a.indptr, a.indices, a.data


def _symmetrise_by_max(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Undirected edges ``u < v`` from directed entries; the weight is the largest of the two directions."""
    b = _csr_of(rows, cols, values, (n, n))  # values are > 0, so the maximum drops no entry
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
    Seed 003, Paper I: Locally-Dominant and Suitor read each vertex's weighted adjacency list.

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
        n = _check_count("n", n)
        src = _check_csr("ptr", ptr, "adj", adj, n, n)
        dst = _as_ids("adj", adj)
        w = _as_weights("weights", weights, dst.shape[0])
        loops = np.flatnonzero(src == dst)
        if loops.size:
            k = int(loops[0])
            raise InvalidArgument(f"adj[{k}]={int(dst[k])} is a self loop at vertex {int(src[k])}")
        _check_symmetric("the adjacency (ptr, adj, weights)", src, dst, w, n)
        self._set(n, _as_ids("ptr", ptr), dst, w)

    @classmethod
    def _from_arrays(cls, n: int, ptr: np.ndarray, adj: np.ndarray, weights: np.ndarray) -> WeightedGraph:
        graph = object.__new__(cls)
        graph._set(n, ptr, adj, weights)
        return graph

    def _set(self, n: int, ptr, adj, weights) -> None:
        self._n = n
        self._ptr, self._adj = _readonly(ptr, np.int32), _readonly(adj, np.int32)
        self._weights = _readonly(weights, np.float64)

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
        a, b = _as_ids("u", u), _as_ids("v", v)
        if a.shape != b.shape:
            raise InvalidArgument(f"u and v must have the same length, got {a.shape[0]} and {b.shape[0]}")
        weights = _as_weights("w", w, a.shape[0])
        size = _count_or_infer("n", n, a, b)
        _check_below("u", a, size, "n")
        _check_below("v", b, size, "n")
        loops = np.flatnonzero(a == b)
        if loops.size:
            k = int(loops[0])
            raise InvalidArgument(f"u[{k}] = v[{k}] = {int(a[k])} is a self loop; self loops are not allowed")
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        return cls._from_canonical(lo, hi, weights, size, check_duplicates=True)

    @classmethod
    def from_scipy(cls, matrix: Any) -> WeightedGraph:
        """Build from a square, symmetric SciPy sparse matrix: ``a_ij != 0`` (i != j) is edge ``{i, j}``.

        The weight of an edge is the absolute value of its entry (as seed 003 Paper I does with
        real matrices); explicit zeros are no edge; the diagonal is ignored; duplicate stored
        entries are summed first, as SciPy does.  ``|A|`` must be symmetric off the diagonal,
        in pattern and values (so a skew-symmetric matrix is accepted).

        Parameters
        ----------
        matrix : scipy.sparse matrix or array, square, real

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
        rows, cols, values, n = _offdiagonal_abs("matrix", matrix)
        _check_symmetric("matrix", rows, cols, values, n)
        upper = rows < cols
        return cls._from_canonical(rows[upper], cols[upper], values[upper], n)

    @classmethod
    def from_matrix_market(cls, path: str | os.PathLike | Any) -> WeightedGraph:
        """Read a square Matrix Market file as an undirected weighted graph.

        The diagonal is ignored, zero entries are no edge, and the weight of an edge is the
        absolute value of its entry (DESIGN "Inputs"; seed 003 Paper I).  A symmetric file
        stores one triangle and ``mmread`` mirrors it.  **A general (non-symmetric) file is
        symmetrised**: ``{i, j}`` is an edge when ``a_ij`` or ``a_ji`` is nonzero, and its weight
        is ``max(|a_ij|, |a_ji|)``.  A pattern file gives every edge weight 1.0.  Duplicate
        stored entries are summed, as SciPy does.  Use :meth:`from_scipy` to *require* symmetry.

        Parameters
        ----------
        path : str, os.PathLike or open file

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
        rows, cols, values, n = _offdiagonal_abs("the matrix in the file", _read_matrix_market(path))
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
        _check_networkx_graph(G)
        labels = _node_numbering(G)
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
        warr = _networkx_weights(ws, weight, [(labels[a], labels[b]) for a, b in zip(us, vs, strict=True)])
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


def _networkx_weights(ws: list, weight: str | None, ends: list) -> np.ndarray:
    """Check the weights read from a NetworkX graph, naming the edge of the first bad one."""
    for k, x in enumerate(ws):
        if not isinstance(x, (int, float, np.integer, np.floating)) or isinstance(x, (bool, np.bool_)):
            raise InvalidArgumentType(
                f"edge {ends[k]!r} has {weight}={x!r} of type {_type_name(x)}; weights must be real numbers"
            )
    warr = np.array(ws, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(warr) | (warr < 0))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgument(f"edge {ends[k]!r} has {weight}={ws[k]!r}: weights must be finite and >= 0")
    return warr


# ----------------------------------------------------------------------------------------------
# Dispatch and bundled examples


_KINDS = {"bipartite": BipartiteGraph, "weighted": WeightedGraph}


def load_graph(source: Any, kind: Literal["bipartite", "weighted"] = "bipartite"
               ) -> BipartiteGraph | WeightedGraph:
    """Build a graph from whatever ``source`` is, dispatching on its type.

    ====================================  ====================================
    ``source``                            constructor
    ====================================  ====================================
    a graph of the requested kind          returned unchanged
    a path or an open file                 ``from_matrix_market``
    SciPy sparse matrix or array           ``from_scipy``
    ``networkx.Graph``                     ``from_networkx``
    tuple ``(rows, cols)`` /               ``from_edges``
    ``(u, v)`` or ``(u, v, w)``
    ====================================  ====================================

    Parameters
    ----------
    source : path, SciPy sparse, networkx.Graph, tuple of arrays, or a graph
    kind : {"bipartite", "weighted"}
        :class:`BipartiteGraph` or :class:`WeightedGraph`.

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
    if isinstance(source, cls):
        return source
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
        f"cannot build a {kind} graph from a {_type_name(source)}: give a Matrix Market path, a SciPy sparse "
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
        raise InvalidArgumentType(f"name must be a str, got {name!r} of type {_type_name(name)}")
    root = examples_dir()
    available = sorted(p.name for p in root.iterdir() if p.is_file() and p.name.endswith((".mtx", ".json")))
    matches = [f for f in available if name in (f, f.rsplit(".", 1)[0])]
    if len(matches) != 1:
        raise InvalidArgument(f"no bundled example named {name!r}; available: {', '.join(available)}")
    return Path(str(root / matches[0]))
