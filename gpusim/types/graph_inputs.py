"""What both graph types build from: CSR offsets, Matrix Market files, SciPy matrices, NetworkX graphs.

Vectorised (``np.sort`` of int64 pair keys and SciPy's O(m) COO-to-CSR conversion, no Python loop
over edges), so graphs of 10^7 edges build in seconds.

>>> import numpy as np
>>> ptr_from_sorted(np.array([0, 0, 2]), 3).tolist()
[0, 2, 2, 3]
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.io
import scipy.sparse as sp

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import as_ids, check_below, check_count, type_name

__all__ = [
    "bipartite_top", "check_csr", "check_networkx_graph", "check_symmetric", "csr_of", "first_duplicate",
    "networkx_weights", "node_numbering", "offdiagonal_abs", "ptr_from_sorted", "read_matrix_market", "require_sparse",
]


def ptr_from_sorted(src: np.ndarray, n: int) -> np.ndarray:
    """CSR offsets of ``n`` lists given the (sorted) list id of every entry."""
    ptr = np.zeros(n + 1, np.int64)
    if n:
        np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    return ptr


def first_duplicate(key: np.ndarray) -> tuple[np.ndarray, tuple[int, int] | None]:
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


def csr_of(rows: np.ndarray, cols: np.ndarray, data: np.ndarray, shape: tuple[int, int]) -> sp.csr_array:
    """SciPy CSR with sorted indices from distinct entries (coo->csr is an O(m) counting sort)."""
    a = sp.coo_array((data, (rows, cols)), shape=shape).tocsr()
    a.sort_indices()
    return a


def check_csr(ptr_name: str, ptr: Any, adj_name: str, adj: Any, n_src: int, n_dst: int) -> np.ndarray:
    """Validate one CSR side (offsets, sorted duplicate-free lists); return each entry's list id."""
    ptr = as_ids(ptr_name, ptr)
    adj = as_ids(adj_name, adj)
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
    check_below(adj_name, adj, n_dst, "the number of targets")
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


def read_matrix_market(source: Any) -> sp.coo_array:
    if not isinstance(source, (str, os.PathLike)) and not hasattr(source, "read"):
        raise InvalidArgumentType(
            f"path must be a str, os.PathLike or an open file, got {source!r} of type {type_name(source)}"
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
        detail = _entry_fault(target, str(exc)) if isinstance(target, str) else None
        raise InvalidArgument(f"cannot read {source!r} as a Matrix Market file: {detail or exc}") from None
    return sp.coo_array(matrix)


def _entry_fault(path: str, message: str) -> str | None:
    """The value behind a reader's ``Line N: ...`` complaint: the line's text re-read and the bad token named
    (``line 4: row index 9 is out of bounds (rows 1..5)``); None when the message names no line."""
    import itertools
    import re

    found = re.search(r"[Ll]ine (\d+)", message)
    if not found:
        return None
    number = int(found.group(1))
    try:
        from gpusim.types.memory import matrix_market_header

        header = matrix_market_header(path)
        with open(path, "rb") as source:
            raw = next(itertools.islice(source, number - 1, number), b"")
    except (OSError, InvalidArgument):
        return None
    words = raw.decode("latin-1").split()
    reason = message.split(":", 1)[-1].strip()
    for position, (what, size) in enumerate((("row", header.rows), ("column", header.cols))):
        if position < len(words):
            try:
                index = int(words[position])
            except ValueError:
                return f"line {number}: {what} index {words[position]!r} is not an integer"
            if not 1 <= index <= size:
                return f"line {number}: {what} index {index} is out of bounds ({what}s 1..{size})"
    text = raw.decode("latin-1").strip()
    return f"line {number}: {text[:60]!r}: {reason}"


def require_sparse(name: str, matrix: Any) -> sp.coo_array:
    if not sp.issparse(matrix):
        raise InvalidArgumentType(
            f"{name} must be a SciPy sparse matrix or array, got {type_name(matrix)}; "
            "use from_edges for edge arrays or scipy.sparse.coo_array(dense) for a dense array"
        )
    if len(matrix.shape) != 2:
        raise InvalidArgument(f"{name} must be two-dimensional, got shape {matrix.shape}")
    return sp.coo_array(matrix)


def offdiagonal_abs(name: str, matrix: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Nonzero off-diagonal entries ``(i, j, |a_ij|)`` of a square real matrix, duplicates summed."""
    coo = require_sparse(name, matrix)
    n_rows, n_cols = coo.shape
    if n_rows != n_cols:
        raise InvalidArgument(f"{name} must be square to be an undirected graph, got shape {coo.shape}")
    check_count(f"{name}.shape[0]", n_rows)
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


def check_symmetric(name: str, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n: int) -> None:
    """Require distinct finite entries (i, j) exactly when (j, i), with equal values (SciPy, O(m))."""
    pattern = csr_of(rows, cols, np.ones(rows.shape[0], np.int8), (n, n))
    extra = (pattern - pattern.T).tocoo()  # +1 where (i, j) has no mirror; exact zeros are dropped
    if extra.nnz:
        k = int(np.flatnonzero(extra.data > 0)[0])
        i, j = int(extra.row[k]), int(extra.col[k])
        raise InvalidArgument(
            f"{name} is not symmetric: entry ({i}, {j}) is present but ({j}, {i}) is not; "
            "an undirected graph needs a symmetric matrix"
        )
    a = csr_of(rows, cols, values, (n, n))
    diff = (a - a.T).tocoo()  # finite values: a - b == 0 exactly when a == b
    if diff.nnz:
        i, j = int(diff.row[0]), int(diff.col[0])
        raise InvalidArgument(
            f"{name} is not symmetric: weight of ({i}, {j}) is {a[i, j].item()!r} "
            f"but weight of ({j}, {i}) is {a[j, i].item()!r}"
        )


def check_networkx_graph(G: Any) -> None:
    import networkx as nx

    if not isinstance(G, nx.Graph):
        raise InvalidArgumentType(f"G must be a networkx.Graph, got {type_name(G)}")
    if G.is_directed():
        raise InvalidArgumentType(f"G must be undirected, got a {type_name(G)}; use G.to_undirected()")
    if G.is_multigraph():
        raise InvalidArgumentType(f"G must not be a multigraph, got a {type_name(G)}; use networkx.Graph(G)")


def bipartite_top(G: Any, top_nodes: Any) -> set:
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


def node_numbering(G: Any) -> list:
    """Labels in vertex-id order: labels 0..n-1 keep their value, other labels follow G's order."""
    nodes = list(G)
    n = len(nodes)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in nodes):
        if set(nodes) == set(range(n)):
            return list(range(n))
    return nodes


def networkx_weights(ws: list, weight: str | None, ends: list) -> np.ndarray:
    """Check the weights read from a NetworkX graph, naming the edge of the first bad one."""
    for k, x in enumerate(ws):
        if not isinstance(x, (int, float, np.integer, np.floating)) or isinstance(x, (bool, np.bool_)):
            raise InvalidArgumentType(
                f"edge {ends[k]!r} has {weight}={x!r} of type {type_name(x)}; weights must be real numbers"
            )
    warr = np.array(ws, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(warr) | (warr < 0))
    if bad.size:
        k = int(bad[0])
        raise InvalidArgument(f"edge {ends[k]!r} has {weight}={ws[k]!r}: weights must be finite and >= 0")
    return warr
