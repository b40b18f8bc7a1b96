"""The cheap matching (Deveci et al., Euro-Par 2013 §4 and ICPP 2013 §IV): the greedy start of every algorithm, and
the start
matching the sequential references take (``initial=``), checked.

Conventions, as in Deveci et al. (Euro-Par 2013), Alg. 1 and SciPy: ``row_match[r] = c`` and ``col_match[c] = r`` when
row ``r`` is matched to column ``c``; ``-1`` marks an unmatched vertex.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
>>> cheap_matching(g).stats["size"]
1
>>> [a.tolist() for a in start_matching(g, ([1, -1], [-1, 0]))]
[[1, -1], [-1, 0]]
"""

from __future__ import annotations

import reprlib
from typing import Any

import numba
import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.check import match_array
from gpusim.types.graphs import BipartiteGraph

from .reference_inputs import check_graph, checked_result
from .result import MatchingResult

__all__ = ["cheap_matching", "cheap_pass", "start_matching"]


@numba.njit(cache=True)
def cheap_pass(col_ptr, col_adj, row_match, col_match):  # pragma: no cover - compiled
    """Greedy, compiled (arrays already checked; matched in place): every unmatched column, in id order,
    takes its first unmatched row.  O(m)."""
    n_cols = col_ptr.shape[0] - 1
    size = 0
    for c in range(n_cols):
        if col_match[c] != -1:
            continue
        for k in range(col_ptr[c], col_ptr[c + 1]):
            r = col_adj[k]
            if row_match[r] == -1:
                row_match[r] = c
                col_match[c] = r
                size += 1
                break
    return size


def start_matching(graph: BipartiteGraph, initial: Any) -> tuple[np.ndarray, np.ndarray]:
    """Writable int32 copies of a checked initial matching (a pair or a :class:`MatchingResult`);
    ``None`` gives the cheap matching."""
    if initial is None:
        row_match = np.full(graph.n_rows, -1, np.int32)
        col_match = np.full(graph.n_cols, -1, np.int32)
        cheap_pass(graph.col_ptr, graph.col_adj, row_match, col_match)
        return row_match, col_match
    if isinstance(initial, MatchingResult):
        initial = (initial.row_match, initial.col_match)
    if not isinstance(initial, (tuple, list)) or len(initial) != 2:
        raise InvalidArgumentType(
            f"initial must be None or a (row_match, col_match) pair, got initial={reprlib.repr(initial)} "
            f"of type {type(initial).__name__}"
        )
    rm = match_array("initial row_match", initial[0], graph.n_rows, graph.n_cols, "column")
    cm = match_array("initial col_match", initial[1], graph.n_cols, graph.n_rows, "row")
    rows = np.flatnonzero(rm >= 0)
    back = cm[rm[rows]]
    bad = np.flatnonzero(back != rows)
    if bad.size:
        r = int(rows[bad[0]])
        c = int(rm[r])
        raise InvalidArgument(
            f"initial is inconsistent: row_match[{r}]={c} but col_match[{c}]={int(cm[c])}"
        )
    cols = np.flatnonzero(cm >= 0)
    bad = np.flatnonzero(rm[cm[cols]] != cols)
    if bad.size:
        c = int(cols[bad[0]])
        r = int(cm[c])
        raise InvalidArgument(
            f"initial is inconsistent: col_match[{c}]={r} but row_match[{r}]={int(rm[r])}"
        )
    if rows.size:
        # row_adj is sorted within rows and rows are in order: the keys row * n_cols + col are sorted
        edge_rows = np.repeat(np.arange(graph.n_rows, dtype=np.int64), np.diff(graph.row_ptr))
        keys = edge_rows * graph.n_cols + graph.row_adj
        want = rows.astype(np.int64) * graph.n_cols + rm[rows]
        if keys.size:
            pos = np.minimum(np.searchsorted(keys, want), keys.size - 1)
            missing = np.flatnonzero(keys[pos] != want)
        else:
            missing = np.arange(rows.size)
        if missing.size:
            r = int(rows[missing[0]])
            raise InvalidArgument(
                f"initial matches row {r} to column {int(rm[r])}, but ({r}, {int(rm[r])}) is not an edge of graph"
            )
    return rm.astype(np.int32), cm.astype(np.int32)


def cheap_matching(graph: BipartiteGraph) -> MatchingResult:
    """The greedy *cheap matching*: every column, in id order, takes its first unmatched row.

    This is the standard initialisation that Deveci et al. (Euro-Par 2013, ICPP 2013) run before every algorithm they
    compare ("a standard heuristic called the cheap matching", Deveci et al. (Euro-Par 2013) §4, Deveci et al. (ICPP
    2013) §IV).  The
    result is maximal (no edge joins two unmatched vertices), so at least half the maximum.

    Parameters
    ----------
    graph : BipartiteGraph

    Returns
    -------
    MatchingResult
        ``(row_match, col_match, stats)``; ``stats`` has ``algorithm``, ``size``, ``initial_size`` (0).

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a :class:`~gpusim.types.graphs.BipartiteGraph`.

    Notes
    -----
    O(m + n) time: every column scans its rows once, in ``graph.col_adj`` order (sorted ids).

    References
    ----------
    Deveci et al. (Euro-Par 2013) §4; Deveci et al. (ICPP 2013) §IV, citing
    J. Magun, "Greedy matching algorithms, an experimental study", 1997.

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
    >>> row_match, col_match, stats = cheap_matching(g)
    >>> row_match.tolist(), col_match.tolist(), stats["size"]
    ([0, -1], [0, -1], 1)
    >>> cheap_matching(BipartiteGraph.from_edges([], [])).stats["size"]
    0
    """
    graph = check_graph(graph)
    row_match = np.full(graph.n_rows, -1, np.int32)
    col_match = np.full(graph.n_cols, -1, np.int32)
    size = int(cheap_pass(graph.col_ptr, graph.col_adj, row_match, col_match))
    return checked_result(graph, row_match, col_match, {"algorithm": "cheap", "size": size, "initial_size": 0})
