"""Seeded generators of benchmark bipartite graphs, after the papers' test families.

Deveci et al. (Euro-Par 2013, ICPP 2013) benchmark on SuiteSparse matrices and on their random row and column
permutations (the *RCP* sets); large instances are not stored in this repository, so these
generators build them: uniform random patterns, R-MAT / Kronecker power-law graphs (Graph500's
``kron_g500``), road-like 2-D grids and road networks (junctions joined by long chains), random geometric
graphs, bipartite graphs with heavy-tailed degrees on both sides (Chung-Lu), and the RCP permutation of any
graph.  Every generator is vectorised NumPy (no Python loop over edges), draws from
``numpy.random.default_rng(seed)`` only, returns a :class:`~gpusim.types.graphs.BipartiteGraph` with no
duplicate edge, and builds 10^7 edges in a few seconds.  The same arguments give the same graph.

Square generators (``rmat``, ``grid``, ``random_geometric``) describe a graph on one vertex set
``0..n-1`` as the pattern of its ``n x n`` adjacency matrix: row ``i`` and column ``j`` are
joined when vertices ``i`` and ``j`` are, as a sparse-matrix collection stores a graph.

Bad arguments raise :class:`~gpusim.errors.InvalidArgument` (or
:class:`~gpusim.errors.InvalidArgumentType`) naming the argument and showing its value.

Examples
--------
>>> from gpusim.types.generators import grid, rmat, uniform_random
>>> uniform_random(3, 4, 5, seed=0)
BipartiteGraph(n_rows=3, n_cols=4, n_edges=5)
>>> grid(2, 3).shape
(6, 6)
>>> rmat(4, 8, seed=1).shape
(16, 16)
"""

from __future__ import annotations

import numpy as np

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.arguments import INT32_MAX, check_bool, check_edge_total, check_int, check_real, check_seed
from gpusim.types.graphs import BipartiteGraph

__all__ = ["grid", "power_law_bipartite", "random_geometric", "random_permutation", "rmat", "road_network",
           "sorted_unique", "uniform_random"]

_RMAT_CHUNK = 1 << 16  # edges per batch of R-MAT draws (part of the seeded stream: do not change)

def sorted_unique(keys: np.ndarray) -> np.ndarray:
    """Sorted distinct values: ``np.unique(keys)``, as a sort and a mask (NumPy 2.4's ``np.unique`` hashes, 16 times
    slower on 10^7 int64 keys).

    >>> sorted_unique(np.array([5, 1, 5, 3])).tolist()
    [1, 3, 5]
    """
    keys = np.sort(keys)
    if keys.size:
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    return keys


def _from_keys(keys: np.ndarray, n_rows: int, n_cols: int) -> BipartiteGraph:
    """A graph from sorted distinct edge keys ``row * n_cols + col``."""
    rows, cols = np.divmod(keys, max(n_cols, 1))
    return BipartiteGraph._from_pairs(rows, cols, n_rows, n_cols, duplicates="none")


def _square_pattern(u: np.ndarray, v: np.ndarray, n: int, diagonal: bool) -> BipartiteGraph:
    """The adjacency pattern of an undirected graph on ``n`` vertices from its edges ``u < v``."""
    u = u.astype(np.int64, copy=False)
    v = v.astype(np.int64, copy=False)
    parts = [u * n + v, v * n + u]
    if diagonal:
        ids = np.arange(n, dtype=np.int64)
        parts.append(ids * n + ids)
    keys = sorted_unique(np.concatenate(parts))
    check_edge_total(int(keys.shape[0]), "edges of this graph")
    return _from_keys(keys, n, n)


# ----------------------------------------------------------------------------------------------
# Generators


def uniform_random(n_rows: int, n_cols: int, n_edges: int, seed: int) -> BipartiteGraph:
    """Exactly ``n_edges`` distinct (row, column) pairs, every such set equally likely.

    Parameters
    ----------
    n_rows, n_cols : int
        Side sizes, 0..2**31 - 1.
    n_edges : int
        Number of edges, at most ``n_rows * n_cols`` (and 2**31 - 1).
    seed : int
        Non-negative; the same seed gives the same graph.

    Returns
    -------
    BipartiteGraph

    Raises
    ------
    InvalidArgumentType
        A non-integer argument.
    InvalidArgument
        A negative argument, or more edges than pairs.

    Notes
    -----
    Draws keys ``row * n_cols + col`` with replacement in batches, keeps the distinct ones, and
    drops a uniformly random surplus, so the edge set is a uniform ``n_edges``-subset.  When more
    than half of all pairs are wanted it draws the pairs to *leave out* instead.  O(m log m) time.

    Examples
    --------
    >>> g = uniform_random(100, 50, 1000, seed=3)
    >>> g.shape, g.n_edges
    ((100, 50), 1000)
    >>> uniform_random(100, 50, 1000, seed=3) == g
    True
    >>> uniform_random(0, 0, 0, seed=0)
    BipartiteGraph(n_rows=0, n_cols=0, n_edges=0)
    """
    n_rows = check_int("n_rows", n_rows)
    n_cols = check_int("n_cols", n_cols)
    n_edges = check_int("n_edges", n_edges)
    seed = check_seed(seed)
    total = n_rows * n_cols
    if n_edges > total:
        raise InvalidArgument(
            f"n_edges={n_edges} exceeds n_rows * n_cols = {n_rows} * {n_cols} = {total}, the number of distinct pairs"
        )
    rng = np.random.default_rng(seed)
    complement = n_edges > total // 2
    want = total - n_edges if complement else n_edges
    keys = np.zeros(0, np.int64)
    while keys.shape[0] < want:
        missing = want - keys.shape[0]
        draw = rng.integers(0, total, size=missing + missing // 16 + 16, dtype=np.int64)
        keys = sorted_unique(np.concatenate((keys, draw)))
    if keys.shape[0] > want:
        keys = np.sort(keys[rng.permutation(keys.shape[0])[:want]])
    if complement:
        keep = np.ones(total, bool)
        keep[keys] = False
        keys = np.flatnonzero(keep).astype(np.int64)
    return _from_keys(keys, n_rows, n_cols)


def rmat(scale: int, edge_factor: int, seed: int, a: float = 0.57, b: float = 0.19, c: float = 0.19
         ) -> BipartiteGraph:
    """An R-MAT / Kronecker power-law graph on ``2**scale`` vertices, as Graph500's ``kron_g500``.

    ``edge_factor * 2**scale`` edges are drawn; each picks, at each of ``scale`` bit levels, one
    quadrant of the adjacency matrix: top-left with probability ``a``, top-right ``b``,
    bottom-left ``c``, bottom-right ``d = 1 - a - b - c``.  As in Graph500 the vertex ids are then
    renumbered by one random permutation (the same for rows and columns, so the pattern is still a
    graph's adjacency matrix, just not clustered at low ids).  Repeated edges are merged, so the
    graph has at most ``edge_factor * 2**scale`` edges; edges ``(i, i)`` are kept.  The pattern is
    not symmetric: edge ``(i, j)`` does not imply ``(j, i)``.

    Parameters
    ----------
    scale : int
        ``log2`` of the number of rows (and columns), 0..30.
    edge_factor : int
        Edges drawn per vertex (Graph500 uses 16), non-negative.
    seed : int
        Non-negative; the same seed gives the same graph.
    a, b, c : float
        Quadrant probabilities, each in [0, 1], ``a + b + c <= 1``; Graph500's by default.

    Returns
    -------
    BipartiteGraph
        Square, ``2**scale`` rows and columns.

    Raises
    ------
    InvalidArgumentType
        A non-integer ``scale``, ``edge_factor`` or ``seed``; a non-real probability.
    InvalidArgument
        Out-of-range values, ``a + b + c > 1``, or more than 2**31 - 1 edges drawn.

    Notes
    -----
    One uniform float32 draw per edge and level, in batches of 65536 edges:
    ``scale * edge_factor * 2**scale`` draws, O(m scale) time and O(m) memory; scale 20 with
    edge factor 16 (16.8 M edges) takes about 5 s.

    References
    ----------
    D. Chakrabarti, Y. Zhan and C. Faloutsos, "R-MAT: a recursive model for graph mining", SDM
    2004; the Graph500 benchmark specification, ``kron_g500`` generator.

    Examples
    --------
    >>> g = rmat(10, 16, seed=0)
    >>> g.shape, g.n_edges <= 16 * 1024
    ((1024, 1024), True)
    >>> deg = np.diff(g.row_ptr)
    >>> bool(deg.max() > 8 * deg.mean())    # heavy-tailed degrees
    True
    >>> rmat(0, 0, seed=0)
    BipartiteGraph(n_rows=1, n_cols=1, n_edges=0)
    """
    scale = check_int("scale", scale, 0, 30)
    edge_factor = check_int("edge_factor", edge_factor)
    seed = check_seed(seed)
    a = check_real("a", a, 0.0, 1.0)
    b = check_real("b", b, 0.0, 1.0)
    c = check_real("c", c, 0.0, 1.0)
    if a + b + c > 1.0 + 1e-12:
        raise InvalidArgument(f"a + b + c = {a} + {b} + {c} = {a + b + c} exceeds 1: d = 1 - a - b - c is negative")
    n = 1 << scale
    m = edge_factor * n
    check_edge_total(m, f"edges (edge_factor * 2**scale = {edge_factor} * {n})")
    rng = np.random.default_rng(seed)
    t_ab, t_abc = np.float32(a + b), np.float32(a + b + c)
    t_a = np.float32(a)
    # chunks of edges, all levels at once: draws u[level, edge], quadrant from thresholds on u
    weights = (np.int32(1) << np.arange(scale, dtype=np.int32))[:, None]
    rows = np.empty(m, np.int32)
    cols = np.empty(m, np.int32)
    for start in range(0, m, _RMAT_CHUNK):
        stop = min(m, start + _RMAT_CHUNK)
        u = rng.random((scale, stop - start), dtype=np.float32)
        low = u >= t_ab  # bottom half: quadrant c or d
        right = np.where(low, u >= t_abc, u >= t_a)  # right half: quadrant b or d
        rows[start:stop] = (low * weights).sum(axis=0, dtype=np.int32)
        cols[start:stop] = (right * weights).sum(axis=0, dtype=np.int32)
    perm = rng.permutation(n).astype(np.int64)
    keys = sorted_unique(perm[rows] * n + perm[cols])
    return _from_keys(keys, n, n)


def grid(rows: int, cols: int, diagonal: bool = True) -> BipartiteGraph:
    """A road-like 2-D grid: the pattern of the ``rows x cols`` grid graph's adjacency matrix.

    Grid point ``(i, j)`` is vertex ``i * cols + j``; it is joined to its 4 neighbours
    ``(i +- 1, j)`` and ``(i, j +- 1)`` that exist.  With ``diagonal`` (the default) every vertex is
    also joined to itself, as in the 5-point-stencil matrices of a discretised PDE: the pattern is
    then structurally nonsingular (the identity is a perfect matching) and an easy start for the
    cheap matching; apply :func:`random_permutation` to make it hard, as the papers' RCP sets do.
    Without the diagonal, the grid graph being bipartite, the pattern is two copies of the grid,
    and its maximum matching is ``N - (N mod 2)`` for ``N = rows * cols``: perfect exactly when
    ``N`` is even.

    Parameters
    ----------
    rows, cols : int
        Grid dimensions, non-negative, ``rows * cols <= 2**31 - 1``.
    diagonal : bool
        Join every vertex to itself (default True).

    Returns
    -------
    BipartiteGraph
        Square, ``rows * cols`` rows and columns, symmetric pattern, ``4 N - 2 (rows + cols)``
        edges plus ``N`` diagonal ones (for ``rows, cols >= 1``).

    Raises
    ------
    InvalidArgumentType
        A non-integer size or a non-bool ``diagonal``.
    InvalidArgument
        A negative size, or more than 2**31 - 1 vertices or edges.

    Examples
    --------
    >>> g = grid(2, 2)
    >>> g.row_adj.tolist()
    [0, 1, 2, 0, 1, 3, 0, 2, 3, 1, 2, 3]
    >>> grid(3, 3, diagonal=False).n_edges
    24
    >>> grid(0, 5)
    BipartiteGraph(n_rows=0, n_cols=0, n_edges=0)
    """
    rows = check_int("rows", rows)
    cols = check_int("cols", cols)
    diagonal = check_bool("diagonal", diagonal)
    n = rows * cols
    if n > INT32_MAX:
        raise InvalidArgument(f"rows * cols = {rows} * {cols} = {n} exceeds {INT32_MAX}: vertex ids are int32")
    ids = np.arange(n, dtype=np.int64).reshape(rows, cols)
    u = np.concatenate((ids[:, :-1].ravel(), ids[:-1, :].ravel()))
    v = np.concatenate((ids[:, 1:].ravel(), ids[1:, :].ravel()))
    return _square_pattern(u, v, n, diagonal)


def road_network(rows: int, cols: int, chain: int, diagonal: bool = True) -> BipartiteGraph:
    """A road-like network: a ``rows x cols`` planar mesh of junctions whose every mesh edge is a road of ``chain``
    vertices of degree 2, as the long chains of real road networks (ECL-MM's and the matching papers' road inputs).

    Junction ``(i, j)`` is vertex ``i * cols + j``; the road from a junction to its right or lower neighbour adds
    ``chain`` vertices, numbered after the junctions, road after road.  The graph is returned as the pattern of its
    adjacency matrix, with the diagonal when ``diagonal`` is true (as :func:`grid`; apply :func:`random_permutation`
    for the papers' RCP instance).  Without the diagonal it is bipartite exactly when ``chain`` is odd.

    Parameters
    ----------
    rows, cols : int
        Junctions per side, non-negative.
    chain : int
        Vertices on each road between two junctions, non-negative (0: :func:`grid`).
    diagonal : bool
        Join every vertex to itself (default True).

    Returns
    -------
    BipartiteGraph
        Square: ``N + chain * R`` rows and columns for ``N = rows * cols`` junctions and
        ``R = rows (cols - 1) + (rows - 1) cols`` roads, ``2 (chain + 1) R`` off-diagonal entries.

    Raises
    ------
    InvalidArgumentType
        A non-integer size or ``chain``, a non-bool ``diagonal``.
    InvalidArgument
        A negative value, or more than 2**31 - 1 vertices or edges.

    Examples
    --------
    >>> g = road_network(2, 2, 3, diagonal=False)
    >>> g.shape, g.n_edges
    ((16, 16), 32)
    >>> road_network(3, 3, 0).n_edges == grid(3, 3).n_edges
    True
    """
    rows = check_int("rows", rows)
    cols = check_int("cols", cols)
    chain = check_int("chain", chain)
    diagonal = check_bool("diagonal", diagonal)
    junctions = rows * cols
    roads = rows * max(cols - 1, 0) + max(rows - 1, 0) * cols
    n = junctions + chain * roads
    if n > INT32_MAX:
        raise InvalidArgument(f"road_network({rows}, {cols}, {chain}) has {n} vertices, more than {INT32_MAX}: "
                              f"vertex ids are int32")
    ids = np.arange(junctions, dtype=np.int64).reshape(rows, cols)
    start = np.concatenate((ids[:, :-1].ravel(), ids[:-1, :].ravel()))  # each road's two junctions
    end = np.concatenate((ids[:, 1:].ravel(), ids[1:, :].ravel()))
    # road r: start[r] - inner[r, 0] - ... - inner[r, chain - 1] - end[r]
    inner = junctions + np.arange(chain * start.size, dtype=np.int64).reshape(start.size, chain)
    path = np.concatenate((start[:, None], inner, end[:, None]), axis=1)
    u, v = path[:, :-1].ravel(), path[:, 1:].ravel()
    check_edge_total(2 * u.size + (n if diagonal else 0), f"adjacency entries of road_network({rows}, {cols}, {chain})")
    return _square_pattern(np.minimum(u, v), np.maximum(u, v), n, diagonal)


def power_law_bipartite(n_rows: int, n_cols: int, n_edges: int, exponent: float, seed: int) -> BipartiteGraph:
    """A bipartite graph with heavy-tailed degrees on both sides (Chung-Lu): each of ``n_edges`` draws picks a row
    with probability proportional to ``(i + 1) ** (-1 / (exponent - 1))`` and a column likewise, so that both
    degree sequences follow a power law of that exponent; repeated pairs are merged.  Rows and columns are then
    renumbered at random, so that the hubs are not the low ids.

    Parameters
    ----------
    n_rows, n_cols : int
        Vertices on each side, non-negative (positive when ``n_edges`` is).
    n_edges : int
        Pairs drawn, non-negative; the graph has at most this many edges.
    exponent : float
        The degree distribution's exponent, in (2, 10]; smaller is heavier-tailed.
    seed : int
        Non-negative; the same seed gives the same graph.

    Returns
    -------
    BipartiteGraph

    Raises
    ------
    InvalidArgumentType
        A non-integer size or seed, a non-real ``exponent``.
    InvalidArgument
        Out-of-range values, or edges without vertices to join.

    References
    ----------
    F. Chung and L. Lu, "Connected components in random graphs with given expected degree sequences", Annals of
    Combinatorics 6 (2002).

    Examples
    --------
    >>> g = power_law_bipartite(2000, 1000, 20000, 2.2, seed=0)
    >>> g.shape, g.n_edges <= 20000
    ((2000, 1000), True)
    >>> rows, cols = np.diff(g.row_ptr), np.diff(g.col_ptr)
    >>> bool(rows.max() > 20 * rows.mean() and cols.max() > 20 * cols.mean())   # hubs on both sides
    True
    """
    n_rows = check_int("n_rows", n_rows)
    n_cols = check_int("n_cols", n_cols)
    n_edges = check_int("n_edges", n_edges)
    exponent = check_real("exponent", exponent, 2.0, 10.0)
    seed = check_seed(seed)
    if exponent <= 2.0:
        raise InvalidArgument(f"exponent={exponent} must be above 2 (the expected degrees diverge at 2)")
    if n_edges and not (n_rows and n_cols):
        raise InvalidArgument(f"n_edges={n_edges} edges need vertices on both sides, got n_rows={n_rows}, "
                              f"n_cols={n_cols}")
    check_edge_total(n_edges, "edges drawn (n_edges)")
    rng = np.random.default_rng(seed)

    def side(n: int) -> np.ndarray:
        weights = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (exponent - 1.0))
        cumulative = np.cumsum(weights)
        picks = np.searchsorted(cumulative, rng.random(n_edges) * cumulative[-1], side="right")
        return rng.permutation(n).astype(np.int64)[np.minimum(picks, n - 1)]

    if not n_edges:
        return _from_keys(np.zeros(0, np.int64), n_rows, n_cols)
    rows, cols = side(n_rows), side(n_cols)
    return _from_keys(sorted_unique(rows * n_cols + cols), n_rows, n_cols)


def random_geometric(n: int, radius: float, seed: int, diagonal: bool = True) -> BipartiteGraph:
    """A random geometric graph: ``n`` uniform points in the unit square, joined within ``radius``.

    Points ``i`` and ``j`` are joined when their Euclidean distance is at most ``radius``; the
    graph is returned as the pattern of its ``n x n`` adjacency matrix, with the diagonal (every
    point joined to itself) when ``diagonal`` is true, so that a perfect matching exists.  Points
    are drawn first, ``rng.random((n, 2))``.  Isolated points make the pattern without diagonal
    structurally singular.  The expected degree is about ``n * pi * radius**2`` (less near the
    border).

    Parameters
    ----------
    n : int
        Number of points, non-negative.
    radius : float
        Connection distance, finite, in [0, 2].
    seed : int
        Non-negative; the same seed gives the same graph.
    diagonal : bool
        Join every point to itself (default True).

    Returns
    -------
    BipartiteGraph
        Square, ``n`` rows and columns, symmetric pattern.

    Raises
    ------
    InvalidArgumentType
        A non-integer ``n`` or ``seed``, a non-real ``radius``, a non-bool ``diagonal``.
    InvalidArgument
        Out-of-range values, or more than 2**31 - 1 edges.

    Notes
    -----
    ``scipy.spatial.cKDTree.query_pairs`` with NumPy output finds the pairs, O(n log n + m).

    Examples
    --------
    >>> g = random_geometric(200, 0.1, seed=0)
    >>> g.shape, bool((g.to_scipy() != g.to_scipy().T).nnz == 0)
    ((200, 200), True)
    >>> random_geometric(0, 0.5, seed=0)
    BipartiteGraph(n_rows=0, n_cols=0, n_edges=0)
    """
    from scipy.spatial import cKDTree

    n = check_int("n", n)
    radius = check_real("radius", radius, 0.0, 2.0)
    seed = check_seed(seed)
    diagonal = check_bool("diagonal", diagonal)
    rng = np.random.default_rng(seed)
    points = rng.random((n, 2))
    if n > 1:
        pairs = cKDTree(points).query_pairs(radius, output_type="ndarray")
    else:
        pairs = np.zeros((0, 2), np.int64)
    check_edge_total(2 * pairs.shape[0] + (n if diagonal else 0),
                     f"adjacency entries of random_geometric(n={n}, radius={radius})")
    return _square_pattern(pairs[:, 0], pairs[:, 1], n, diagonal)


def random_permutation(graph: BipartiteGraph, seed: int) -> BipartiteGraph:
    """The papers' RCP instance of ``graph``: rows and columns renumbered at random.

    Deveci et al. (Euro-Par 2013) (§4) and Deveci et al. (ICPP 2013) (§IV) report every matrix twice, as given and
    randomly permuted
    by rows and columns (RCP), which defeats the ordering that favours the cheap matching and the
    augmenting-path searches.  This is :meth:`BipartiteGraph.permuted`: row ``r`` becomes
    ``p[r]`` and column ``c`` becomes ``q[c]`` with ``rng = numpy.random.default_rng(seed)``,
    ``p = rng.permutation(n_rows)``, then ``q = rng.permutation(n_cols)``.

    Parameters
    ----------
    graph : BipartiteGraph
    seed : int
        Non-negative; the same seed gives the same permutation.

    Returns
    -------
    BipartiteGraph
        Same shape, same number of edges, same maximum matching size.

    Raises
    ------
    InvalidArgumentType
        ``graph`` is not a BipartiteGraph, or ``seed`` is not an integer.
    InvalidArgument
        A negative ``seed``.

    Examples
    --------
    >>> g = grid(4, 4)
    >>> h = random_permutation(g, seed=1)
    >>> h.shape == g.shape and h.n_edges == g.n_edges and h != g
    True
    >>> random_permutation(grid(0, 0), seed=0).n_edges
    0
    """
    if not isinstance(graph, BipartiteGraph):
        raise InvalidArgumentType(
            f"graph must be a gpusim.types.graphs.BipartiteGraph, got graph of type {type(graph).__name__}"
        )
    seed = check_seed(seed)
    return graph.permuted(seed)
