"""Louvain's inputs: every loader gives the same graph, and every bad input is one InvalidArgument line."""

from __future__ import annotations

import io

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim.algorithms.louvain import LouvainGraph, karate, load_louvain_graph, louvain
from gpusim.errors import InvalidArgument, InvalidArgumentType


def _write(tmp_path, text: str) -> str:
    path = tmp_path / "g.mtx"
    path.write_text(text)
    return str(path)


def test_every_loader_gives_the_same_graph(tmp_path):
    u, v, w = [0, 1, 2, 2], [1, 2, 0, 2], [1.0, 2.0, 0.5, 3.0]
    from_edges = LouvainGraph.from_edges(u, v, w)
    dense = np.array([[0, 1, 0.5], [1, 0, 2], [0.5, 2, 3]])
    from_scipy = LouvainGraph.from_scipy(sp.csr_array(dense))
    G = nx.Graph()
    G.add_weighted_edges_from(zip(u, v, w, strict=True))
    from_nx = LouvainGraph.from_networkx(G)
    buffer = io.BytesIO()
    scipy.io.mmwrite(buffer, sp.coo_array(np.tril(dense)), symmetry="symmetric")
    from_file = LouvainGraph.from_matrix_market(_write(tmp_path, buffer.getvalue().decode()))
    for g in (from_scipy, from_nx, from_file, load_louvain_graph((u, v, w))):
        assert g.ptr.tolist() == from_edges.ptr.tolist() and g.adj.tolist() == from_edges.adj.tolist()
        assert g.weights.tolist() == from_edges.weights.tolist()
    assert from_edges.degrees.tolist() == [1.5, 3.0, 8.5]  # the self-loop counts twice, as NetworkX's degree
    assert from_edges.degrees.tolist() == [d for _, d in sorted(G.degree(weight="weight"))]
    assert from_edges.total_weight == G.size(weight="weight")


def test_pattern_file_is_weight_one_and_karate_is_networkx_karate():
    g = karate()
    assert set(g.weights.tolist()) == {1.0} and g.n == 34 and g.total_weight == 78
    ours = {tuple(e) for e in zip(*(a.tolist() for a in g.edges()[:2]), strict=True)}
    assert ours == {tuple(sorted(e)) for e in nx.karate_club_graph().edges}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.dictionaries(
    st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).map(sorted).map(tuple), st.integers(1, 9), max_size=40))))
def test_edges_and_the_matrix_give_back_the_edges_the_graph_was_made_from(drawn):
    """``edges()`` is each given edge once (``u <= v``, a self-loop with its own weight) and ``to_scipy()`` the
    symmetric matrix of them, by the compiled passes that make no array of entry sources."""
    n, given_edges = drawn
    pairs = sorted(given_edges)
    u, v = (np.array([p[i] for p in pairs], np.int64) for i in (0, 1))
    w = np.array([given_edges[p] for p in pairs], float)
    g = LouvainGraph.from_edges(u, v, w, n=n)
    got_u, got_v, got_w = g.edges()
    assert got_u.dtype == np.int32 and sorted(zip(got_u.tolist(), got_v.tolist(), got_w.tolist(), strict=True)) \
        == [(a, b, given_edges[(a, b)]) for a, b in pairs]
    dense = np.zeros((n, n))
    dense[u, v] = dense[v, u] = w
    assert np.array_equal(g.to_scipy().toarray(), dense)


def test_unsymmetric_file_needs_a_rule(tmp_path):
    path = _write(tmp_path, "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 2.0\n2 1 4.0\n3 1 1.0\n")
    with pytest.raises(InvalidArgument, match=r"not symmetric .*symmetrise="):
        LouvainGraph.from_matrix_market(path)
    for rule, expected in (("sum", 6.0), ("max", 4.0), ("mean", 3.0)):
        g = LouvainGraph.from_matrix_market(path, symmetrise=rule)
        assert g.to_scipy().toarray()[0, 1] == expected and g.to_scipy().toarray()[2, 0] == {"sum": 1.0,
                                                                                             "max": 1.0,
                                                                                             "mean": 0.5}[rule]
    general_but_symmetric = _write(tmp_path, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 2\n2 1 2\n")
    assert LouvainGraph.from_matrix_market(general_but_symmetric).total_weight == 2.0


@pytest.mark.parametrize(
    ("what", "call", "exception", "fragment"),
    [
        ("directed", lambda: LouvainGraph.from_networkx(nx.DiGraph([(0, 1)])), InvalidArgument, "directed"),
        ("negative", lambda: LouvainGraph.from_edges([0], [1], [-1.0]), InvalidArgument, r"w\[0\]=-1.0 is negative"),
        ("nan", lambda: LouvainGraph.from_edges([0], [1], [np.nan]), InvalidArgument, "is not finite"),
        ("nan in nx", lambda: LouvainGraph.from_networkx(nx.Graph([(0, 1, {"weight": float("nan")})])),
         InvalidArgument, "weight=nan"),
        ("negative matrix", lambda: LouvainGraph.from_scipy(sp.csr_array(np.array([[0, -2], [-2, 0]]))),
         InvalidArgument, r"entry \(0, 1\) = -2.0 is negative"),
        ("duplicate", lambda: LouvainGraph.from_edges([0, 1], [1, 0]), InvalidArgument, "given twice"),
        ("not square", lambda: LouvainGraph.from_scipy(sp.csr_array(np.ones((2, 3)))), InvalidArgument, "square"),
        ("complex", lambda: LouvainGraph.from_scipy(sp.csr_array(np.ones((2, 2), complex))), InvalidArgumentType,
         "complex"),
        ("bad rule", lambda: LouvainGraph.from_scipy(sp.csr_array(np.ones((2, 2))), symmetrise="min"),
         InvalidArgument, "symmetrise='min'"),
        ("n too small", lambda: LouvainGraph.from_edges([0], [5], n=3), InvalidArgument, "n=3"),
        ("float ids", lambda: LouvainGraph.from_edges([0.0], [1.0]), InvalidArgumentType, "integer"),
        ("resolution 0", lambda: louvain(karate(), backend="cpu", resolution=0), InvalidArgument, "resolution=0"),
        ("resolution < 0", lambda: louvain(karate(), backend="sim", resolution=-1.0), InvalidArgument,
         "resolution=-1.0"),
        ("resolution nan", lambda: louvain(karate(), resolution=float("nan")), InvalidArgument, "resolution=nan"),
        ("threshold", lambda: louvain(karate(), threshold=0.0), InvalidArgument, "threshold=0.0"),
        ("layout", lambda: louvain(karate(), layout="warp"), InvalidArgument, "layout='warp'"),
        ("kernels name", lambda: louvain(karate(), kernels="fast"), InvalidArgument,
         r"kernels='fast' is not one of \('paper', 'shuffles'\)"),
        ("kernels type", lambda: louvain(karate(), kernels=3), InvalidArgumentType, "kernels must be a LouvainKernels"),
        ("follow_leaves", lambda: louvain(karate(), follow_leaves="no"), InvalidArgumentType,
         "follow_leaves must be True or False, got 'no'"),
        ("backend", lambda: louvain(karate(), backend="tpu"), InvalidArgument, "backend='tpu'"),
        ("seed", lambda: louvain(karate(), seed=-3), InvalidArgument, "seed=-3"),
        ("source", lambda: louvain([[0, 1]]), InvalidArgumentType, "cannot build a Louvain graph from a list"),
    ],
)
def test_bad_input(what, call, exception, fragment):
    with pytest.raises(exception, match=fragment) as info:
        call()
    assert "\n" not in str(info.value)


def test_multigraph_edges_are_summed_and_node_names_kept():
    G = nx.MultiGraph()
    G.add_edge("a", "b", weight=2.0)
    G.add_edge("a", "b", weight=3.0)
    G.add_edge("b", "c")
    g = LouvainGraph.from_networkx(G)
    assert g.nodes == ["a", "b", "c"] and g.to_scipy().toarray()[0, 1] == 5.0
    result = louvain(g, backend="cpu")
    assert sorted(sorted(c) for c in result.communities()) in ([["a", "b", "c"]], [["a", "b"], ["c"]])
