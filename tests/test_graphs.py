"""Graph types: construction, round trips, the bundled matrices, and rejection of bad input.

Oracles are independent of gpusim.types.graphs: Python sets of edges, SciPy (mmread, csr, structural
rank by maximum_bipartite_matching), NetworkX, and the data README's table.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching

from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import bipartite_graphs, weighted_graphs
from gpusim.types.graphs import BipartiteGraph, WeightedGraph, example_path, load_graph

DATA = Path(__file__).parent / "data"
MATRICES = DATA / "matrices"


def _readme_table() -> dict[str, tuple[int, int, str, int]]:
    """file -> (rows, cols, symmetry, max matching), parsed from tests/data/README.md."""
    rows = re.findall(r"^\| `([^`]+)` \| (\d+) × (\d+) \| \d+ \| coordinate \w+ (\w+) \| (\d+) \|",
                      (DATA / "README.md").read_text(), flags=re.M)
    return {f: (int(r), int(c), sym, int(mm)) for f, r, c, sym, mm in rows}


TABLE = _readme_table()


def bip_edges(g: BipartiteGraph) -> set[tuple[int, int]]:
    """The edge set, read from the row-side CSR with plain Python."""
    return {(r, int(c)) for r in range(g.n_rows) for c in g.row_adj[g.row_ptr[r]:g.row_ptr[r + 1]]}


def wgt_edges(g: WeightedGraph) -> dict[tuple[int, int], float]:
    """{(u, v): w} for u < v, read from the symmetric CSR with plain Python."""
    out = {}
    for u in range(g.n):
        for k in range(g.ptr[u], g.ptr[u + 1]):
            v = int(g.adj[k])
            out[(min(u, v), max(u, v))] = float(g.weights[k])
    return out


def pattern_keys(matrix) -> np.ndarray:
    """Sorted distinct (row, col) keys of a SciPy matrix's stored entries, explicit zeros included."""
    coo = sp.coo_array(matrix)
    return np.unique(coo.row.astype(np.int64) * coo.shape[1] + coo.col)


# ---------------------------------------------------------------------------------------------
# Construction and round trips


def test_bipartite_from_edges_builds_both_sides():
    g = BipartiteGraph.from_edges([2, 0, 0, 1], [1, 1, 0, 1], n_cols=3)
    assert g.shape == (3, 3) and g.n_edges == 4
    assert g.row_ptr.tolist() == [0, 2, 3, 4] and g.row_adj.tolist() == [0, 1, 1, 1]
    assert g.col_ptr.tolist() == [0, 1, 4, 4] and g.col_adj.tolist() == [0, 0, 1, 2]
    assert {a.dtype for a in (g.row_ptr, g.row_adj, g.col_ptr, g.col_adj)} == {np.dtype(np.int32)}
    with pytest.raises(ValueError):
        g.row_adj[0] = 5  # read-only


@pytest.mark.parametrize("build", [
    lambda: BipartiteGraph.from_edges([], []),
    lambda: BipartiteGraph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), 3, 0),
    lambda: BipartiteGraph.from_scipy(sp.csr_array((0, 5))),
    lambda: BipartiteGraph.from_networkx(nx.Graph()),
    lambda: BipartiteGraph(0, 0, [0], []),
    lambda: load_graph(io.StringIO("%%MatrixMarket matrix coordinate pattern general\n4 0 0\n")),
    lambda: WeightedGraph.from_edges([], []),
    lambda: WeightedGraph.from_edges([], [], [], n=5),
    lambda: WeightedGraph.from_scipy(sp.csr_array((3, 3))),
    lambda: WeightedGraph.from_networkx(nx.empty_graph(4)),
    lambda: WeightedGraph(0, [0], [], []),
], ids=lambda _: "")
def test_empty_inputs_are_valid(build):
    g = build()
    assert g.n_edges == 0
    ptr = g.row_ptr if isinstance(g, BipartiteGraph) else g.ptr
    assert ptr.tolist() == [0] * len(ptr)
    assert g == g.__class__.from_scipy(g.to_scipy())


@given(bipartite_graphs(), st.randoms(use_true_random=False))
def test_bipartite_round_trips(g, rnd):
    """edges (shuffled) -> graph -> scipy -> networkx -> back all agree with the edge set."""
    edges = sorted(bip_edges(g))
    rnd.shuffle(edges)
    rows, cols = [e[0] for e in edges], [e[1] for e in edges]
    h = BipartiteGraph.from_edges(np.array(rows, np.int64), np.array(cols, np.int64), g.n_rows, g.n_cols)
    assert h == g
    a = g.to_scipy()
    assert set(zip(*a.nonzero(), strict=True)) == set(edges) and a.shape == g.shape
    s = BipartiteGraph.from_scipy(a)
    G = s.to_networkx()
    assert nx.is_bipartite(G) and G.number_of_nodes() == g.n_rows + g.n_cols
    assert BipartiteGraph.from_networkx(G) == g
    r, c = g.edges()
    assert list(zip(r.tolist(), c.tolist(), strict=True)) == sorted(edges)


@given(weighted_graphs(), st.randoms(use_true_random=False))
def test_weighted_round_trips(g, rnd):
    truth = wgt_edges(g)
    items = list(truth.items())
    rnd.shuffle(items)
    flips = [rnd.random() < 0.5 for _ in items]
    u = [b if f else a for ((a, b), _), f in zip(items, flips, strict=True)]
    v = [a if f else b for ((a, b), _), f in zip(items, flips, strict=True)]
    w = [x for _, x in items]
    assert WeightedGraph.from_edges(np.array(u, np.int64), np.array(v, np.int64), w, g.n) == g
    a = g.to_scipy()
    assert (a != a.T).nnz == 0 and a.diagonal().tolist() == [0.0] * g.n
    s = WeightedGraph.from_scipy(a)
    G = s.to_networkx()
    assert {(min(x, y), max(x, y)): d for x, y, d in G.edges(data="weight")} == truth
    assert WeightedGraph.from_networkx(G) == g
    eu, ev, ew = g.edges()
    assert (eu < ev).all() and dict(zip(zip(eu.tolist(), ev.tolist(), strict=True), ew.tolist(),
                                         strict=True)) == truth


def test_bipartite_from_scipy_counts_explicit_zeros_and_merges_duplicates():
    a = sp.coo_array(([0.0, 1.0, 2.0], ([0, 1, 1], [1, 0, 0])), shape=(2, 3))
    g = BipartiteGraph.from_scipy(a)
    assert bip_edges(g) == {(0, 1), (1, 0)} and g.shape == (2, 3)
    assert BipartiteGraph.from_scipy(sp.csc_matrix(a)) == g  # old matrix classes too


def test_bipartite_from_networkx_sides():
    path = nx.path_graph(["a", "b", "c"])
    g = BipartiteGraph.from_networkx(path)  # colouring: "a" (first node) is a row
    assert g.shape == (2, 1) and bip_edges(g) == {(0, 0), (1, 0)}
    g = BipartiteGraph.from_networkx(path, top_nodes=["b"])
    assert g.shape == (1, 2) and bip_edges(g) == {(0, 0), (0, 1)}
    two = nx.Graph([(0, 1), (2, 3)])  # disconnected: networkx.bipartite.sets would refuse
    assert BipartiteGraph.from_networkx(two).shape == (2, 2)
    G = nx.complete_bipartite_graph(2, 3)  # has the "bipartite" attribute
    g = BipartiteGraph.from_networkx(G)
    assert g.shape == (2, 3) and g.n_edges == 6
    G.add_node("lonely", bipartite=1)
    assert BipartiteGraph.from_networkx(G).shape == (2, 4)


def test_weighted_from_networkx_numbering_and_default_weight():
    G = nx.Graph()
    G.add_edge(2, 0, weight=3)
    G.add_edge(1, 0)
    g = WeightedGraph.from_networkx(G)  # labels 0..n-1 keep their value
    assert wgt_edges(g) == {(0, 2): 3.0, (0, 1): 1.0}
    assert wgt_edges(WeightedGraph.from_networkx(G, weight=None)) == {(0, 2): 1.0, (0, 1): 1.0}
    H = nx.Graph([("x", "y", {"w": 0.5})])
    assert wgt_edges(WeightedGraph.from_networkx(H, weight="w")) == {(0, 1): 0.5}


def test_weighted_zero_weight_is_an_edge_through_the_api_only():
    g = WeightedGraph.from_edges([0], [1], [0.0])
    assert g.n_edges == 1
    assert WeightedGraph.from_scipy(g.to_scipy()).n_edges == 0  # a zero entry is no edge


def test_weighted_from_scipy_abs_values_and_ignored_diagonal():
    a = sp.csr_array(np.array([[7.0, -2.0, 0.0], [2.0, np.nan, 0.0], [0.0, 0.0, -1.0]]))
    g = WeightedGraph.from_scipy(a)
    assert g.n == 3 and wgt_edges(g) == {(0, 1): 2.0}


def test_weighted_matrix_market_general_file_symmetrised_by_max():
    text = ("%%MatrixMarket matrix coordinate real general\n3 3 5\n"
            "1 2 -4\n2 1 1.5\n3 1 2\n2 2 9\n1 3 0\n")
    g = WeightedGraph.from_matrix_market(io.StringIO(text))
    assert wgt_edges(g) == {(0, 1): 4.0, (0, 2): 2.0}


def test_west0067_as_weighted_matches_dense_oracle():
    a = np.abs(scipy.io.mmread(MATRICES / "west0067.mtx").toarray())
    np.fill_diagonal(a, 0.0)
    expected = np.maximum(a, a.T)
    g = WeightedGraph.from_matrix_market(MATRICES / "west0067.mtx")
    assert np.array_equal(g.to_scipy().toarray(), expected)
    assert g.n_edges == np.count_nonzero(np.triu(expected))


def test_permuted_is_a_seeded_relabelling():
    g = BipartiteGraph.from_edges([0, 0, 1, 2, 3], [0, 3, 1, 1, 2], 5, 4)
    h = g.permuted(seed=11)
    assert h == g.permuted(seed=11) and h != g.permuted(seed=12)
    rng = np.random.default_rng(11)
    p, q = rng.permutation(5), rng.permutation(4)
    assert bip_edges(h) == {(int(p[r]), int(q[c])) for r, c in bip_edges(g)}
    assert sorted(np.diff(h.row_ptr).tolist()) == sorted(np.diff(g.row_ptr).tolist())


def test_direct_csr_constructors_validate_and_transpose():
    g = BipartiteGraph(3, 2, np.array([0, 1, 1, 3]), np.array([1, 0, 1]))
    assert g == BipartiteGraph.from_edges([0, 2, 2], [1, 0, 1], 3, 2)
    w = WeightedGraph(3, [0, 1, 3, 4], [1, 0, 2, 1], [1.0, 1.0, 2.0, 2.0])
    assert w == WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 2.0])


def test_large_build_matches_scipy():
    rng = np.random.default_rng(0)
    n_rows, n_cols, m = 3000, 2000, 200_000
    key = np.unique(rng.integers(0, n_rows * n_cols, m))
    rng.shuffle(key)
    rows, cols = np.divmod(key, n_cols)
    g = BipartiteGraph.from_edges(rows, cols, n_rows, n_cols)
    a = sp.csr_array((np.ones(key.size), (rows, cols)), shape=(n_rows, n_cols))
    a.sort_indices()
    assert np.array_equal(g.row_ptr, a.indptr) and np.array_equal(g.row_adj, a.indices)
    t = a.T.tocsr()
    t.sort_indices()
    assert np.array_equal(g.col_ptr, t.indptr) and np.array_equal(g.col_adj, t.indices)
    u = WeightedGraph.from_edges(cols + n_rows, rows)  # the same graph, undirected
    assert u.n_edges == key.size and u.n == n_rows + n_cols


# ---------------------------------------------------------------------------------------------
# The test matrices (tests/data) and the package's examples


def test_readme_table_lists_every_matrix():
    assert sorted(TABLE) == sorted(p.name for p in MATRICES.glob("*.mtx"))


@pytest.mark.parametrize("name", sorted(TABLE))
def test_bundled_matrix_loads_as_bipartite_with_table_max_matching(name):
    rows, cols, _, max_matching = TABLE[name]
    g = BipartiteGraph.from_matrix_market(MATRICES / name)
    assert g.shape == (rows, cols)
    raw = scipy.io.mmread(MATRICES / name)  # symmetric files come back expanded
    r, c = g.edges()
    assert np.array_equal(r.astype(np.int64) * cols + c, pattern_keys(raw))
    assert (maximum_bipartite_matching(g.to_scipy(), perm_type="column") >= 0).sum() == max_matching


@pytest.mark.parametrize("name", sorted(n for n, row in TABLE.items() if row[2] == "symmetric"))
def test_symmetric_matrix_loads_as_weighted(name):
    a = abs(sp.csr_array(scipy.io.mmread(MATRICES / name)))
    a.setdiag(0)
    a.eliminate_zeros()
    g = WeightedGraph.from_matrix_market(MATRICES / name)
    assert g.n == a.shape[0] and g.n_edges == sp.triu(a, 1).nnz
    assert (g.to_scipy() != a).nnz == 0
    assert WeightedGraph.from_scipy(a) == g  # a symmetric file needs no symmetrising


@pytest.mark.parametrize("name", ["karate.mtx", "west0067.mtx", "ash219.mtx", "marriage.json"])
def test_examples_are_installed(name):
    path = example_path(name)
    assert path.is_file() and path.name == name and example_path(path.stem) == path
    if name.endswith(".mtx"):
        assert path.read_bytes() == (MATRICES / name).read_bytes()


def test_load_graph_dispatches_on_type():
    g = BipartiteGraph.from_edges([0, 1], [1, 0])
    assert load_graph(g) is g
    assert load_graph(g.to_scipy()) == g
    assert load_graph(g.to_networkx()) == g
    assert load_graph(([0, 1], [1, 0])) == g
    assert load_graph(str(example_path("ash219"))).shape == (219, 85)
    w = load_graph(example_path("karate"), kind="weighted")
    assert load_graph(w.to_scipy(), kind="weighted") == w
    assert load_graph(w.to_networkx(), kind="weighted") == w
    assert load_graph((*w.edges()[:2],), kind="weighted") == w
    assert load_graph(w.edges(), kind="weighted") == w


# ---------------------------------------------------------------------------------------------
# Bad input: one table per type

MM_COMPLEX = "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1.0 2.0\n"
MM_RECT = "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 2 1.0\n"
MM_NAN = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n"
ONE = BipartiteGraph.from_edges([0], [0])


def mm(text: str) -> io.StringIO:
    return io.StringIO(text)


def nx_with_sides(edges, sides: dict) -> nx.Graph:
    G = nx.Graph(edges)
    nx.set_node_attributes(G, sides, "bipartite")
    return G


B, W = BipartiteGraph, WeightedGraph  # short names for the tables

BIPARTITE_BAD = [
    (B.from_edges, ([-1], [0]), InvalidArgument, "rows[0]=-1 is negative"),
    (B.from_edges, ([0, 1], [0, -2]), InvalidArgument, "cols[1]=-2 is negative"),
    (B.from_edges, ([0], [5], None, 3), InvalidArgument, "cols[0]=5 is out of range for n_cols=3"),
    (B.from_edges, ([0, 2], [0, 0], 2), InvalidArgument, "rows[1]=2 is out of range for n_rows=2"),
    (B.from_edges, ([0, 1, 0], [1, 0, 1]), InvalidArgument, "duplicate edge (0, 1)"),
    (B.from_edges, ([0.0], [1]), InvalidArgumentType, "rows must hold integer vertex ids"),
    (B.from_edges, (np.array([0, 1.5]), [1, 0]), InvalidArgumentType, "dtype float64"),
    (B.from_edges, ([True], [0]), InvalidArgumentType, "dtype bool"),
    (B.from_edges, (["a"], [0]), InvalidArgumentType, "rows must hold integer"),
    (B.from_edges, ([0, 1], [0]), InvalidArgument, "equal lengths, got 2 and 1"),
    (B.from_edges, ([[0]], [[0]]), InvalidArgument, "rows must be one-dimensional"),
    (B.from_edges, ([[0], [0, 1]], [0, 1]), InvalidArgument, "rows must be a flat 1-D array"),
    (B.from_edges, ([2**40], [0]), InvalidArgument, "exceeds 2147483647"),
    (B.from_edges, ([0], [0], -1), InvalidArgument, "n_rows=-1 must be non-negative"),
    (B.from_edges, ([0], [0], 1.0), InvalidArgumentType, "n_rows must be a non-negative integer"),
    (B.from_scipy, (np.eye(2),), InvalidArgumentType, "SciPy sparse matrix or array, got ndarray"),
    (B.from_networkx, (nx.cycle_graph(3),), InvalidArgument, "not bipartite (it has an odd cycle)"),
    (B.from_networkx, (nx.path_graph(3), [0, 1]), InvalidArgument, "edge (0, 1) joins two top"),
    (B.from_networkx, (nx.path_graph(3), [7]), InvalidArgument, "top_nodes names nodes not in G"),
    (B.from_networkx, (nx_with_sides([(0, 1)], {0: 2, 1: 1}),), InvalidArgument,
     "has bipartite=2"),
    (B.from_networkx, (nx.DiGraph([(0, 1)]),), InvalidArgumentType, "G must be undirected"),
    (B.from_networkx, (nx.MultiGraph([(0, 1)]),), InvalidArgumentType, "not be a multigraph"),
    (B.from_networkx, ([(0, 1)],), InvalidArgumentType, "G must be a networkx.Graph, got list"),
    (B.from_matrix_market, (mm("garbage\n"),), InvalidArgument, "as a Matrix Market file"),
    (B.from_matrix_market, (42,), InvalidArgumentType, "path must be a str"),
    (B.from_matrix_market, ("/nonexistent/x.mtx",), FileNotFoundError, "x.mtx"),
    (B, (2, 2, [0, 1], [0]), InvalidArgument, "row_ptr must have 3 entries, got 2"),
    (B, (1, 2, [0, 2], [1, 0]), InvalidArgument, "row_adj is not strictly increasing within list"),
    (B, (1, 2, [0, 2], [1, 1]), InvalidArgument, "(unsorted or duplicate)"),
    (B, (2, 2, [0, 2, 1], [0]), InvalidArgument, "row_ptr must not decrease"),
    (B, (1, 2, [1, 1], [0]), InvalidArgument, "row_ptr must start at 0"),
    (B, (1, 2, [0, 1], [2]), InvalidArgument, "row_adj[0]=2 is out of range"),
    (ONE.permuted, (-1,), InvalidArgument, "seed=-1 must be non-negative"),
    (ONE.permuted, (None,), InvalidArgumentType, "seed must be a non-negative integer"),
]

WEIGHTED_BAD = [
    (W.from_edges, ([0], [1], [np.nan]), InvalidArgument, "w[0]=nan is not finite"),
    (W.from_edges, ([0, 1], [1, 2], [1.0, np.inf]), InvalidArgument, "w[1]=inf is not finite"),
    (W.from_edges, ([0], [1], [-1.0]), InvalidArgument, "w[0]=-1.0 is negative"),
    (W.from_edges, ([0], [1], [1 + 2j]), InvalidArgumentType, "w has complex dtype"),
    (W.from_edges, ([0], [1], ["a"]), InvalidArgumentType, "w[0]='a' is not a real number (a str)"),
    (W.from_edges, ([0], [1], [1.0, 2.0]), InvalidArgument, "w has 2 entries but there are 1 edges"),
    (W.from_edges, ([0, 1], [1, 0]), InvalidArgument, "duplicate edge {0, 1}"),
    (W.from_edges, ([0, 3, 0], [2, 1, 2]), InvalidArgument, "at positions 0 and 2"),
    (W.from_edges, ([1], [1]), InvalidArgument, "u[0] = v[0] = 1 is a self loop"),
    (W.from_edges, ([0], [3], None, 2), InvalidArgument, "v[0]=3 is out of range for n=2"),
    (W.from_edges, ([-4], [0]), InvalidArgument, "u[0]=-4 is negative"),
    (W.from_edges, ([0.5], [1]), InvalidArgumentType, "u must hold integer vertex ids"),
    (W.from_scipy, (sp.csr_array(np.ones((2, 3))),), InvalidArgument, "must be square"),
    (W.from_scipy, (sp.csr_array([[0, 1], [0, 0]]),), InvalidArgument,
     "entry (0, 1) is present but (1, 0) is not"),
    (W.from_scipy, (sp.csr_array([[0, 1.0], [2.0, 0]]),), InvalidArgument,
     "weight of (0, 1) is 1.0 but weight of (1, 0) is 2.0"),
    (W.from_scipy, (sp.csr_array([[0, 1j], [1j, 0]]),), InvalidArgumentType, "complex values"),
    (W.from_scipy, (sp.csr_array([[0, np.nan], [np.nan, 0]]),), InvalidArgument, "is not finite"),
    (W.from_scipy, ([[0, 1], [1, 0]],), InvalidArgumentType, "SciPy sparse matrix or array"),
    (W.from_matrix_market, (mm(MM_COMPLEX),), InvalidArgumentType, "complex values are refused"),
    (W.from_matrix_market, (mm(MM_RECT),), InvalidArgument, "must be square"),
    (W.from_matrix_market, (mm(MM_NAN),), InvalidArgument, "=nan is not finite"),
    (W.from_networkx, (nx.Graph([(0, 1, {"weight": -1})]),), InvalidArgument, "weight=-1"),
    (W.from_networkx, (nx.Graph([(0, 1, {"weight": np.nan})]),), InvalidArgument, "finite"),
    (W.from_networkx, (nx.Graph([(0, 1, {"weight": "heavy"})]),), InvalidArgumentType,
     "edge (0, 1) has weight='heavy' of type str"),
    (W.from_networkx, (nx.Graph([(0, 0)]),), InvalidArgument, "self loop at node 0"),
    (W.from_networkx, (nx.DiGraph([(0, 1)]),), InvalidArgumentType, "G must be undirected"),
    (W, (2, [0, 1, 1], [1], [1.0]), InvalidArgument, "(0, 1) is present but (1, 0) is not"),
    (W, (2, [0, 1, 2], [1, 0], [1.0, 2.0]), InvalidArgument, "weight of (0, 1) is 1.0"),
    (W, (1, [0, 1], [0], [1.0]), InvalidArgument, "adj[0]=0 is a self loop at vertex 0"),
    (W, (2, [0, 1, 2], [1, 0], [1.0]), InvalidArgument, "weights has 1 entries but there are 2"),
]

MODULE_BAD = [
    (load_graph, (ONE, "directed"), InvalidArgument, "kind='directed' is not one of ['bipartite'"),
    (load_graph, (42,), InvalidArgumentType, "cannot build a bipartite graph from a int"),
    (load_graph, (([0],),), InvalidArgument, "must be (rows, cols), got 1 arrays"),
    (load_graph, (([0], [1], [2], [3]), "weighted"), InvalidArgument, "must be (u, v) or (u, v, w)"),
    (load_graph, (ONE, "weighted"), InvalidArgumentType, "cannot build a weighted graph from a Bipart"),
    (example_path, ("nope",), InvalidArgument,
     "no bundled example named 'nope'; available: ash219.mtx, karate.mtx, marriage-hard.json, marriage.json, "
     "west0067.mtx"),
    (example_path, (3,), InvalidArgumentType, "name must be a str"),
]


def _param(row):
    fn, args, exc, fragment = row
    return pytest.param(fn, args, exc, fragment, id=f"{getattr(fn, '__qualname__', fn)}-{fragment[:40]}")


def _check_rejects(fn, args, exc, fragment):
    with pytest.raises(exc, match=re.escape(fragment)) as info:
        fn(*args)
    assert type(info.value) is exc, f"expected exactly {exc.__name__}, got {type(info.value).__name__}"


@pytest.mark.parametrize("fn, args, exc, fragment", [_param(r) for r in BIPARTITE_BAD])
def test_bipartite_rejects_bad_input(fn, args, exc, fragment):
    _check_rejects(fn, args, exc, fragment)


@pytest.mark.parametrize("fn, args, exc, fragment", [_param(r) for r in WEIGHTED_BAD])
def test_weighted_rejects_bad_input(fn, args, exc, fragment):
    _check_rejects(fn, args, exc, fragment)


@pytest.mark.parametrize("fn, args, exc, fragment", [_param(r) for r in MODULE_BAD])
def test_loading_helpers_reject_bad_input(fn, args, exc, fragment):
    _check_rejects(fn, args, exc, fragment)
