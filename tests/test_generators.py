"""Benchmark graph generators: sizes, seeded determinism, no duplicate edges, ranges, argument checks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import maximum_bipartite_matching

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.types.generators import (
    grid,
    power_law_bipartite,
    random_geometric,
    random_permutation,
    rmat,
    road_network,
    uniform_random,
)
from gpusim.types.graphs import BipartiteGraph


def assert_well_formed(graph: BipartiteGraph) -> None:
    """Ids in range, lists strictly increasing (so no duplicate edge), both CSR sides the same edge set."""
    assert isinstance(graph, BipartiteGraph)
    for ptr, adj, n_src, n_dst in ((graph.row_ptr, graph.row_adj, graph.n_rows, graph.n_cols),
                                   (graph.col_ptr, graph.col_adj, graph.n_cols, graph.n_rows)):
        assert ptr.dtype == np.int32 and adj.dtype == np.int32
        assert ptr.shape == (n_src + 1,) and ptr[0] == 0 and ptr[-1] == adj.shape[0]
        assert np.all(np.diff(ptr) >= 0)
        assert np.all((adj >= 0) & (adj < n_dst))
        src = np.repeat(np.arange(n_src, dtype=np.int64), np.diff(ptr))
        keys = src * max(n_dst, 1) + adj
        assert np.all(np.diff(keys) > 0), "unsorted or duplicate edge"
    rows, cols = graph.edges()
    t_cols = np.repeat(np.arange(graph.n_cols, dtype=np.int64), np.diff(graph.col_ptr))
    assert np.array_equal(np.sort(rows.astype(np.int64) * max(graph.n_cols, 1) + cols),
                          np.sort(graph.col_adj.astype(np.int64) * max(graph.n_cols, 1) + t_cols))


def matching_size(graph: BipartiteGraph) -> int:
    if graph.n_rows == 0 or graph.n_cols == 0:
        return 0
    return int(np.count_nonzero(maximum_bipartite_matching(graph.to_scipy(), perm_type="column") >= 0))


def is_symmetric(graph: BipartiteGraph) -> bool:
    a = graph.to_scipy()
    return (a != a.T).nnz == 0


# Each seeded generator with small arguments, by name, as a function of the seed
SEEDED = {
    "uniform_random": lambda seed: uniform_random(40, 30, 300, seed=seed),
    "uniform_random_dense": lambda seed: uniform_random(20, 10, 170, seed=seed),
    "rmat": lambda seed: rmat(8, 8, seed=seed),
    "rmat_uniform": lambda seed: rmat(6, 4, seed=seed, a=0.25, b=0.25, c=0.25),
    "random_geometric": lambda seed: random_geometric(300, 0.08, seed=seed),
    "random_permutation": lambda seed: random_permutation(grid(7, 9), seed=seed),
    "power_law_bipartite": lambda seed: power_law_bipartite(500, 300, 3000, 2.3, seed=seed),
    "road_network_rcp": lambda seed: random_permutation(road_network(4, 5, 3), seed=seed),
}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_seeded_generators_are_deterministic_and_well_formed(name):
    make = SEEDED[name]
    first, again, other = make(11), make(11), make(12)
    assert_well_formed(first)
    assert_well_formed(other)
    assert first == again
    assert first != other


@pytest.mark.parametrize(("n_rows", "n_cols", "n_edges"),
                         [(0, 0, 0), (0, 7, 0), (5, 0, 0), (1, 1, 1), (30, 20, 0), (30, 20, 1), (30, 20, 299),
                          (30, 20, 301), (30, 20, 600), (1000, 1000, 5000), (3, 100000, 299999)])
def test_uniform_random_sizes(n_rows, n_cols, n_edges):
    graph = uniform_random(n_rows, n_cols, n_edges, seed=1)
    assert graph.shape == (n_rows, n_cols) and graph.n_edges == n_edges
    assert_well_formed(graph)


def test_uniform_random_is_roughly_uniform():
    counts = np.zeros(12, np.int64)
    for seed in range(300):
        rows, cols = uniform_random(3, 4, 6, seed=seed).edges()
        counts += np.bincount(rows * 4 + cols, minlength=12)
    # each pair is present with probability 1/2: 150 expected, sd about 8.7
    assert np.all(np.abs(counts - 150) < 50), counts


@pytest.mark.parametrize(("scale", "edge_factor"), [(0, 0), (0, 5), (1, 3), (5, 16), (10, 8)])
def test_rmat_sizes(scale, edge_factor):
    graph = rmat(scale, edge_factor, seed=3)
    n = 2**scale
    assert graph.shape == (n, n)
    assert 0 < graph.n_edges <= edge_factor * n or edge_factor == 0 and graph.n_edges == 0
    assert_well_formed(graph)


def test_rmat_quadrant_probabilities():
    # all mass in one quadrant: every draw is the same edge
    for a, b, c in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)):
        assert rmat(6, 4, seed=0, a=a, b=b, c=c).n_edges == 1
    # a skewed R-MAT is heavy-tailed, a uniform one is not
    skewed = np.diff(rmat(12, 16, seed=0).row_ptr)
    flat = np.diff(rmat(12, 16, seed=0, a=0.25, b=0.25, c=0.25).row_ptr)
    assert skewed.max() > 10 * skewed.mean() and flat.max() < 4 * flat.mean()
    # R-MAT leaves many vertices without an edge; a uniform pattern of the same density almost none
    assert np.count_nonzero(skewed == 0) > 10 * max(np.count_nonzero(flat == 0), 1)


@pytest.mark.parametrize(("rows", "cols"), [(0, 0), (0, 4), (4, 0), (1, 1), (1, 6), (1, 7), (2, 2), (3, 3),
                                            (5, 8), (7, 9)])
def test_grid_structure_and_matching(rows, cols):
    n = rows * cols
    for diagonal in (True, False):
        graph = grid(rows, cols, diagonal=diagonal)
        assert graph.shape == (n, n)
        assert_well_formed(graph)
        assert is_symmetric(graph)
        lattice = 2 * (rows * (cols - 1) + (rows - 1) * cols) if n else 0
        assert graph.n_edges == lattice + (n if diagonal else 0)
        assert np.diff(graph.row_ptr).max(initial=0) <= 4 + diagonal
        assert matching_size(graph) == (n if diagonal else n - n % 2)


def test_grid_neighbours():
    graph = grid(3, 4, diagonal=False)
    # vertex (1, 1) = 5 sees (0, 1) = 1, (1, 0) = 4, (1, 2) = 6, (2, 1) = 9
    assert graph.row_adj[graph.row_ptr[5]:graph.row_ptr[6]].tolist() == [1, 4, 6, 9]
    assert graph.row_adj[graph.row_ptr[0]:graph.row_ptr[1]].tolist() == [1, 4]


@pytest.mark.parametrize(("n", "radius"), [(0, 0.1), (1, 0.5), (2, 2.0), (50, 0.0), (200, 0.05), (400, 0.2)])
def test_random_geometric_matches_brute_force(n, radius):
    for diagonal in (True, False):
        graph = random_geometric(n, radius, seed=5, diagonal=diagonal)
        assert graph.shape == (n, n)
        assert_well_formed(graph)
        assert is_symmetric(graph)
        points = np.random.default_rng(5).random((n, 2))
        near = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1) <= radius
        if not diagonal:
            np.fill_diagonal(near, False)
        want_rows, want_cols = np.nonzero(near)
        rows, cols = graph.edges()
        assert np.array_equal(rows, want_rows) and np.array_equal(cols, want_cols)


@pytest.mark.parametrize(("rows", "cols", "chain"), [(0, 0, 3), (1, 1, 5), (1, 4, 2), (3, 3, 0), (4, 5, 3), (6, 2, 4)])
def test_road_network_is_junctions_joined_by_chains(rows, cols, chain):
    import networkx as nx

    graph = road_network(rows, cols, chain, diagonal=False)
    assert_well_formed(graph)
    assert is_symmetric(graph)
    expected = nx.grid_2d_graph(rows, cols)  # the mesh, each edge subdivided into a path of chain + 1 edges
    for u, v in list(expected.edges()):
        expected.remove_edge(u, v)
        nx.add_path(expected, [u, *((u, v, k) for k in range(chain)), v])
    assert graph.n_rows == expected.number_of_nodes() and graph.n_edges == 2 * expected.number_of_edges()
    degrees = np.diff(graph.row_ptr)
    assert sorted(degrees.tolist()) == sorted(d for _, d in expected.degree())
    built = nx.from_scipy_sparse_array(graph.to_scipy())
    assert nx.is_isomorphic(built, expected) if expected.number_of_nodes() <= 40 else True
    with_diagonal = road_network(rows, cols, chain)
    assert with_diagonal.n_edges == graph.n_edges + graph.n_rows  # the diagonal: a perfect matching exists
    assert matching_size(with_diagonal) == graph.n_rows


def test_power_law_bipartite_has_hubs_on_both_sides():
    graph = power_law_bipartite(4000, 2000, 40000, 2.1, seed=3)
    assert_well_formed(graph)
    assert 30000 < graph.n_edges <= 40000
    for degrees in (np.diff(graph.row_ptr), np.diff(graph.col_ptr)):
        assert degrees.max() > 30 * degrees.mean()
        assert np.median(degrees) < 0.7 * degrees.mean()  # most vertices sit in the light tail
    uniform = uniform_random(4000, 2000, graph.n_edges, seed=3)
    assert np.diff(uniform.row_ptr).max() < 5 * np.diff(uniform.row_ptr).mean() + 10
    assert power_law_bipartite(10, 10, 0, 2.5, seed=0).n_edges == 0


def test_random_permutation_is_graph_permuted():
    graph = rmat(7, 4, seed=2)
    permuted = random_permutation(graph, seed=9)
    assert permuted == graph.permuted(9)
    assert permuted.shape == graph.shape and permuted.n_edges == graph.n_edges
    assert sorted(np.diff(permuted.row_ptr)) == sorted(np.diff(graph.row_ptr))
    assert sorted(np.diff(permuted.col_ptr)) == sorted(np.diff(graph.col_ptr))
    assert matching_size(permuted) == matching_size(graph)
    rectangular = uniform_random(13, 31, 60, seed=0)
    assert matching_size(random_permutation(rectangular, seed=1)) == matching_size(rectangular)


_G = grid(2, 2)

BAD_CALLS = [
    (uniform_random, (-1, 3, 0, 0), InvalidArgument, "n_rows=-1"),
    (uniform_random, (3, 2.0, 0, 0), InvalidArgumentType, "n_cols=2.0"),
    (uniform_random, (3, 3, 10, 0), InvalidArgument, "n_edges=10 exceeds n_rows * n_cols = 3 * 3 = 9"),
    (uniform_random, (3, 3, True, 0), InvalidArgumentType, "n_edges=True"),
    (uniform_random, (3, 3, 1, -4), InvalidArgument, "seed=-4"),
    (uniform_random, (3, 3, 1, None), InvalidArgumentType, "seed=None"),
    (uniform_random, (3, 3, 1, "7"), InvalidArgumentType, "seed='7'"),
    (uniform_random, (2**31, 1, 0, 0), InvalidArgument, "n_rows=2147483648"),
    (rmat, (31, 1, 0), InvalidArgument, "scale=31"),
    (rmat, (-1, 1, 0), InvalidArgument, "scale=-1"),
    (rmat, (4, -2, 0), InvalidArgument, "edge_factor=-2"),
    (rmat, (4, 1.5, 0), InvalidArgumentType, "edge_factor=1.5"),
    (rmat, (30, 2, 0), InvalidArgument, "2147483648 edges"),
    (lambda: rmat(4, 1, 0, a=1.2), (), InvalidArgument, "a=1.2"),
    (lambda: rmat(4, 1, 0, b=-0.1), (), InvalidArgument, "b=-0.1"),
    (lambda: rmat(4, 1, 0, c=float("nan")), (), InvalidArgument, "c=nan"),
    (lambda: rmat(4, 1, 0, a="0.5"), (), InvalidArgumentType, "a='0.5'"),
    (lambda: rmat(4, 1, 0, a=0.6, b=0.3, c=0.2), (), InvalidArgument, "exceeds 1"),
    (grid, (-2, 3), InvalidArgument, "rows=-2"),
    (grid, (3, "3"), InvalidArgumentType, "cols='3'"),
    (grid, (65536, 65536), InvalidArgument, "rows * cols = 65536 * 65536"),
    (lambda: grid(2, 2, diagonal=1), (), InvalidArgumentType, "diagonal=1"),
    (random_geometric, (-5, 0.1, 0), InvalidArgument, "n=-5"),
    (random_geometric, (5, -0.1, 0), InvalidArgument, "radius=-0.1"),
    (random_geometric, (5, 2.5, 0), InvalidArgument, "radius=2.5"),
    (random_geometric, (5, float("inf"), 0), InvalidArgument, "radius=inf"),
    (random_geometric, (5, None, 0), InvalidArgumentType, "radius=None"),
    (random_geometric, (5, 0.1, 1.0), InvalidArgumentType, "seed=1.0"),
    (lambda: random_geometric(5, 0.1, 0, diagonal="no"), (), InvalidArgumentType, "diagonal='no'"),
    (road_network, (3, -1, 2), InvalidArgument, "cols=-1"),
    (road_network, (3, 3, 1.5), InvalidArgumentType, "chain=1.5"),
    (road_network, (40000, 40000, 2), InvalidArgument, "more than 2147483647"),
    (power_law_bipartite, (10, 10, 5, 2.0, 0), InvalidArgument, "exponent=2.0"),
    (power_law_bipartite, (10, 10, 5, 11.0, 0), InvalidArgument, "exponent=11.0"),
    (power_law_bipartite, (0, 10, 5, 2.5, 0), InvalidArgument, "n_edges=5 edges need vertices"),
    (power_law_bipartite, (10, 10, 5, 2.5, -1), InvalidArgument, "seed=-1"),
    (random_permutation, (_G.to_scipy(), 0), InvalidArgumentType, "csr_array"),
    (random_permutation, (_G, -1), InvalidArgument, "seed=-1"),
    (random_permutation, (_G, 0.5), InvalidArgumentType, "seed=0.5"),
]


@pytest.mark.parametrize(("function", "args", "error", "message"), BAD_CALLS,
                         ids=[f"{i}-{getattr(f, '__name__', 'call')}" for i, (f, *_rest) in enumerate(BAD_CALLS)])
def test_validates_arguments(function, args, error, message):
    with pytest.raises(error) as info:
        function(*args)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)
