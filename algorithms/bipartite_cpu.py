"""Sequential references for maximum-cardinality bipartite matching, compiled with Numba.

These are the CPU baselines the GPU algorithms of seeds 000 and 001 are measured against, and the
oracles' partners in the tests: the *cheap matching* greedy initialisation, Hopcroft-Karp (HK),
Pothen-Fan with lookahead and fairness (PFP) and the FIFO push-relabel algorithm with global
relabelling (PR, seed 001, Alg. 1 and 2).  Each public function checks its input and calls a
private ``numba.njit`` function on plain int32 arrays; the private functions never validate.

Conventions, as in seed 000, Alg. 1 and SciPy: ``row_match[r] = c`` and ``col_match[c] = r`` when
row ``r`` is matched to column ``c``; ``-1`` marks an unmatched vertex.  The searches start from
unmatched *columns* and look for unmatched *rows*, as the papers' kernels do (columns look up
their rows in ``graph.col_ptr``/``graph.col_adj``).

Every maximum algorithm takes an ``initial`` matching: ``None`` starts from :func:`cheap_matching`
(as both papers do), otherwise a ``(row_match, col_match)`` pair (or a previous
:class:`MatchingResult`), which is checked and copied, never modified.

Examples
--------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
>>> [int(f(g).stats["size"]) for f in (cheap_matching, hopcroft_karp, pothen_fan, push_relabel)]
[1, 2, 2, 2]
"""

from __future__ import annotations

import math
import reprlib
from typing import Any, NamedTuple

import numba
import numpy as np

from gpusim.errors import GpusimInternalError, InvalidArgument, InvalidArgumentType
from gpusim.types.check import check_bipartite_matching, checked_output, match_array
from gpusim.types.graphs import BipartiteGraph

__all__ = ["MatchingResult", "cheap_matching", "hopcroft_karp", "pothen_fan", "push_relabel"]


class MatchingResult(NamedTuple):
    """A bipartite matching and the counters of the run that found it.

    Unpacks as ``row_match, col_match, stats = result``; ``result[:2]`` (or the result itself) can
    be passed as another algorithm's ``initial`` matching.

    Attributes
    ----------
    row_match : ndarray of int32, length ``n_rows``
        ``row_match[r]``: the column matched to row ``r``, or -1.
    col_match : ndarray of int32, length ``n_cols``
        ``col_match[c]``: the row matched to column ``c``, or -1.
    stats : dict
        ``"algorithm"``, ``"size"`` (number of matched pairs), ``"initial_size"`` and per-algorithm
        counters (phases, augmentations, pushes, global relabels); see each function.
    """

    row_match: np.ndarray
    col_match: np.ndarray
    stats: dict


# ----------------------------------------------------------------------------------------------
# Compiled kernels (private: arrays already checked; row_match/col_match are modified in place)


@numba.njit(cache=False)
def _cheap(col_ptr, col_adj, row_match, col_match):  # pragma: no cover - compiled
    """Greedy: every unmatched column, in id order, takes its first unmatched row.  O(m)."""
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


@numba.njit(cache=False)
def _hopcroft_karp(col_ptr, col_adj, row_match, col_match):  # pragma: no cover - compiled
    """HK phases: BFS layers from the free columns, then layered DFS with an explicit stack.

    Returns ``(phases, augmentations)``.
    """
    n_cols = col_ptr.shape[0] - 1
    inf = np.int64(n_cols + 1)
    # dist[c]: BFS layer of column c (free columns are layer 0); inf when unreached or dead
    dist = np.empty(n_cols, np.int64)
    queue = np.empty(n_cols, np.int32)
    # it[c]: next position in col_adj that column c's DFS scans (each edge once per phase)
    it = np.empty(n_cols, np.int64)
    # stack[i]: the column at depth i of the DFS; via[i]: the row joining stack[i] to stack[i + 1]
    stack = np.empty(n_cols, np.int32)
    via = np.empty(n_cols, np.int32)
    phases = 0
    augmentations = 0
    while True:
        head = 0
        tail = 0
        for c in range(n_cols):
            if col_match[c] == -1:
                dist[c] = 0
                queue[tail] = c
                tail += 1
            else:
                dist[c] = inf
        limit = inf  # layer of the columns adjacent to a free row: the shortest augmenting paths
        while head < tail:
            c = queue[head]
            head += 1
            if dist[c] >= limit:
                break
            for k in range(col_ptr[c], col_ptr[c + 1]):
                c2 = row_match[col_adj[k]]
                if c2 == -1:
                    limit = dist[c]
                elif dist[c2] == inf:
                    dist[c2] = dist[c] + 1
                    queue[tail] = c2
                    tail += 1
        if limit == inf:
            return phases, augmentations
        phases += 1
        for c in range(n_cols):
            it[c] = col_ptr[c]
        for s in range(n_cols):
            if col_match[s] != -1 or dist[s] != 0:
                continue
            top = 0
            stack[0] = s
            while top >= 0:
                c = stack[top]
                found = -1
                pushed = False
                while it[c] < col_ptr[c + 1]:
                    r = col_adj[it[c]]
                    it[c] += 1
                    c2 = row_match[r]
                    if c2 == -1:
                        found = r
                        break
                    if dist[c2] == dist[c] + 1 and dist[c2] <= limit:
                        via[top] = r
                        top += 1
                        stack[top] = c2
                        pushed = True
                        break
                if found != -1:
                    # flip the path: stack[i] takes via[i], the last column takes the free row
                    row_match[found] = stack[top]
                    col_match[stack[top]] = found
                    for i in range(top):
                        row_match[via[i]] = stack[i]
                        col_match[stack[i]] = via[i]
                    augmentations += 1
                    break
                if not pushed:
                    dist[c] = inf  # dead end for the rest of the phase
                    top -= 1


@numba.njit(cache=False)
def _pothen_fan(n_rows, col_ptr, col_adj, row_match, col_match, lookahead, fairness):  # pragma: no cover
    """PF phases: a DFS from every free column, rows visited at most once per phase.

    Returns ``(phases, augmentations)``.
    """
    n_cols = col_ptr.shape[0] - 1
    # visited[r]: the last phase whose DFSs visited row r
    visited = np.zeros(n_rows, np.int64)
    # look[c]: next position of column c's lookahead scan; the rows before it are matched for good
    look = np.empty(n_cols, np.int64)
    for c in range(n_cols):
        look[c] = col_ptr[c]
    # it[c]: how many of column c's rows its DFS has scanned this phase
    it = np.zeros(n_cols, np.int64)
    # stack[i]: the column at depth i of the DFS; via[i]: the row joining stack[i] to stack[i + 1]
    stack = np.empty(n_cols, np.int32)
    via = np.empty(n_cols, np.int32)
    # free[:n_free]: the columns still unmatched, the roots of the next phase's DFSs
    free = np.empty(n_cols, np.int32)
    n_free = 0
    for c in range(n_cols):
        if col_match[c] == -1:
            free[n_free] = c
            n_free += 1
    phases = 0
    augmentations = 0
    while n_free > 0:
        phases += 1
        forward = (not fairness) or phases % 2 == 1
        found_in_phase = 0
        for i_free in range(n_free):
            s = free[i_free]
            top = 0
            stack[0] = s
            it[s] = 0
            found = -1
            while top >= 0:
                c = stack[top]
                lo = col_ptr[c]
                hi = col_ptr[c + 1]
                if lookahead:
                    while look[c] < hi:
                        r = col_adj[look[c]]
                        look[c] += 1
                        if row_match[r] == -1:
                            found = r
                            break
                    if found != -1:
                        break
                pushed = False
                while it[c] < hi - lo:
                    k = lo + it[c] if forward else hi - 1 - it[c]
                    it[c] += 1
                    r = col_adj[k]
                    if visited[r] == phases:
                        continue
                    visited[r] = phases
                    c2 = row_match[r]
                    if c2 == -1:
                        found = r
                        break
                    via[top] = r
                    top += 1
                    stack[top] = c2
                    it[c2] = 0
                    pushed = True
                    break
                if found != -1:
                    break
                if not pushed:
                    top -= 1
            if found != -1:
                row_match[found] = stack[top]
                col_match[stack[top]] = found
                for i in range(top):
                    row_match[via[i]] = stack[i]
                    col_match[stack[i]] = via[i]
                found_in_phase += 1
        augmentations += found_in_phase
        if found_in_phase == 0:
            break
        kept = 0
        for i_free in range(n_free):
            if col_match[free[i_free]] == -1:
                free[kept] = free[i_free]
                kept += 1
        n_free = kept
    return phases, augmentations


@numba.njit(cache=False)
def _global_relabel(row_ptr, row_adj, row_match, col_match, psi_r, psi_c, inf, queue):  # pragma: no cover
    """Seed 001, Alg. 2: exact labels by a BFS from every free row; unreached vertices get ``inf``."""
    n_rows = row_ptr.shape[0] - 1
    tail = 0
    for r in range(n_rows):
        if row_match[r] == -1:
            psi_r[r] = 0
            queue[tail] = r
            tail += 1
        else:
            psi_r[r] = inf
    psi_c[:] = inf
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(row_ptr[u], row_ptr[u + 1]):
            v = row_adj[k]
            if psi_c[v] == inf:
                psi_c[v] = psi_r[u] + 1
                w = col_match[v]
                if w != -1:
                    psi_r[w] = psi_c[v] + 1
                    queue[tail] = w
                    tail += 1


@numba.njit(cache=False)
def _push_relabel(row_ptr, row_adj, col_ptr, col_adj, row_match, col_match, threshold):  # pragma: no cover
    """Seed 001, Alg. 1 with FIFO active columns and a global relabel every ``threshold`` pushes.

    Returns ``(pushes, double_pushes, global_relabels, ok)``; ``ok`` is False only if the push
    count passed its proven bound (a bug).
    """
    n_rows = row_ptr.shape[0] - 1
    n_cols = col_ptr.shape[0] - 1
    inf = np.int64(n_rows + n_cols)  # the paper's m + n: no alternating path is this long
    # psi_r[r], psi_c[c]: lower bounds on the alternating distance to a free row (seed 001's psi)
    psi_r = np.zeros(n_rows, np.int64)
    psi_c = np.ones(n_cols, np.int64)
    bfs_queue = np.empty(n_rows, np.int32)
    # active columns, FIFO in a ring: a column is queued only while unmatched, so at most n_cols
    cap = n_cols + 1
    active = np.empty(cap, np.int32)
    head = 0
    count = 0
    for c in range(n_cols):
        if col_match[c] == -1:
            active[count] = c
            count += 1
    # every push raises one row's label by 2, and labels stay below inf + 2
    bound = np.int64(n_rows) * (inf // 2 + 1)
    pushes = np.int64(0)
    double_pushes = np.int64(0)
    global_relabels = 0
    since = 0
    if count > 0:
        _global_relabel(row_ptr, row_adj, row_match, col_match, psi_r, psi_c, inf, bfs_queue)
        global_relabels += 1
    while count > 0:
        v = active[head]
        head = (head + 1) % cap
        count -= 1
        if psi_c[v] >= inf:
            continue  # no augmenting path from v: it stays unmatched
        psi_min = inf
        u = -1
        target = psi_c[v] - 1
        for k in range(col_ptr[v], col_ptr[v + 1]):
            r = col_adj[k]
            if psi_r[r] < psi_min:
                psi_min = psi_r[r]
                u = r
                if psi_min == target:
                    break
        if psi_min >= inf:
            psi_c[v] = inf
            continue
        w = row_match[u]
        if w != -1:  # double push: w loses u and becomes active
            col_match[w] = -1
            active[(head + count) % cap] = w
            count += 1
            double_pushes += 1
        row_match[u] = v
        col_match[v] = u
        psi_c[v] = psi_min + 1
        psi_r[u] = psi_min + 2
        pushes += 1
        since += 1
        if pushes > bound:
            return pushes, double_pushes, global_relabels, False
        if since >= threshold and count > 0:
            _global_relabel(row_ptr, row_adj, row_match, col_match, psi_r, psi_c, inf, bfs_queue)
            global_relabels += 1
            since = 0
    return pushes, double_pushes, global_relabels, True


# ----------------------------------------------------------------------------------------------
# Argument checks


def _check_graph(graph: Any) -> BipartiteGraph:
    if not isinstance(graph, BipartiteGraph):
        raise InvalidArgumentType(
            f"graph must be a gpusim.types.graphs.BipartiteGraph, got graph={reprlib.repr(graph)} of type "
            f"{type(graph).__name__}; build one with BipartiteGraph.from_edges, from_scipy or load_graph"
        )
    return graph


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentType(f"{name} must be a bool, got {name}={value!r} of type {type(value).__name__}")
    return bool(value)


def _check_initial(graph: BipartiteGraph, initial: Any) -> tuple[np.ndarray, np.ndarray]:
    """Writable int32 copies of a checked initial matching; ``None`` gives the cheap matching."""
    if initial is None:
        row_match = np.full(graph.n_rows, -1, np.int32)
        col_match = np.full(graph.n_cols, -1, np.int32)
        _cheap(graph.col_ptr, graph.col_adj, row_match, col_match)
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


def _size(row_match: np.ndarray) -> int:
    return int(np.count_nonzero(row_match >= 0))


def _result(graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray, stats: dict) -> MatchingResult:
    """The result, validated against ``graph`` (:func:`gpusim.types.check.check_bipartite_matching`: every pair an entry
    of the matrix, both sides agreeing) and its size checked against the algorithm's count."""
    size = checked_output(stats["algorithm"], graph, check_bipartite_matching, graph, row_match, col_match)
    if size != stats["size"]:
        raise GpusimInternalError(f"{stats['algorithm']} counted {stats['size']} pairs but matched {size} on {graph!r}")
    return MatchingResult(row_match, col_match, stats)


# ----------------------------------------------------------------------------------------------
# Public functions


def cheap_matching(graph: BipartiteGraph) -> MatchingResult:
    """The greedy *cheap matching*: every column, in id order, takes its first unmatched row.

    This is the standard initialisation that seeds 000 and 001 run before every algorithm they
    compare ("a standard heuristic called the cheap matching", seed 000 §4, seed 001 §IV).  The
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
    Seed 000 (Deveci et al., Euro-Par 2013) §4; seed 001 (Deveci et al., ICPP 2013) §IV, citing
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
    graph = _check_graph(graph)
    row_match = np.full(graph.n_rows, -1, np.int32)
    col_match = np.full(graph.n_cols, -1, np.int32)
    size = int(_cheap(graph.col_ptr, graph.col_adj, row_match, col_match))
    return _result(graph, row_match, col_match, {"algorithm": "cheap", "size": size, "initial_size": 0})


def hopcroft_karp(graph: BipartiteGraph, initial: Any = None) -> MatchingResult:
    """A maximum-cardinality matching by Hopcroft-Karp (HK).

    Each phase runs a BFS from all unmatched columns, layer by layer, until a layer touches an
    unmatched row; then a DFS from every unmatched column, restricted to edges that go one layer
    deeper, augments along a maximal set of vertex-disjoint shortest augmenting paths.  The DFS
    uses an explicit stack and a per-column scan pointer (no recursion).  The algorithm stops when
    a BFS finds no unmatched row: no augmenting path is left, so the matching is maximum (Berge).

    Parameters
    ----------
    graph : BipartiteGraph
    initial : (row_match, col_match) or MatchingResult, optional
        Starting matching, checked and copied; ``None`` (default) starts from :func:`cheap_matching`.

    Returns
    -------
    MatchingResult
        ``(row_match, col_match, stats)``; ``stats`` has ``algorithm``, ``size``, ``initial_size``,
        ``phases`` (BFS+DFS rounds that augmented) and ``augmentations``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a BipartiteGraph; ``initial`` is not a pair of integer arrays.
    InvalidArgument
        ``initial`` has the wrong lengths, ids out of range, is inconsistent (``row_match[r] = c``
        but ``col_match[c] != r``) or matches a pair that is not an edge.

    Notes
    -----
    O(sqrt(n) m) time for n vertices and m edges: O(sqrt(n)) phases of O(m + n) each; O(n)
    extra memory.  HK is what seed 000's APsB (Alg. 1) parallelises: the BFS kernels are its
    BFS, ALTERNATE its augmentations.

    References
    ----------
    J. E. Hopcroft and R. M. Karp, "An n^{5/2} algorithm for maximum matchings in bipartite
    graphs", SIAM J. Comput. 2(4), 1973.  Seed 000 (Deveci et al., Euro-Par 2013), §2 and Alg. 1.

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
    >>> row_match, col_match, stats = hopcroft_karp(g)
    >>> row_match.tolist(), col_match.tolist(), stats["size"], stats["phases"]
    ([1, 0], [1, 0], 2, 1)
    >>> hopcroft_karp(g, initial=([-1, -1], [-1, -1])).stats["initial_size"]
    0
    >>> hopcroft_karp(BipartiteGraph.from_edges([], [])).row_match.tolist()
    []
    """
    graph = _check_graph(graph)
    row_match, col_match = _check_initial(graph, initial)
    initial_size = _size(row_match)
    phases, augmentations = _hopcroft_karp(graph.col_ptr, graph.col_adj, row_match, col_match)
    stats = {"algorithm": "hopcroft_karp", "size": initial_size + int(augmentations),
             "initial_size": initial_size, "phases": int(phases), "augmentations": int(augmentations)}
    return _result(graph, row_match, col_match, stats)


def pothen_fan(graph: BipartiteGraph, initial: Any = None, lookahead: bool = True,
               fairness: bool = True) -> MatchingResult:
    """A maximum-cardinality matching by Pothen-Fan with lookahead and fairness (PFP).

    Each phase runs a DFS from every unmatched column; a row visited by any DFS of the phase is
    not visited again in that phase, so the paths found are vertex-disjoint and a phase costs
    O(m).  With ``lookahead`` a column first scans its rows for an unmatched one (one pointer per
    column that never moves back, since a matched row stays matched), then descends.  With
    ``fairness`` the DFS scans adjacency lists forward in odd phases and backward in even ones.
    The algorithm stops after a phase that augments nothing: then no augmenting path is left.

    Parameters
    ----------
    graph : BipartiteGraph
    initial : (row_match, col_match) or MatchingResult, optional
        Starting matching, checked and copied; ``None`` (default) starts from :func:`cheap_matching`.
    lookahead : bool
        Look for an unmatched row among a column's neighbours before descending (default True).
    fairness : bool
        Alternate the direction in which adjacency lists are scanned (default True).

    Returns
    -------
    MatchingResult
        ``(row_match, col_match, stats)``; ``stats`` has ``algorithm``, ``size``, ``initial_size``,
        ``phases`` (the last one augments nothing) and ``augmentations``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a BipartiteGraph; ``initial`` is not a pair of integer arrays;
        ``lookahead`` or ``fairness`` is not a bool.
    InvalidArgument
        ``initial`` is malformed (see :func:`hopcroft_karp`).

    Notes
    -----
    O(n m) time in the worst case (at most n phases of O(m + n)); fast in practice, and, with
    HK, the sequential baseline of seed 000's experiments (PFP).  O(n) extra memory.

    References
    ----------
    A. Pothen and C.-J. Fan, "Computing the block triangular form of a sparse matrix", ACM TOMS
    16(4), 1990; I. S. Duff, K. Kaya and B. Uçar, "Design, implementation, and analysis of
    maximum transversal algorithms", ACM TOMS 38(2), 2011 (fairness).  Seed 000 (Deveci et al.,
    Euro-Par 2013), §4 (the PFP baseline).

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 0, 1, 2], [0, 1, 0, 2], n_rows=4)
    >>> row_match, col_match, stats = pothen_fan(g)
    >>> row_match.tolist(), col_match.tolist(), stats["size"]
    ([1, 0, 2, -1], [1, 0, 2], 3)
    >>> pothen_fan(g, lookahead=False, fairness=False).stats["size"]
    3
    >>> pothen_fan(BipartiteGraph.from_edges([], [], 0, 3)).col_match.tolist()
    [-1, -1, -1]
    """
    graph = _check_graph(graph)
    lookahead = _check_bool("lookahead", lookahead)
    fairness = _check_bool("fairness", fairness)
    row_match, col_match = _check_initial(graph, initial)
    initial_size = _size(row_match)
    phases, augmentations = _pothen_fan(graph.n_rows, graph.col_ptr, graph.col_adj, row_match, col_match,
                                        lookahead, fairness)
    stats = {"algorithm": "pothen_fan", "size": initial_size + int(augmentations),
             "initial_size": initial_size, "phases": int(phases), "augmentations": int(augmentations)}
    return _result(graph, row_match, col_match, stats)


def push_relabel(graph: BipartiteGraph, initial: Any = None, k: float = 0.5) -> MatchingResult:
    """A maximum-cardinality matching by sequential push-relabel (PR) with global relabelling.

    Seed 001, Alg. 1: every row ``u`` and column ``v`` carries a label psi, a lower bound on the
    length of an alternating path to an unmatched row.  Unmatched columns are *active* and are
    processed first in, first out.  An active column ``v`` finds a neighbour ``u`` of minimum
    psi (stopping early at ``psi(v) - 1``); if ``psi(u) < n_rows + n_cols`` it takes ``u``
    (a *single push*, or a *double push* that unmatches ``u``'s column ``w`` and makes ``w``
    active), then relabels ``psi(v) = psi(u) + 1`` and ``psi(u) += 2``; otherwise ``v`` can
    reach no unmatched row and is dropped.  Seed 001, Alg. 2 (global relabel): a BFS from all
    unmatched rows sets every label to its exact distance, ``n_rows + n_cols`` for vertices it
    does not reach; it runs once at the start and again after every ``k * (n_rows + n_cols)``
    pushes.  When no column is active the matching is maximum.

    Parameters
    ----------
    graph : BipartiteGraph
    initial : (row_match, col_match) or MatchingResult, optional
        Starting matching, checked and copied; ``None`` (default) starts from :func:`cheap_matching`.
    k : float
        Global relabelling frequency: a relabel after every ``max(1, floor(k * (n_rows + n_cols)))``
        pushes.  Positive and finite; seed 001 found 0.5 best for the sequential PR (default).

    Returns
    -------
    MatchingResult
        ``(row_match, col_match, stats)``; ``stats`` has ``algorithm``, ``size``, ``initial_size``,
        ``pushes`` (single and double), ``double_pushes``, ``relabels`` (Alg. 1 lines 11-12, once
        per push) and ``global_relabels``.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a BipartiteGraph; ``initial`` is not a pair of integer arrays; ``k`` is
        not a real number.
    InvalidArgument
        ``initial`` is malformed (see :func:`hopcroft_karp`); ``k`` is not positive and finite.
    GpusimInternalError
        The push count passed its proven bound (this would be a bug in gpusim).

    Notes
    -----
    Terminates: a push raises its row's label by 2, labels never decrease (a global relabel sets
    exact distances, which the labels bound from below, and distances to unmatched rows never
    shrink), and a row with label ``n_rows + n_cols`` or more takes no push; so there are at most
    ``n_rows * (n_rows + n_cols) / 2 + n_rows`` pushes, O(n m) time in the worst case.  Labels are
    int64, the queue a ring of ``n_cols + 1`` entries.  Seed 001's G-PR (Alg. 3-8) is the GPU
    version; this is the sequential PR it is compared with.

    References
    ----------
    A. V. Goldberg and R. E. Tarjan, "A new approach to the maximum-flow problem", J. ACM 35(4),
    1988; K. Kaya, J. Langguth, F. Manne and B. Uçar, "Push-relabel based algorithms for the
    maximum transversal problem", Computers & OR 40(5), 2013.  Seed 001 (Deveci et al., ICPP
    2013), Alg. 1 (PR) and Alg. 2 (GR).

    Examples
    --------
    >>> from gpusim.types.graphs import BipartiteGraph
    >>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
    >>> row_match, col_match, stats = push_relabel(g)
    >>> row_match.tolist(), col_match.tolist(), stats["size"], stats["double_pushes"]
    ([1, 0], [1, 0], 2, 1)
    >>> push_relabel(g, k=2.0, initial=([-1, -1], [-1, -1])).stats["size"]
    2
    >>> push_relabel(BipartiteGraph.from_edges([], [], 2, 0)).row_match.tolist()
    [-1, -1]
    """
    graph = _check_graph(graph)
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, float, np.integer, np.floating)):
        raise InvalidArgumentType(f"k must be a real number, got k={k!r} of type {type(k).__name__}")
    if not (math.isfinite(k) and k > 0):
        raise InvalidArgument(f"k={k!r} must be positive and finite: a global relabel every k * (n_rows + n_cols) "
                              "pushes")
    row_match, col_match = _check_initial(graph, initial)
    initial_size = _size(row_match)
    threshold = max(1, int(math.floor(float(k) * (graph.n_rows + graph.n_cols))))
    pushes, double_pushes, global_relabels, ok = _push_relabel(
        graph.row_ptr, graph.row_adj, graph.col_ptr, graph.col_adj, row_match, col_match, np.int64(threshold))
    if not ok:
        raise GpusimInternalError(f"push_relabel exceeded its push bound ({int(pushes)} pushes) on {graph!r}")
    stats = {"algorithm": "push_relabel", "size": _size(row_match), "initial_size": initial_size,
             "pushes": int(pushes), "double_pushes": int(double_pushes), "relabels": int(pushes),
             "global_relabels": int(global_relabels)}
    return _result(graph, row_match, col_match, stats)
