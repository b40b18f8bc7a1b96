"""Validators and certificates: what makes a result trustworthy without trusting the code.

Every matching a gpusim algorithm returns is checked by one of the validators here, against the
*input* it was computed from, never against the algorithm's own bookkeeping:

* :func:`check_bipartite_matching`: bipartite matchings (every pair an entry of the matrix);
* :func:`check_weighted_matching`: matchings of a :class:`~gpusim.types.graphs.WeightedGraph` (every
  pair an edge of the graph) or of a complete graph given as a dense weight matrix;
* :func:`check_b_matching`: b-matchings (every partner an edge, at most ``b(v)`` of them);
* :func:`blocking_pairs`: stable marriages (every pair ranks each other, capacities kept).

Each raises ``InvalidArgument`` naming the first problem, and the weighted ones return the weight
recomputed from the input's weights.  Result objects (:mod:`gpusim.types.results`) call them lazily.

A bipartite matching is *valid* when every matched pair is an edge and the row and column
sides agree.  It is *maximum* when a vertex cover of the same size exists (König's theorem):
:func:`konig_cover` builds one in O(m) from the matching alone, by a BFS along alternating paths
from the free columns, and :func:`verify_cover` checks it covers every edge.

Example
-------
>>> from gpusim.types.graphs import BipartiteGraph
>>> g = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 0])
>>> rows, cols = np.array([1, 0], np.int32), np.array([1, 0], np.int32)
>>> check_bipartite_matching(g, rows, cols)
2
>>> cover = konig_cover(g, rows, cols)
>>> verify_cover(g, cover), int(cover[0].sum() + cover[1].sum())
(True, 2)
"""

from __future__ import annotations

import reprlib

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from gpusim.errors import GpusimInternalError, InvalidArgument, InvalidArgumentType
from gpusim.types.graphs import BipartiteGraph, WeightedGraph
from gpusim.types.numeric import weight_sum

__all__ = ["blocking_pairs", "check_b_matching", "check_bipartite_matching", "check_weighted_matching",
           "check_mate", "checked_output", "edge_positions", "konig_cover", "match_array", "undominated_edges",
           "verify_cover"]


def checked_output(algorithm: str, source, validator, *args):
    """``validator(*args)`` on an algorithm's own output: an invalid output is a bug of
    ``algorithm``, so the validator's ``InvalidArgument`` becomes ``GpusimInternalError``
    naming ``algorithm``, ``source`` (the input) and the fault.

    >>> checked_output("hand", "a 2 x 2 matrix", match_array, "mate", [1, 0], 2, 2).tolist()
    [1, 0]
    """
    try:
        return validator(*args)
    except InvalidArgument as problem:
        raise GpusimInternalError(f"{algorithm} returned an invalid matching of {source}: {problem}") from None


def match_array(name: str, values, length: int, bound: int, what: str = "vertex") -> np.ndarray:
    """Check ``values`` is a 1-D integer array of ``length`` entries, each -1 (unmatched) or a
    ``what`` id below ``bound``; return it as int64.  Raises ``InvalidArgument`` naming ``name``.

    >>> match_array("mate", [1, 0, -1], 3, 3).tolist()
    [1, 0, -1]
    """
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentType(f"{name} must be a 1-D integer array, got {reprlib.repr(values)}: {exc}") from exc
    if arr.ndim != 1:
        raise InvalidArgument(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidArgumentType(
            f"{name} must hold integer {what} ids (-1 for unmatched), got dtype {arr.dtype}: {reprlib.repr(values)}"
        )
    if arr.shape[0] != length:
        raise InvalidArgument(f"{name} has {arr.shape[0]} entries, expected {length}")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero((arr < -1) | (arr >= bound))
    if bad.size:
        i = int(bad[0])
        raise InvalidArgument(f"{name}[{i}]={int(arr[i])} is neither -1 (unmatched) nor a {what} id in 0..{bound - 1}")
    return arr


def check_bipartite_matching(graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray) -> int:
    """Raise ``InvalidArgument`` unless the arrays are a valid matching of ``graph``; return its size.

    ``row_match[r]`` is the column matched to row ``r`` or -1; ``col_match[c]`` the row of column ``c``.
    """
    if not isinstance(graph, BipartiteGraph):
        raise InvalidArgumentType(f"graph must be a BipartiteGraph, got {type(graph).__name__}")
    row_match = np.asarray(row_match)
    col_match = np.asarray(col_match)
    if row_match.shape != (graph.n_rows,) or col_match.shape != (graph.n_cols,):
        raise InvalidArgument(
            f"row_match has shape {row_match.shape} and col_match {col_match.shape}; the graph is "
            f"{graph.n_rows} x {graph.n_cols}"
        )
    for name, match, bound in (("row_match", row_match, graph.n_cols), ("col_match", col_match, graph.n_rows)):
        bad = np.flatnonzero((match < -1) | (match >= bound))
        if bad.size:
            raise InvalidArgument(f"{name}[{bad[0]}] = {match[bad[0]]} is neither -1 nor a vertex id < {bound}")
    rows = np.flatnonzero(row_match >= 0)
    cols = row_match[rows]
    disagree = np.flatnonzero(col_match[cols] != rows)
    if disagree.size:
        r = rows[disagree[0]]
        raise InvalidArgument(f"row {r} is matched to column {row_match[r]}, whose match is {col_match[row_match[r]]}")
    if np.count_nonzero(col_match >= 0) != rows.size:
        c = np.flatnonzero(col_match >= 0)
        c = c[row_match[col_match[c]] != c][0]
        raise InvalidArgument(f"column {c} is matched to row {col_match[c]}, whose match is {row_match[col_match[c]]}")
    if rows.size:
        pattern = graph.to_scipy()
        present = np.asarray(pattern[rows, cols]).ravel()
        if not present.all():
            r = rows[np.flatnonzero(present == 0)[0]]
            raise InvalidArgument(f"row {r} is matched to column {row_match[r]}, but ({r}, {row_match[r]}) is no edge")
    return int(rows.size)


# ----------------------------------------------------------------------------------------------
# Weighted matchings and b-matchings (Hovland, MSc thesis 2020 and Naim's thesis (2017)): every pair an edge of the
# input


def edge_positions(graph: WeightedGraph, u, v) -> np.ndarray:
    """The CSR entry of each edge ``{u[k], v[k]}`` of ``graph`` (in ``u[k]``'s list), -1 where none.

    >>> g = WeightedGraph.from_edges([0, 1], [1, 2], [5.0, 6.0])
    >>> edge_positions(g, [1, 0], [2, 2]).tolist()
    [2, -1]
    """
    u = np.asarray(u, np.int64)
    v = np.asarray(v, np.int64)
    if u.size == 0 or graph.adj.size == 0:
        return np.full(u.size, -1, np.int64)
    return _find_in_sorted_lists(graph.adj, graph.ptr[u].astype(np.int64), graph.ptr[u + 1].astype(np.int64), v)


def _find_in_sorted_lists(values: np.ndarray, starts: np.ndarray, ends: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The position of ``wanted[k]`` in the sorted ``values[starts[k]:ends[k]]``, -1 where it is not there: a
    binary search in every list at once, O(len(wanted) log(longest list)) with no pass over ``values``."""
    lo, hi = starts.copy(), ends.copy()
    while True:
        active = np.flatnonzero(lo < hi)
        if active.size == 0:
            break
        mid = (lo[active] + hi[active]) // 2
        right = values[mid] < wanted[active]
        lo[active[right]] = mid[right] + 1
        hi[active[~right]] = mid[~right]
    found = lo < ends
    found[found] = values[lo[found]] == wanted[found]
    return np.where(found, lo, -1)


def check_mate(name: str, mate, n: int) -> np.ndarray:
    """A matching on ``n`` vertices as an int64 array: each entry -1 or a partner id, no vertex
    matched to itself, symmetric (``mate[mate[v]] == v``).  Raises ``InvalidArgument`` naming ``name``.

    >>> check_mate("mate", [1, 0, -1], 3).tolist()
    [1, 0, -1]
    >>> check_mate("mate", [1, 2, 1], 3)
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: mate is not symmetric: mate[0]=1 but mate[1]=2
    """
    arr = match_array(name, mate, n, n)
    loops = np.flatnonzero(arr == np.arange(n))
    if loops.size:
        i = int(loops[0])
        raise InvalidArgument(f"{name}[{i}]={i}: a vertex cannot be matched to itself")
    matched = np.flatnonzero(arr >= 0)
    back = np.flatnonzero(arr[arr[matched]] != matched)
    if back.size:
        i = int(matched[back[0]])
        j = int(arr[i])
        raise InvalidArgument(f"{name} is not symmetric: {name}[{i}]={j} but {name}[{j}]={int(arr[j])}")
    return arr


def check_weighted_matching(graph, mate) -> float:
    """Raise ``InvalidArgument`` unless ``mate`` is a matching of ``graph``; return its weight.

    ``graph`` is a :class:`~gpusim.types.graphs.WeightedGraph` (every pair must be one of its edges) or
    a dense symmetric ``n x n`` weight matrix, the complete graph of Hovland (MSc thesis 2020) (every pair of
    distinct vertices is an edge).  ``mate[v]`` is the partner of ``v`` or -1; it must be
    symmetric.  The weight is recomputed from the input's weights
    (:func:`~gpusim.types.numeric.weight_sum`).

    >>> g = WeightedGraph.from_edges([0, 1], [1, 2], [5.0, 6.0])
    >>> check_weighted_matching(g, [-1, 2, 1])
    6.0
    >>> check_weighted_matching(g, [2, -1, 0])
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: mate[0]=2: (0, 2) is not an edge of the input graph
    >>> check_weighted_matching(np.array([[0, 1], [1, 0]], float), [1, 0])
    1.0
    """
    dense = isinstance(graph, np.ndarray)
    if not dense and not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(f"graph must be a WeightedGraph or a dense weight matrix, got "
                                  f"{type(graph).__name__}")
    n = graph.shape[0] if dense else graph.n
    mate = check_mate("mate", mate, n)
    matched = np.flatnonzero(mate >= 0)
    first = matched[mate[matched] > matched]
    if dense:
        return weight_sum(graph[first, mate[first]])
    pos = edge_positions(graph, first, mate[first])
    missing = np.flatnonzero(pos < 0)
    if missing.size:
        v = int(first[missing[0]])
        raise InvalidArgument(f"mate[{v}]={int(mate[v])}: ({v}, {int(mate[v])}) is not an edge of the input graph")
    return weight_sum(graph.weights[pos])


def check_b_matching(graph: WeightedGraph, partners, b) -> float:
    """Raise ``InvalidArgument`` unless ``partners`` is a b-matching of ``graph``; return its weight.

    Row ``v`` of ``partners`` lists the partners of ``v`` (-1 padding, any order): each must be
    a neighbour of ``v`` in ``graph``, listed once, and list ``v`` back; at most ``b[v]`` of them
    (``b`` an integer or one per vertex).  The weight is recomputed from the graph's weights.

    >>> g = WeightedGraph.from_edges([0, 0], [1, 2], [1.0, 2.0])
    >>> check_b_matching(g, [[1, 2], [0, -1], [0, -1]], 2)
    3.0
    >>> check_b_matching(g, [[1, 2], [0, -1], [0, -1]], 1)
    Traceback (most recent call last):
    ...
    gpusim.errors.InvalidArgument: vertex 0 has 2 partners but b[0]=1
    """
    if not isinstance(graph, WeightedGraph):
        raise InvalidArgumentType(f"graph must be a WeightedGraph, got {type(graph).__name__}")
    n = graph.n
    table = np.asarray(partners)
    if table.size == 0:
        table = np.zeros((n, 0), np.int64)
    if table.ndim != 2 or table.shape[0] != n:
        raise InvalidArgument(f"partners has shape {table.shape}, expected ({n}, width)")
    flat = match_array("partners", table.ravel(), table.size, n)
    ends, slots = np.nonzero(flat.reshape(table.shape) >= 0)
    others = flat.reshape(table.shape)[ends, slots]
    if isinstance(b, (int, np.integer)) and not isinstance(b, (bool, np.bool_)):
        b = min(int(b), 2**62)  # any larger b allows every partner, as check_b caps it
    caps = np.broadcast_to(np.asarray(b, np.int64), (n,))
    counts = np.bincount(ends, minlength=n)
    over = np.flatnonzero(counts > caps)
    if over.size:
        v = int(over[0])
        raise InvalidArgument(f"vertex {v} has {int(counts[v])} partners but b[{v}]={int(caps[v])}")
    rows = np.sort(flat.reshape(table.shape), axis=1)   # each row's partners in increasing order, -1s first
    width = rows.shape[1]
    twice = np.flatnonzero(((rows[:, 1:] == rows[:, :-1]) & (rows[:, 1:] >= 0)).ravel())
    if twice.size:
        v, j = divmod(int(twice[0]), width - 1)
        raise InvalidArgument(f"vertex {v} lists partner {int(rows[v, j])} twice")
    pos = edge_positions(graph, ends, others)
    missing = np.flatnonzero(pos < 0)
    if missing.size:
        k = int(missing[0])
        raise InvalidArgument(f"vertex {int(ends[k])} lists partner {int(others[k])}, but "
                              f"({int(ends[k])}, {int(others[k])}) is not an edge of the input graph")
    lonely = np.flatnonzero(_find_in_sorted_lists(rows.ravel(), others * width, (others + 1) * width, ends) < 0)
    if lonely.size:
        k = int(lonely[0])
        raise InvalidArgument(f"vertex {int(ends[k])} lists partner {int(others[k])}, who does not list it back")
    return weight_sum(graph.weights[pos[ends < others]])


def konig_cover(graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A minimum vertex cover from a maximum matching: ``(row_in_cover, col_in_cover)`` boolean arrays.

    Let Z be the vertices reachable from the free columns by alternating paths (column to row
    by any edge, row to column by its matching edge).  The cover is the rows in Z plus the
    columns not in Z; its size equals the matching's exactly when the matching is maximum.
    """
    nr, nc = graph.n_rows, graph.n_cols
    row_match = np.asarray(row_match)
    # A directed graph on columns 0..nc-1 and rows nc..nc+nr-1, plus a super source nc+nr.
    col_ids, row_ids = _column_side_edges(graph)
    matched_rows = np.flatnonzero(row_match >= 0)
    free_cols = np.flatnonzero(np.asarray(col_match) < 0)
    source = nc + nr
    heads = np.concatenate([col_ids, nc + matched_rows, np.full(free_cols.size, source)])
    tails = np.concatenate([nc + row_ids, row_match[matched_rows], free_cols])
    directed = sp.csr_array((np.ones(heads.size, np.int8), (heads, tails)), shape=(source + 1, source + 1))
    reached = breadth_first_order(directed, source, directed=True, return_predecessors=False)
    in_z = np.zeros(source + 1, bool)
    in_z[reached] = True
    return in_z[nc:nc + nr].copy(), ~in_z[:nc]


def verify_cover(graph: BipartiteGraph, cover: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether every edge of ``graph`` has an endpoint in ``cover`` (rows, columns)."""
    row_cover, col_cover = cover
    col_ids, row_ids = _column_side_edges(graph)
    return bool(np.all(row_cover[row_ids] | col_cover[col_ids]))


def _column_side_edges(graph: BipartiteGraph) -> tuple[np.ndarray, np.ndarray]:
    """Every edge as (column, row) arrays, from the column-side CSR."""
    col_ids = np.repeat(np.arange(graph.n_cols), np.diff(graph.col_ptr))
    return col_ids, graph.col_adj.astype(np.int64)


def contained_in(keys: np.ndarray, table: np.ndarray, universe: int | None = None) -> np.ndarray:
    """``np.isin(keys, table)`` for non-negative integer keys below ``universe``: a byte per possible key
    where the keys are dense in it, else a sort of ``table`` and a binary search (NumPy 2's hash-based
    ``np.isin`` takes seconds per million pair keys ``a * n + b``; this a fraction of one).

    >>> contained_in(np.array([3, 5, 7]), np.array([7, 1, 3]), universe=8)
    array([ True, False,  True])
    >>> contained_in(np.array([3, 5, 7]), np.array([7, 1, 3]))
    array([ True, False,  True])
    """
    if table.size == 0:
        return np.zeros(keys.shape, bool)
    if universe is not None and universe <= 4 * (keys.size + table.size):
        present = np.zeros(universe, bool)
        present[table] = True
        return present[keys]
    ordered = np.sort(table)
    return ordered[np.minimum(np.searchsorted(ordered, keys), ordered.size - 1)] == keys


# ----------------------------------------------------------------------------------------------
# Stable marriage (Manne et al., CSC 2016): validity and blocking pairs, read from the lists as given


def blocking_pairs(instance, wife, capacities=None) -> list[tuple[int, int]]:
    """Every blocking pair of a (many-to-one) marriage, checked directly from the lists as given.

    ``wife[m]`` is the woman of man ``m`` or -1; woman ``w`` may take up to ``capacities[w]``
    men (default 1).  A pair ``(m, w)`` blocks when each ranks the other, ``m`` is single or
    ranks ``w`` above his wife, and ``w`` has a free place or ranks ``m`` above one of her
    husbands.  Ranks are read from the original lists (positions, non-mutual entries included),
    independently of :class:`gpusim.types.preferences.PreferenceInstance`'s precomputed arrays.

    Raises ``InvalidArgument`` when ``wife`` is not a valid marriage: a pair that does not rank
    each other, or a woman with more husbands than her capacity.

    >>> from gpusim.types.preferences import PreferenceInstance
    >>> inst = PreferenceInstance([[0, 1], [0]], [[1, 0], [0]])
    >>> blocking_pairs(inst, [0, -1]), blocking_pairs(inst, [1, 0])
    ([(1, 0)], [])
    >>> blocking_pairs(PreferenceInstance([], []), [])
    []
    """
    n_men, n_women = instance.n_men, instance.n_women
    wife = match_array("wife", wife, n_men, n_women, "woman")
    b = np.ones(n_women, np.int64) if capacities is None else np.asarray(capacities, np.int64)
    m_ptr, m_ids, w_ptr, w_ids = instance.given_csr()
    wife = wife.astype(np.result_type(m_ids, w_ids))  # the gathers below as wide as the lists' ids, no wider
    m_owner = np.repeat(np.arange(n_men, dtype=m_ids.dtype), np.diff(m_ptr))
    w_owner = np.repeat(np.arange(n_women, dtype=w_ids.dtype), np.diff(w_ptr))
    # An entry of a man's list is his wife, an entry of a woman's list one of her husbands, when wife[m] == w:
    # every test below is a gather over the lists, no search.
    is_his_wife = wife[m_owner] == m_ids
    is_her_husband = wife[w_ids] == w_owner
    married = np.flatnonzero(wife >= 0)
    ranked_by_him = np.zeros(n_men, bool)
    ranked_by_him[m_owner[is_his_wife]] = True
    ranked_by_her = np.zeros(n_men, bool)
    ranked_by_her[w_ids[is_her_husband]] = True
    unranked = married[~(ranked_by_him[married] & ranked_by_her[married])]
    if unranked.size:
        m = int(unranked[0])
        raise InvalidArgument(f"wife[{m}]={int(wife[m])}: man {m} and woman {int(wife[m])} do not rank each other")
    husbands = np.bincount(wife[married], minlength=n_women) if n_women else np.zeros(0, np.int64)
    over = np.flatnonzero(husbands > b)
    if over.size:
        w = int(over[0])
        raise InvalidArgument(f"woman {w} has {int(husbands[w])} husbands but capacity {int(b[w])}")
    # Each man's rank of his wife (past his list if single), each woman's rank of her worst husband (past her
    # list if she has room); a pair blocks when each ranks the other before those.
    m_pos = np.arange(m_ids.size, dtype=np.int64) - m_ptr[m_owner]
    wife_rank = np.full(n_men, np.iinfo(np.int64).max, np.int64)
    wife_rank[m_owner[is_his_wife]] = m_pos[is_his_wife]
    he_would = m_pos < wife_rank[m_owner]
    del m_pos, is_his_wife
    w_pos = np.arange(w_ids.size, dtype=np.int64) - w_ptr[w_owner]
    worst = np.full(n_women, -1, np.int64)
    np.maximum.at(worst, w_owner[is_her_husband], w_pos[is_her_husband])
    worst[husbands < b] = np.iinfo(np.int64).max
    she_would = w_pos < worst[w_owner]
    del w_pos, is_her_husband
    proposals = m_owner[he_would].astype(np.int64) * n_women + m_ids[he_would]
    welcome = w_ids[she_would].astype(np.int64) * n_women + w_owner[she_would]
    blocking = proposals[contained_in(proposals, welcome, universe=n_men * n_women)]
    return [(int(key // n_women), int(key % n_women)) for key in blocking]


def undominated_edges(graph, mate=None, partners=None, b=None) -> list[tuple[int, int]]:
    """The edges of ``graph`` that no matched edge at either end dominates: the certificate of a
    half-approximate weighted matching (empty for a locally dominant one).

    An edge ``{u, v}`` outside the matching is dominated when ``u`` (or ``v``) is matched by an edge at
    least as heavy — for a b-matching, when all ``min(b(u), degree(u))`` slots of ``u`` hold partners at
    least as heavy.  When every edge is dominated, each edge of a maximum-weight matching can be charged
    to a matched edge at least as heavy, at most two to each: the matching weighs at least half the
    maximum (Preis 1999; Naim et al. (HiPC 2015) §2).  ``graph`` is a :class:`WeightedGraph` or a dense
    symmetric weight matrix (a complete graph); the matching is ``mate`` or, for a b-matching,
    ``partners`` (one row a vertex, -1 padded) with ``b``.  The matching must be valid.

    >>> g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    >>> undominated_edges(g, mate=np.array([-1, 2, 1, -1]))
    []
    >>> undominated_edges(g, mate=np.array([1, 0, 3, 2]))
    [(1, 2)]
    """
    if isinstance(graph, WeightedGraph):
        n, (u, v, w) = graph.n, graph.edges()
        u, v = u.astype(np.int64), v.astype(np.int64)

        def weight(x, y):
            return graph.weights[edge_positions(graph, x, y)]
    else:
        dense = np.asarray(graph, np.float64)
        n = dense.shape[0]
        u, v = np.triu_indices(n, 1)
        w = dense[u, v]

        def weight(x, y):
            return dense[x, y]
    rows = np.asarray(mate if partners is None else partners, np.int64)
    rows = rows[:, None] if rows.ndim == 1 else rows
    owner, slot = np.nonzero(rows >= 0)
    partner = rows[owner, slot]
    held_weight = weight(owner, partner)
    lightest = np.full(n, np.inf)
    np.minimum.at(lightest, owner, held_weight)
    slots = 1 if partners is None else np.minimum(np.broadcast_to(np.asarray(b, np.int64), (n,)),
                                                  np.bincount(np.r_[u, v], minlength=n))
    full = np.bincount(owner, minlength=n) >= np.maximum(slots, 1)
    held = np.where(full, lightest, -np.inf)
    in_matching = contained_in(u * n + v, owner * n + partner)
    undominated = ~in_matching & (np.maximum(held[u], held[v]) < w)
    if partners is not None:  # an edge at a vertex with b = 0 is in no b-matching, the maximum's neither
        capacity = np.broadcast_to(np.asarray(b, np.int64), (n,))
        undominated &= (capacity[u] > 0) & (capacity[v] > 0)
    return [(int(a), int(c)) for a, c in zip(u[undominated], v[undominated], strict=True)]
