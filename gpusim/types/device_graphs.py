"""Graphs whose arrays already live in device memory: no copy in, and (with ``output="device"``) none out.

:class:`DeviceBipartiteGraph` is :class:`~gpusim.types.graphs.BipartiteGraph`'s twin for the GPU algorithms
of Deveci et al. (Euro-Par 2013, ICPP 2013) (CSR on both sides), :class:`DeviceWeightedGraph` the twin of
:class:`~gpusim.types.graphs.WeightedGraph` (a symmetric weighted CSR) for Hovland (MSc thesis 2020) and Naim's thesis
(2017).  Their
arrays are int32 ids and offsets (float64 weights) of any device: CuPy arrays, numba device arrays,
anything with ``__cuda_array_interface__``, or the simulator's arrays.  They are built from
``cupyx.scipy.sparse`` matrices (converted and transposed on the GPU by cupyx), from CSR arrays, or
from both CSR sides.

Building one checks only what costs nothing (counts, lengths, dtypes): the contents (offsets
monotone, ids in range, lists sorted, the two sides each other's transpose, symmetric weights) are
checked on the device, by kernels, when an algorithm first takes the graph
(:func:`gpusim.runtime.resident_graphs.resident`), with a one-line
:class:`~gpusim.errors.InvalidArgument` naming the offending entry and its value.

>>> import numpy as np
>>> from gpusim import Device
>>> dev = Device("sim")
>>> a = lambda *x: dev.array(np.array(x, np.int32))
>>> g = DeviceBipartiteGraph(2, 2, a(0, 2, 3), a(0, 1, 0), a(0, 2, 3), a(0, 1, 0))
>>> g, g.memory
(DeviceBipartiteGraph(n_rows=2, n_cols=2, n_edges=3, memory='sim'), 'sim')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import check_count, type_name

__all__ = ["DeviceBipartiteGraph", "DeviceWeightedGraph", "canonical_rows", "checked_device_array", "is_device_sparse",
           "memory_of"]


def memory_of(array: Any) -> str:
    """Whose memory ``array`` lives in: ``"cupy"``, ``"numba"``, ``"sim"`` or ``"cuda"`` (another CUDA array).

    >>> import numpy as np
    >>> memory_of(np.zeros(2))
    'host'
    """
    module = type(array).__module__
    if module.startswith("cupy"):
        return "cupy"
    if module.startswith("numba"):
        return "numba"
    if module.startswith("gpusim.backends.sim"):
        return "sim"
    if hasattr(array, "__cuda_array_interface__"):
        return "cuda"
    return "host"


def is_device_sparse(matrix: Any) -> bool:
    """Whether ``matrix`` is a ``cupyx.scipy.sparse`` matrix (without importing CuPy).

    >>> import scipy.sparse as sp
    >>> is_device_sparse(sp.eye(2))
    False
    """
    return type(matrix).__module__.startswith("cupyx.scipy.sparse") and hasattr(matrix, "tocsr")


def checked_device_array(name: str, array: Any, length: int | None, dtype: str = "int32", *,
                         host_home: str = "BipartiteGraph / WeightedGraph", holder: str = "device graphs") -> Any:
    """``array`` checked as a 1-D device array of ``dtype`` (and ``length``), by its metadata alone; the messages
    say where host arrays go (``host_home``) and what holds ``dtype`` (``holder``)."""
    if memory_of(array) == "host" or not hasattr(array, "shape") or not hasattr(array, "dtype"):
        raise InvalidArgumentType(
            f"{name} must be a device array (CuPy, numba, __cuda_array_interface__ or the simulator's), "
            f"got {type_name(array)}; host arrays go to {host_home}"
        )
    if len(array.shape) != 1:
        raise InvalidArgument(f"{name} must be 1-D, got shape {tuple(array.shape)}")
    if np.dtype(array.dtype) != np.dtype(dtype):
        raise InvalidArgument(
            f"{name} has dtype {np.dtype(array.dtype).name}; {holder} hold {dtype} "
            f"(convert on the device, e.g. {name}.astype('{dtype}'))"
        )
    if length is not None and int(array.shape[0]) != length:
        raise InvalidArgument(f"{name} must have {length} entries, got {int(array.shape[0])}")
    return array


def _cupyx_pattern(matrix: Any) -> tuple[Any, Any]:
    """The pattern of a cupyx sparse matrix as canonical CSR and CSC (sorted, duplicates merged), on the GPU."""
    import cupy
    import cupyx.scipy.sparse as csp

    coo = matrix.tocoo()
    pattern = csp.coo_matrix((cupy.ones(coo.nnz, cupy.float32), (coo.row, coo.col)), shape=matrix.shape)
    pattern.sum_duplicates()  # every stored entry is an edge, explicit zeros included (as from_scipy)
    csr, csc = pattern.tocsr(), pattern.tocsc()
    csr.sort_indices()
    csc.sort_indices()
    return csr, csc


def canonical_rows(matrix: Any) -> Any:
    """The row of each stored entry of a ``cupyx`` CSR matrix in canonical form (sorted lists, no duplicate), by a
    binary search in ``indptr`` on the GPU; None for any other matrix (which then goes through COO).  It lets a
    canonical matrix, what a user usually holds, skip the sorts that canonicalising costs (three sorts of every
    entry)."""
    import cupy
    import cupyx.scipy.sparse as csp

    if not csp.isspmatrix_csr(matrix) or not matrix.has_canonical_format:
        return None
    entries = cupy.arange(matrix.nnz, dtype=matrix.indptr.dtype)
    return (cupy.searchsorted(matrix.indptr, entries, side="right") - 1).astype(matrix.indices.dtype)


def _int32(array: Any) -> Any:
    return array if np.dtype(array.dtype) == np.int32 else array.astype("int32")


class DeviceBipartiteGraph:
    """A bipartite graph with CSR adjacency on both sides, in device memory.

    Parameters
    ----------
    n_rows, n_cols : int
    row_ptr, row_adj
        Device arrays of int32, the row side's CSR: ``row_adj[row_ptr[r]:row_ptr[r + 1]]`` are row
        ``r``'s columns, sorted.
    col_ptr, col_adj
        Device arrays of int32, the column side's CSR (the transpose); optional: left out, it is built
        on the GPU with cupyx (CuPy needed).

    Attributes
    ----------
    n_rows, n_cols, n_edges, shape, row_ptr, row_adj, col_ptr, col_adj
        As for :class:`~gpusim.types.graphs.BipartiteGraph`, the arrays on the device.
    memory : str
        Whose memory the arrays are in (:func:`memory_of` of ``row_adj``).

    Raises
    ------
    InvalidArgumentType
        A host array (NumPy, list) where a device array is expected.
    InvalidArgument
        A wrong dtype (not int32), shape or length; the contents are checked on the device later.

    Notes
    -----
    The arrays must not change once an algorithm has taken the graph: its first call checks them on the
    device, and the calls after it trust that check and reuse what they kept in ``derived``.
    """

    __slots__ = ("_n_rows", "_n_cols", "_arrays", "_n_edges", "_memory", "checked", "derived")

    def __init__(self, n_rows: int, n_cols: int, row_ptr: Any, row_adj: Any, col_ptr: Any = None,
                 col_adj: Any = None):
        n_rows, n_cols = check_count("n_rows", n_rows), check_count("n_cols", n_cols)
        row_ptr = checked_device_array("row_ptr", row_ptr, n_rows + 1)
        row_adj = checked_device_array("row_adj", row_adj, None)
        if (col_ptr is None) != (col_adj is None):
            raise InvalidArgument("give both col_ptr and col_adj, or neither (the transpose is then built by cupyx)")
        if col_ptr is None:
            if memory_of(row_adj) == "sim":
                raise InvalidArgument("the simulator cannot build the column side: give col_ptr and col_adj too")
            try:
                import cupy
                import cupyx.scipy.sparse as csp
            except ImportError as exc:
                raise InvalidArgument(
                    f"building the column side on the GPU needs CuPy ({exc}); give col_ptr and col_adj too"
                ) from None
            ptr, adj = cupy.asarray(row_ptr), cupy.asarray(row_adj)
            ones = cupy.ones(adj.shape[0], cupy.float32)
            csc = csp.csr_matrix((ones, adj, ptr), shape=(n_rows, n_cols)).tocsc()
            csc.sort_indices()
            col_ptr, col_adj = _int32(csc.indptr), _int32(csc.indices)
        col_ptr = checked_device_array("col_ptr", col_ptr, n_cols + 1)
        col_adj = checked_device_array("col_adj", col_adj, int(row_adj.shape[0]))
        self._n_rows, self._n_cols = n_rows, n_cols
        self._arrays = (row_ptr, row_adj, col_ptr, col_adj)
        # worked out once: every call asks (the arrays are the graph's for its life)
        self._n_edges, self._memory = int(row_adj.shape[0]), memory_of(row_adj)
        #: Set once the contents were checked on a device (the check then is not repeated).
        self.checked = False
        #: What the algorithms keep between calls, by ``(name, backend, ...)``: the arrays adopted by a backend, the
        #: work arrays of each algorithm (:mod:`gpusim.runtime.workspace`).
        self.derived: dict[tuple, Any] = {}

    @classmethod
    def from_cupyx(cls, matrix: Any) -> DeviceBipartiteGraph:
        """Build from the pattern of a ``cupyx.scipy.sparse`` matrix (CSR, CSC or COO), on the GPU.

        As :meth:`BipartiteGraph.from_scipy <gpusim.types.graphs.BipartiteGraph.from_scipy>`: every
        stored entry is an edge, duplicates are one edge, values are not looked at.
        """
        if not is_device_sparse(matrix):
            raise InvalidArgumentType(f"matrix must be a cupyx.scipy.sparse matrix, got {type_name(matrix)}")
        if len(matrix.shape) != 2:
            raise InvalidArgument(f"matrix must be two-dimensional, got shape {matrix.shape}")
        n_rows = check_count("matrix.shape[0]", matrix.shape[0])
        n_cols = check_count("matrix.shape[1]", matrix.shape[1])
        csr, csc = _cupyx_pattern(matrix)
        return cls(n_rows, n_cols, _int32(csr.indptr), _int32(csr.indices), _int32(csc.indptr),
                   _int32(csc.indices))

    n_rows = property(lambda self: self._n_rows, doc="Number of row vertices.")
    n_cols = property(lambda self: self._n_cols, doc="Number of column vertices.")
    row_ptr = property(lambda self: self._arrays[0], doc="Row-side CSR offsets (device, int32).")
    row_adj = property(lambda self: self._arrays[1], doc="Column ids of each row (device, int32).")
    col_ptr = property(lambda self: self._arrays[2], doc="Column-side CSR offsets (device, int32).")
    col_adj = property(lambda self: self._arrays[3], doc="Row ids of each column (device, int32).")

    @property
    def n_edges(self) -> int:
        """Number of edges (the length of ``row_adj``: no copy)."""
        return self._n_edges

    @property
    def shape(self) -> tuple[int, int]:
        return (self._n_rows, self._n_cols)

    @property
    def memory(self) -> str:
        return self._memory

    @property
    def nbytes(self) -> int:
        """Bytes of the four arrays."""
        return 4 * (self._n_rows + self._n_cols + 2 + 2 * self.n_edges)

    def __repr__(self) -> str:
        return (f"DeviceBipartiteGraph(n_rows={self._n_rows}, n_cols={self._n_cols}, n_edges={self.n_edges}, "
                f"memory={self.memory!r})")


class DeviceWeightedGraph:
    """An undirected weighted graph as a symmetric CSR in device memory (Naim et al., HiPC 2015's input).

    Parameters
    ----------
    n : int
    ptr, adj
        Device arrays of int32: ``adj[ptr[u]:ptr[u + 1]]`` are ``u``'s neighbours, sorted; every edge
        is in both lists.
    weights
        A device array of float64: the weight of each adjacency entry, the same in both directions,
        finite and >= 0.

    Notes
    -----
    The arrays must not change once an algorithm has taken the graph: its first call checks them on the
    device, and the calls after it trust that check and reuse what they kept in ``derived`` (the arrays as
    the backend adopted them; on a GPU, the owner of each entry that Suitor and b-Suitor make from
    ``ptr``).  Build a new graph for new contents.

    Examples
    --------
    >>> import numpy as np
    >>> from gpusim import Device
    >>> dev = Device("sim")
    >>> g = DeviceWeightedGraph(2, dev.array(np.array([0, 1, 2], np.int32)),
    ...                         dev.array(np.array([1, 0], np.int32)), dev.array(np.array([2.0, 2.0])))
    >>> g.n, g.n_edges
    (2, 1)
    """

    __slots__ = ("_n", "_arrays", "_n_edges", "_memory", "checked", "derived")

    def __init__(self, n: int, ptr: Any, adj: Any, weights: Any):
        n = check_count("n", n)
        ptr = checked_device_array("ptr", ptr, n + 1)
        adj = checked_device_array("adj", adj, None)
        weights = checked_device_array("weights", weights, int(adj.shape[0]), "float64")
        self._n = n
        self._arrays = (ptr, adj, weights)
        # worked out once: every call asks (the arrays are the graph's for its life)
        self._n_edges, self._memory = int(adj.shape[0]) // 2, memory_of(adj)
        self.checked = False
        #: What the algorithms keep between calls, by ``(name, backend, ...)``: the arrays adopted by a backend,
        #: each CSR entry's owner (4 bytes an entry) for Suitor and b-Suitor on a GPU, and the work arrays of each
        #: algorithm (:mod:`gpusim.runtime.workspace`).
        self.derived: dict[tuple, Any] = {}

    @classmethod
    def from_cupyx(cls, matrix: Any) -> DeviceWeightedGraph:
        """Build from a square, symmetric ``cupyx.scipy.sparse`` matrix, on the GPU: as
        :meth:`WeightedGraph.from_scipy <gpusim.types.graphs.WeightedGraph.from_scipy>`, the weight of
        ``{i, j}`` is ``|a_ij|``, zeros and the diagonal are no edge, duplicates are summed first."""
        import cupy
        import cupyx.scipy.sparse as csp

        if not is_device_sparse(matrix):
            raise InvalidArgumentType(f"matrix must be a cupyx.scipy.sparse matrix, got {type_name(matrix)}")
        if len(matrix.shape) != 2 or matrix.shape[0] != matrix.shape[1]:
            raise InvalidArgument(f"matrix must be square to be an undirected graph, got shape {matrix.shape}")
        if matrix.dtype.kind not in "fiub":
            raise InvalidArgumentType(f"matrix must hold real numbers, got dtype {matrix.dtype}")
        n = check_count("matrix.shape[0]", matrix.shape[0])
        rows = canonical_rows(matrix)
        if rows is not None and bool(((rows != matrix.indices) & (matrix.data != 0)).all()):
            # sorted lists, no duplicate, no diagonal entry, no zero: the arrays as they are (copied)
            return cls(n, matrix.indptr.astype(cupy.int32), matrix.indices.astype(cupy.int32),
                       cupy.abs(matrix.data).astype(cupy.float64))
        coo = matrix.tocsr().tocoo()  # to CSR sums duplicates
        coo.sum_duplicates()
        keep = (coo.row != coo.col) & (coo.data != 0)
        data = cupy.abs(coo.data[keep]).astype(cupy.float64)
        csr = csp.coo_matrix((data, (coo.row[keep], coo.col[keep])), shape=(n, n)).tocsr()
        csr.sort_indices()
        return cls(n, _int32(csr.indptr), _int32(csr.indices), csr.data)

    n = property(lambda self: self._n, doc="Number of vertices.")
    ptr = property(lambda self: self._arrays[0], doc="CSR offsets (device, int32).")
    adj = property(lambda self: self._arrays[1], doc="Neighbour ids (device, int32).")
    weights = property(lambda self: self._arrays[2], doc="Weight of each adjacency entry (device, float64).")

    @property
    def n_edges(self) -> int:
        """Number of undirected edges (half the adjacency's length: no copy)."""
        return self._n_edges

    @property
    def memory(self) -> str:
        return self._memory

    @property
    def nbytes(self) -> int:
        """Bytes of the three arrays."""
        return 4 * (self._n + 1) + 12 * int(self._arrays[1].shape[0])

    def __repr__(self) -> str:
        return f"DeviceWeightedGraph(n={self._n}, n_edges={self.n_edges}, memory={self.memory!r})"
