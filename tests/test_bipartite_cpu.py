"""The sequential bipartite matching references: valid, and maximum by SciPy's count, on every input kind."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching

from gpusim.algorithms.bipartite import (
    MatchingResult,
    cheap_matching,
    hopcroft_karp,
    pothen_fan,
    push_relabel,
)
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import bipartite_graphs
from gpusim.types.generators import grid, random_geometric, random_permutation, rmat, uniform_random
from gpusim.types.graphs import BipartiteGraph

DATA = Path(__file__).resolve().parent / "data" / "matrices"

# Every maximum algorithm, and the option settings that take other code paths.
ALGORITHMS = {
    "hopcroft_karp": hopcroft_karp,
    "pothen_fan": pothen_fan,
    "pothen_fan_plain": lambda g, initial=None: pothen_fan(g, initial, lookahead=False, fairness=False),
    "pothen_fan_lookahead_only": lambda g, initial=None: pothen_fan(g, initial, fairness=False),
    "push_relabel": push_relabel,
    "push_relabel_often": lambda g, initial=None: push_relabel(g, initial, k=0.01),
    "push_relabel_rarely": lambda g, initial=None: push_relabel(g, initial, k=1000.0),
}


def scipy_size(graph: BipartiteGraph) -> int:
    """The oracle: the size of SciPy's maximum matching (it is undefined on an empty side)."""
    if graph.n_rows == 0 or graph.n_cols == 0:
        return 0
    return int(np.count_nonzero(maximum_bipartite_matching(graph.to_scipy(), perm_type="column") >= 0))


def assert_valid(graph: BipartiteGraph, row_match: np.ndarray, col_match: np.ndarray) -> int:
    """A matching of ``graph``: int32, -1 or in range, both sides agree, every pair an edge.  Returns its size."""
    assert row_match.dtype == np.int32 and col_match.dtype == np.int32
    assert row_match.shape == (graph.n_rows,) and col_match.shape == (graph.n_cols,)
    assert np.all((row_match >= -1) & (row_match < graph.n_cols))
    assert np.all((col_match >= -1) & (col_match < graph.n_rows))
    rows = np.flatnonzero(row_match >= 0)
    cols = np.flatnonzero(col_match >= 0)
    assert rows.size == cols.size
    assert np.array_equal(col_match[row_match[rows]], rows)
    assert np.array_equal(row_match[col_match[cols]], cols)
    if rows.size:
        matrix = graph.to_scipy()
        assert np.all(matrix[rows, row_match[rows]] == 1.0), "a matched pair is not an edge"
    return int(rows.size)


def check_all(graph: BipartiteGraph, expected: int | None = None) -> None:
    """Every algorithm, from the cheap matching and from the empty one, finds a maximum matching."""
    want = scipy_size(graph) if expected is None else expected
    empty = (np.full(graph.n_rows, -1), np.full(graph.n_cols, -1))
    for name, algorithm in ALGORITHMS.items():
        for initial in (None, empty):
            row_match, col_match, stats = algorithm(graph, initial=initial)
            size = assert_valid(graph, row_match, col_match)
            assert size == want == stats["size"], (name, stats, want)


# ----------------------------------------------------------------------------------------------
# Properties on random graphs


@given(bipartite_graphs(max_rows=14, max_cols=14))
def test_maximum_on_sparse_random_graphs(graph):
    check_all(graph)


@given(bipartite_graphs(min_rows=1, max_rows=12, min_cols=1, max_cols=12, density=0.3))
def test_maximum_on_dense_random_graphs(graph):
    check_all(graph)


@given(bipartite_graphs(max_rows=12, max_cols=12), st.integers(0, 2**32 - 1), st.sampled_from(sorted(ALGORITHMS)))
def test_maximum_from_any_initial_matching(graph, seed, name):
    """Start from a random sub-matching of a maximum one, and from a maximal non-maximum one."""
    full, col_full, _ = hopcroft_karp(graph)
    rng = np.random.default_rng(seed)
    keep = rng.random(graph.n_rows) < 0.5
    row_match = np.where(keep & (full >= 0), full, -1)
    col_match = np.full(graph.n_cols, -1)
    matched = np.flatnonzero(row_match >= 0)
    col_match[row_match[matched]] = matched
    before = (row_match.copy(), col_match.copy())
    result = ALGORITHMS[name](graph, initial=(row_match, col_match))
    assert assert_valid(graph, result.row_match, result.col_match) == scipy_size(graph)
    assert result.stats["initial_size"] == matched.size
    assert np.array_equal(row_match, before[0]) and np.array_equal(col_match, before[1]), "initial was modified"
    chained = ALGORITHMS[name](graph, initial=cheap_matching(graph))
    assert chained.stats["size"] == result.stats["size"]


@given(bipartite_graphs(max_rows=14, max_cols=14))
def test_cheap_matching_is_a_valid_maximal_matching(graph):
    row_match, col_match, stats = cheap_matching(graph)
    size = assert_valid(graph, row_match, col_match)
    assert size == stats["size"] and 2 * size >= scipy_size(graph)
    rows, cols = graph.edges()
    assert not np.any((row_match[rows] == -1) & (col_match[cols] == -1)), "an edge joins two free vertices"


@given(bipartite_graphs(max_rows=12, max_cols=12), st.integers(0, 1000))
def test_permuted_graphs_keep_their_matching_size(graph, seed):
    permuted = graph.permuted(seed)
    assert hopcroft_karp(permuted).stats["size"] == push_relabel(graph).stats["size"]
    check_all(permuted)


# ----------------------------------------------------------------------------------------------
# Edge cases by construction


def _edges(pairs, n_rows, n_cols):
    rows = [r for r, _ in pairs]
    cols = [c for _, c in pairs]
    return BipartiteGraph.from_edges(rows, cols, n_rows, n_cols)


SPECIAL = {
    "0x0": (BipartiteGraph.from_edges([], [], 0, 0), 0),
    "0x5": (BipartiteGraph.from_edges([], [], 0, 5), 0),
    "5x0": (BipartiteGraph.from_edges([], [], 5, 0), 0),
    "edgeless 4x6": (BipartiteGraph.from_edges([], [], 4, 6), 0),
    "one edge": (_edges([(2, 3)], 4, 5), 1),
    # columns 0..2 see only rows 0 and 1: structurally singular, rank 2 + 1
    "singular": (_edges([(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 3), (3, 3)], 4, 4), 3),
    "tall 30x3 complete": (_edges([(r, c) for r in range(30) for c in range(3)], 30, 3), 3),
    "wide 3x30 complete": (_edges([(r, c) for r in range(3) for c in range(30)], 3, 30), 3),
    # a bidiagonal staircase: row i + 1 sees columns i and i + 1
    "staircase": (_edges([(i, i) for i in range(50)] + [(i + 1, i) for i in range(49)], 51, 50), 50),
    "star": (_edges([(0, c) for c in range(20)] + [(r, 0) for r in range(1, 20)], 20, 20), 2),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_graphs(name):
    graph, expected = SPECIAL[name]
    assert scipy_size(graph) == expected
    check_all(graph, expected)
    row_match, col_match, stats = cheap_matching(graph)
    assert_valid(graph, row_match, col_match)


def test_long_augmenting_path():
    """The cheap matching leaves one free column, the end of an augmenting path through every vertex."""
    n = 300
    # column i sees rows i and i + 1 (i < n - 1), column n - 1 only row n - 1; rows are numbered
    # backwards (r -> n - 1 - r) so that the greedy gives column i row i + 1 and column n - 1 nothing
    rows = np.concatenate((np.arange(n), np.arange(1, n)))
    cols = np.concatenate((np.arange(n), np.arange(n - 1)))
    graph = BipartiteGraph.from_edges(n - 1 - rows, cols, n, n)
    assert cheap_matching(graph).stats["size"] == n - 1
    check_all(graph, n)
    assert hopcroft_karp(graph).stats["phases"] == 1


def test_generated_graphs():
    """Medium instances from the generators, as given and as RCP permutations."""
    graphs = [
        uniform_random(400, 300, 900, seed=1),
        rmat(9, 4, seed=2),
        grid(21, 23, diagonal=False),
        random_permutation(grid(20, 25), seed=3),
        random_geometric(800, 0.03, seed=4, diagonal=False),
    ]
    for graph in graphs:
        check_all(graph)
        check_all(random_permutation(graph, seed=5))


def test_push_relabel_counters():
    graph = random_permutation(grid(20, 20), seed=0)
    start = (np.full(graph.n_rows, -1), np.full(graph.n_cols, -1))
    often = push_relabel(graph, initial=start, k=0.01).stats
    rarely = push_relabel(graph, initial=start, k=100.0).stats
    assert often["global_relabels"] > rarely["global_relabels"] == 1
    assert often["pushes"] >= often["size"] and often["double_pushes"] == often["pushes"] - often["size"]
    done = push_relabel(graph, initial=hopcroft_karp(graph)).stats
    assert done["pushes"] == 0 and done["global_relabels"] == 0 and done["size"] == graph.n_rows


def test_result_is_a_named_tuple_of_fresh_arrays():
    graph = grid(3, 3)
    result = hopcroft_karp(graph)
    assert isinstance(result, MatchingResult) and len(result) == 3
    assert result.row_match.flags.writeable and result.row_match.base is None
    assert result.stats["algorithm"] == "hopcroft_karp"


# ----------------------------------------------------------------------------------------------
# The bundled real matrices


def _expected_sizes() -> dict[str, int]:
    readme = DATA.parent / "README.md"
    sizes = {}
    for line in readme.read_text().splitlines():
        # | file | rows × cols | stored entries | kind | max matching | origin |
        match = re.match(r"\| `([^`]+\.mtx)` \| [^|]+ \| [^|]+ \| [^|]+ \| (\d+) \|", line)
        if match:
            sizes[match.group(1)] = int(match.group(2))
    return sizes


_MATRICES = sorted(p.name for p in DATA.glob("*.mtx"))


@pytest.mark.parametrize("name", _MATRICES)
def test_real_matrices(name):
    expected = _expected_sizes()
    assert name in expected, f"{name} has no row in {DATA.parent / 'README.md'}"
    graph = BipartiteGraph.from_matrix_market(DATA / name)
    check_all(graph, expected[name])
    check_all(random_permutation(graph, seed=7), expected[name])


# ----------------------------------------------------------------------------------------------
# Bad input: one table


_G = BipartiteGraph.from_edges([0, 1], [0, 1], 2, 3)  # rows 0, 1; columns 0, 1, 2; edges (0, 0), (1, 1)

BAD_CALLS = [
    (cheap_matching, ([[0, 1]],), {}, InvalidArgumentType, "graph must be a gpusim.types.graphs.BipartiteGraph"),
    (hopcroft_karp, ("karate.mtx",), {}, InvalidArgumentType, "'karate.mtx'"),
    (pothen_fan, (None,), {}, InvalidArgumentType, "graph=None"),
    (push_relabel, (_G.to_scipy(),), {}, InvalidArgumentType, "csr_array"),
    (hopcroft_karp, (_G,), {"initial": [0, 1]}, InvalidArgument, "initial row_match must be one-dimensional"),
    (hopcroft_karp, (_G,), {"initial": (1, 2, 3)}, InvalidArgumentType, "initial=(1, 2, 3)"),
    (hopcroft_karp, (_G,), {"initial": "none"}, InvalidArgumentType, "initial='none'"),
    (pothen_fan, (_G,), {"initial": ([0, 1, -1], [0, 1, -1])}, InvalidArgument, "initial row_match has 3 entries"),
    (pothen_fan, (_G,), {"initial": ([0.0, 1.0], [0, 1, -1])}, InvalidArgumentType, "dtype float64"),
    (push_relabel, (_G,), {"initial": ([0, 3], [0, -1, -1])}, InvalidArgument, "initial row_match[1]=3"),
    (push_relabel, (_G,), {"initial": ([0, -2], [0, -1, -1])}, InvalidArgument, "row_match[1]=-2"),
    (hopcroft_karp, (_G,), {"initial": ([0, -1], [-1, -1, 2])}, InvalidArgument, "col_match[2]=2 is neither"),
    (hopcroft_karp, (_G,), {"initial": ([1, -1], [-1, -1, -1])}, InvalidArgument,
     "inconsistent: row_match[0]=1 but col_match[1]=-1"),
    (hopcroft_karp, (_G,), {"initial": ([-1, -1], [1, -1, -1])}, InvalidArgument,
     "inconsistent: col_match[0]=1 but row_match[1]=-1"),
    (hopcroft_karp, (_G,), {"initial": ([0, 0], [0, -1, -1])}, InvalidArgument, "row_match[1]=0 but col_match[0]=0"),
    (pothen_fan, (_G,), {"initial": ([2, -1], [-1, -1, 0])}, InvalidArgument, "(0, 2) is not an edge"),
    (pothen_fan, (_G,), {"initial": ([[0, 1]], [0, 1, -1])}, InvalidArgument, "one-dimensional"),
    (pothen_fan, (_G,), {"lookahead": 1}, InvalidArgumentType, "lookahead=1"),
    (pothen_fan, (_G,), {"fairness": "yes"}, InvalidArgumentType, "fairness='yes'"),
    (push_relabel, (_G,), {"k": 0}, InvalidArgument, "k=0"),
    (push_relabel, (_G,), {"k": -1.5}, InvalidArgument, "k=-1.5"),
    (push_relabel, (_G,), {"k": float("inf")}, InvalidArgument, "k=inf"),
    (push_relabel, (_G,), {"k": float("nan")}, InvalidArgument, "k=nan"),
    (push_relabel, (_G,), {"k": "0.5"}, InvalidArgumentType, "k='0.5'"),
    (push_relabel, (_G,), {"k": True}, InvalidArgumentType, "k=True"),
]


@pytest.mark.parametrize(("function", "args", "kwargs", "error", "message"), BAD_CALLS,
                         ids=[f"{f.__name__}-{i}" for i, (f, *_rest) in enumerate(BAD_CALLS)])
def test_validates_arguments(function, args, kwargs, error, message):
    with pytest.raises(error) as info:
        function(*args, **kwargs)
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_edge_check_on_a_graph_without_edges():
    graph = BipartiteGraph.from_edges([], [], 2, 2)
    with pytest.raises(InvalidArgument, match=r"\(0, 1\) is not an edge"):
        hopcroft_karp(graph, initial=([1, -1], [-1, 0]))
