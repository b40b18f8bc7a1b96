"""Every algorithm returns only pairs of its input, checked by oracles written here.

The oracles read the input directly — a Python set of the graph's ``(u, v)`` pairs from SciPy, the
preference lists as given — and never call :mod:`gpusim.types.check`: weighted (greedy, PGA, GPA,
Suitor and its variants, LD, b-Suitor, ROMA, RAMA), bipartite (gpr, apfb, apsb, hk, pfp, pr) and
stable (gs, mw, gs-rounds, mw-gpu) algorithms, on ``cpu``, ``sim`` and, marked ``gpu``, numba and
CuPy.  ROMA and RAMA, defined on complete graphs, run on the karate club and on random sparse
graphs.  Then the validator itself: it refuses hand-made results holding a non-edge, and its
weight is the sum of the input's weights; and the memory guard refuses a 200,000-vertex ROMA.
"""

from __future__ import annotations

import io
import json
import math
import time
from contextlib import redirect_stdout

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim import Device
from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.algorithms.stable import STABLE_ALGORITHMS, StableMatching, stable_marriage
from gpusim.algorithms.weighted import (
    WEIGHTED_ALGORITHMS,
    WeightedMatching,
    maximum_weight_matching,
    reference_augmentation,
    reference_b_suitor,
    reference_greedy,
    reference_ld,
    reference_paths,
    reference_suitor,
    roma,
    start_matchings,
)
from gpusim.algorithms.weighted import driver_b_suitor as gpu_b_suitor
from gpusim.cli import main
from gpusim.errors import GpusimInternalError, InvalidArgument
from gpusim.testing.strategies import bipartite_graphs, preference_instances, weighted_graphs
from gpusim.types.check import check_weighted_matching
from gpusim.types.graphs import BipartiteGraph, WeightedGraph, example_path
from gpusim.types.preferences import PreferenceInstance
from gpusim.types.results import BipartiteMatching


def _on(backend: str, *more):
    """Parameters for a run on ``backend``, marked ``gpu`` unless it is cpu or sim."""
    return pytest.param(backend, *more, marks=() if backend in ("cpu", "sim") else pytest.mark.gpu)


DEVICE_BACKENDS = [_on(name) for name in ("sim", "numba", "cupy")]
ROMA_STARTS = ("i,i+1", "i,i+n/2", "shuffled", "greedy", "gpa")


def _device(backend: str) -> Device:
    if backend != "sim":
        from gpusim.backends import gpu_status

        ok, why = gpu_status(backend)
        if not ok:
            pytest.skip(f"{backend} unavailable: {why}")
        return Device(backend)
    return Device("sim", policy="random", seed=3, trace=False)


# -- the oracles: read the input, not gpusim's validators -------------------------------------------


def edge_weights(graph: WeightedGraph) -> dict[tuple[int, int], float]:
    """``{(u, v): w}`` for every stored entry of the graph's SciPy matrix (both orders, explicit zeros too)."""
    coo = graph.to_scipy().tocoo()
    return {(int(u), int(v)): float(w) for u, v, w in zip(coo.row, coo.col, coo.data, strict=True)}


def pairs_of_mate(mate) -> set[tuple[int, int]]:
    """The pairs ``(u, mate[u])``, ``u < mate[u]``, after asserting each vertex is matched at most once, both ways."""
    mate = [int(x) for x in mate]
    for v, m in enumerate(mate):
        if m >= 0:
            assert m != v and mate[m] == v, f"mate[{v}]={m} but mate[{m}]={mate[m]}"
    return {(v, m) for v, m in enumerate(mate) if m > v}


def assert_matching_of(graph: WeightedGraph, mate, weight: float) -> None:
    edges = edge_weights(graph)
    pairs = pairs_of_mate(mate)
    outside = sorted(p for p in pairs if p not in edges)
    assert not outside, f"pairs that are not edges of the input: {outside}"
    assert weight == pytest.approx(math.fsum(edges[p] for p in pairs), rel=1e-12, abs=1e-12)


def assert_b_matching_of(graph: WeightedGraph, partners, b: int, weight: float) -> None:
    edges = edge_weights(graph)
    rows = [[int(x) for x in row if x >= 0] for row in np.asarray(partners)]
    assert len(rows) == graph.n
    for v, row in enumerate(rows):
        assert len(row) <= b and len(set(row)) == len(row), f"vertex {v} has partners {row}, b = {b}"
        for x in row:
            assert (v, x) in edges, f"vertex {v} lists partner {x}, not an edge of the input"
            assert v in rows[x], f"vertex {v} lists {x}, who does not list it back"
    pairs = {(v, x) for v, row in enumerate(rows) for x in row if v < x}
    assert weight == pytest.approx(math.fsum(edges[p] for p in pairs), rel=1e-12, abs=1e-12)


def assert_bipartite_matching_of(graph: BipartiteGraph, row_match, col_match) -> None:
    coo = graph.to_scipy().tocoo()
    entries = set(zip(coo.row.tolist(), coo.col.tolist(), strict=True))
    for r, c in enumerate(int(x) for x in row_match):
        if c >= 0:
            assert (r, c) in entries, f"row {r} matched to column {c}: not an entry of the matrix"
            assert int(col_match[c]) == r
    assert sum(1 for c in col_match if c >= 0) == sum(1 for c in row_match if c >= 0)


def assert_acceptable_marriage(instance: PreferenceInstance, wife, capacities=None) -> None:
    men, women = instance.men_prefs, instance.women_prefs
    husbands = [0] * instance.n_women
    for m, w in enumerate(int(x) for x in wife):
        if w >= 0:
            assert w in men[m] and m in women[w], f"man {m} and woman {w} do not both list each other"
            husbands[w] += 1
    caps = [1] * instance.n_women if capacities is None else capacities
    assert all(h <= c for h, c in zip(husbands, caps, strict=True)), f"husbands {husbands}, capacities {caps}"


def sparse_graph(n: int, density: float, seed: int) -> WeightedGraph:
    rng = np.random.default_rng(seed)
    u, v = np.triu_indices(n, 1)
    keep = rng.random(u.size) < density
    return WeightedGraph.from_edges(u[keep], v[keep], rng.integers(1, 9, int(keep.sum())).astype(float), n=n)


KARATE = WeightedGraph.from_matrix_market(example_path("karate"))
sparse_sim_graphs = weighted_graphs(max_vertices=9)
sparse_cpu_graphs = weighted_graphs(max_vertices=16)


# -- weighted matching ---------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@pytest.mark.parametrize("algorithm", WEIGHTED_ALGORITHMS)
@given(graph=sparse_cpu_graphs)
def test_weighted_cpu_pairs_are_edges(algorithm, graph):
    options = {"pad": True} if algorithm in ("roma", "rama") else {}
    if algorithm == "bsuitor":
        found = maximum_weight_matching(graph, "bsuitor", "cpu", b=2)
        assert_b_matching_of(graph, found.partners, 2, found.weight)
    else:
        found = maximum_weight_matching(graph, algorithm, "cpu", **options)
        assert_matching_of(graph, found.mate, found.weight)
    assert found.valid


@settings(max_examples=10, deadline=None)
@given(graph=sparse_cpu_graphs, b=st.integers(0, 3))
def test_sequential_references_pairs_are_edges(graph, b):
    for function in (reference_greedy.greedy, reference_suitor.suitor, reference_ld.locally_dominant,
                     reference_paths.path_growing, reference_paths.gpa):
        found = function(graph)
        assert_matching_of(graph, found.mate, found.weight)
    for function in (reference_b_suitor.greedy_b_matching, reference_b_suitor.b_suitor):
        found = function(graph, b)
        assert_b_matching_of(graph, found.partners, b, found.weight)


@settings(max_examples=6, deadline=None)
@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@pytest.mark.parametrize("options", [{"algorithm": "suitor"}, {"algorithm": "suitor", "variant": "syncnolb"},
                                     {"algorithm": "suitor", "variant": "synclb"},
                                     {"algorithm": "suitor", "variant": "hybrid", "vertices_per_warp": 2},
                                     {"algorithm": "suitor", "layout": "thread"}, {"algorithm": "ld"},
                                     {"algorithm": "bsuitor", "b": 2}],
                         ids=["suitor", "suitor-syncnolb", "suitor-synclb", "suitor-hybrid", "suitor-thread", "ld",
                              "bsuitor"])
@given(graph=sparse_sim_graphs)
def test_weighted_device_pairs_are_edges(backend, options, graph):
    options = dict(options)
    algorithm = options.pop("algorithm")
    found = maximum_weight_matching(graph, algorithm, backend, device=_device(backend), **options)
    if algorithm == "bsuitor":
        assert_b_matching_of(graph, found.partners, options["b"], found.weight)
    else:
        assert_matching_of(graph, found.mate, found.weight)
    assert found.valid


@settings(max_examples=4, deadline=None)
@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@given(graph=sparse_sim_graphs, b=st.integers(1, 3))
def test_gpu_b_suitor_pairs_are_edges(backend, graph, b):
    found = gpu_b_suitor.b_suitor(graph, b, device=_device(backend))
    assert_b_matching_of(graph, found.partners, b, found.weight)


@settings(max_examples=5, deadline=None)
@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@pytest.mark.parametrize("variant", ["block", "thread"])
@given(graph=weighted_graphs(max_vertices=8), start=st.sampled_from(ROMA_STARTS))
def test_roma_device_on_sparse_graphs(backend, variant, graph, start):
    found = maximum_weight_matching(graph, "roma", backend, device=_device(backend), variant=variant, mate=start,
                                    pad=True)
    assert_matching_of(graph, found.mate, found.weight)
    assert found.valid


@pytest.mark.parametrize("algorithm", ["roma", "rama"])
@pytest.mark.parametrize("start", ROMA_STARTS)
def test_roma_rama_cpu_on_karate_and_random_sparse_graphs(algorithm, start):
    """The reported case: on karate ROMA and RAMA paired 4 or 5 non-edges; now every pair is an edge, same weight."""
    for graph in (KARATE, sparse_graph(40, 0.08, 1), sparse_graph(41, 0.15, 2)):
        found = maximum_weight_matching(graph, algorithm, "cpu", mate=start, pad=graph.n % 2 == 1)
        assert_matching_of(graph, found.mate, found.weight)
        complete = getattr(reference_augmentation, algorithm)(graph.to_scipy().toarray(), start, pad=graph.n % 2 == 1)
        assert found.weight == complete.weight  # only zero-weight non-edges were dropped
        assert found.size + found.stats["dropped"] == int(np.count_nonzero(complete.mate >= 0)) // 2


@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@pytest.mark.parametrize("variant", ["block", "thread"])
def test_roma_device_on_karate(backend, variant):
    found = maximum_weight_matching(KARATE, "roma", backend, device=_device(backend), variant=variant)
    assert_matching_of(KARATE, found.mate, found.weight)
    assert found.stats["dropped"] > 0 and found.valid  # ROMA's perfect matching pairs non-edges; they are gone


@pytest.mark.parametrize("algorithm, backend", [("roma", "cpu"), ("roma", "sim"), ("rama", "cpu")])
def test_roma_on_a_graph_without_edges_matches_nothing(algorithm, backend):
    found = maximum_weight_matching(WeightedGraph.from_edges([], [], [], n=3), algorithm, backend, pad=True)
    assert found.mate.tolist() == [-1, -1, -1] and found.size == 0 and found.weight == 0.0 and found.valid


@pytest.mark.parametrize("algorithm", ["roma", "rama"])
def test_cli_on_a_matrix_without_entries_matches_nothing(algorithm, tmp_path):
    empty = tmp_path / "empty.mtx"
    empty.write_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 0\n")
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["match", str(empty), "--algorithm", algorithm, "--backend", "cpu", "--json"])
    report = json.loads(out.getvalue())
    assert status == 0 and report["valid"]
    assert report["size"] == 0 and report["matching"] == [-1, -1, -1] and report["weight"] == 0.0


def test_cli_roma_on_karate_returns_only_edges():
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["match", "--example", "karate", "--algorithm", "roma", "--backend", "cpu", "--json"])
    report = json.loads(out.getvalue())
    assert status == 0 and report["valid"] and report["certified"]
    assert_matching_of(KARATE, report["matching"], report["weight"])
    assert report["size"] == len(pairs_of_mate(report["matching"]))


# -- bipartite matching --------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@pytest.mark.parametrize("algorithm", ["hk", "pfp", "pr"])
@given(graph=bipartite_graphs(max_rows=12, max_cols=12))
def test_bipartite_cpu_pairs_are_entries(algorithm, graph):
    found = maximum_bipartite_matching(graph, algorithm, "cpu")
    assert_bipartite_matching_of(graph, found.row_match, found.col_match)
    assert found.valid and found.certified


@settings(max_examples=6, deadline=None)
@pytest.mark.parametrize("backend", DEVICE_BACKENDS)
@pytest.mark.parametrize("algorithm", ["gpr", "apfb", "apsb"])
@given(graph=bipartite_graphs(max_rows=8, max_cols=8))
def test_bipartite_device_pairs_are_entries(backend, algorithm, graph):
    found = maximum_bipartite_matching(graph, algorithm, backend, device=_device(backend))
    assert_bipartite_matching_of(graph, found.row_match, found.col_match)
    assert found.valid


# -- stable marriage -----------------------------------------------------------------------------------


STABLE_RUNS = [_on(backend, algorithm) for backend in ("cpu", "sim", "numba", "cupy") for algorithm in STABLE_ALGORITHMS
               if backend == "cpu" or algorithm not in ("gs", "mw")]  # gs and mw are sequential: cpu only


@settings(max_examples=8, deadline=None)
@pytest.mark.parametrize("backend, algorithm", STABLE_RUNS)
@given(instance=preference_instances(max_n=6), capacity=st.integers(1, 2))
def test_stable_pairs_are_acceptable(backend, algorithm, instance, capacity):
    device = None if backend == "cpu" else _device(backend)
    found = stable_marriage(instance, algorithm, backend, capacities=capacity, device=device)
    assert_acceptable_marriage(instance, found.wife, [capacity] * instance.n_women)
    assert found.valid and found.stable


# -- the validator -------------------------------------------------------------------------------------


PATH = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 2.0])


@pytest.mark.parametrize("mate, weight, fault", [
    ([2, -1, 0, -1], 0.0, "(0, 2) is not an edge"),    # a non-edge
    ([1, 2, 1, -1], 4.0, "not symmetric"),             # vertex 1 in two pairs
    ([0, -1, -1, -1], 0.0, "matched to itself"),
    ([-1, 2, 1, -1], 5.0, "reported as 5.0"),           # the pairs weigh 3.0 in the input
], ids=["non-edge", "twice", "self", "weight"])
def test_validator_refuses_a_bad_weighted_result(mate, weight, fault):
    bad = WeightedMatching(np.array(mate), weight, "hand", "cpu", {}, PATH)
    assert not bad.valid and fault in bad.problem
    with pytest.raises(GpusimInternalError, match="hand on cpu returned an invalid result"):
        bad.validate()


def test_validator_refuses_bad_b_matchings():
    star = WeightedGraph.from_edges([0, 0, 0], [1, 2, 3], [1.0, 1.0, 1.0])
    over = WeightedMatching(np.full(4, -1), 3.0, "hand", "cpu", {}, star,
                            partners=[[1, 2, 3], [0, -1, -1], [0, -1, -1], [0, -1, -1]], b=2)
    assert not over.valid and "3 partners but b[0]=2" in over.problem
    non_edge = WeightedMatching(np.full(4, -1), 1.0, "hand", "cpu", {}, star,
                                partners=[[-1, -1], [2, -1], [1, -1], [-1, -1]], b=2)
    assert not non_edge.valid and "not an edge" in non_edge.problem


def test_validator_refuses_bipartite_and_stable_non_pairs():
    graph = BipartiteGraph.from_edges([0, 1], [0, 1])
    bad = BipartiteMatching(graph, np.array([1, -1]), np.array([-1, 0]), "hand", "cpu")
    assert not bad.valid and not bad.certified and "no edge" in bad.problem
    instance = PreferenceInstance([[0], [1]], [[0], [1]])
    marriage = StableMatching(instance, np.array([1, 0]), "hand", "cpu")
    assert not marriage.valid and not marriage.stable and "do not rank each other" in marriage.problem


@settings(max_examples=30, deadline=None)
@given(graph=weighted_graphs(max_vertices=12), data=st.data())
def test_validator_weight_is_the_sum_of_input_weights(graph, data):
    """For any matching drawn from the graph's edges, the validator's weight is the oracle's sum."""
    edges = edge_weights(graph)
    mate = [-1] * graph.n
    for u, v in data.draw(st.permutations(sorted(p for p in edges if p[0] < p[1]))):
        if mate[u] < 0 and mate[v] < 0:
            mate[u], mate[v] = v, u
    pairs = pairs_of_mate(mate)
    assert check_weighted_matching(graph, mate) == math.fsum(edges[p] for p in pairs)
    if graph.n_edges < graph.n * (graph.n - 1) // 2:  # a non-edge exists: pairing it is refused
        u, v = next((u, v) for u in range(graph.n) for v in range(u + 1, graph.n) if (u, v) not in edges)
        lonely = [-1] * graph.n
        lonely[u], lonely[v] = v, u
        with pytest.raises(InvalidArgument, match="not an edge"):
            check_weighted_matching(graph, lonely)


def test_roma_on_a_dense_matrix_is_a_matching_of_the_complete_graph():
    w = np.array([[0, 0, 5, 0], [0, 0, 0, 0], [5, 0, 0, 0], [0, 0, 0, 0]], float)
    found = roma(w, "i,i+1", backend="sim")
    assert found.mate.tolist() == [2, 3, 0, 1] and found.valid  # (1, 3) weighs 0: an edge of the complete graph


# -- memory guards -------------------------------------------------------------------------------------


def test_a_200000_vertex_roma_is_refused_at_once():
    graph = WeightedGraph.from_edges(np.arange(199_999), np.arange(1, 200_000), np.ones(199_999))
    start = time.perf_counter()
    with pytest.raises(InvalidArgument) as refused:
        maximum_weight_matching(graph, "roma", "cpu", max_memory=2**34)
    assert time.perf_counter() - start < 1.0
    message = str(refused.value)
    assert "200000 x 200000" in message and "596 GiB" in message and "16 GiB" in message
    assert "max_memory" in message and "suitor" in message


@pytest.mark.parametrize("call", [
    lambda: maximum_weight_matching(KARATE, "rama", "cpu", max_memory=1000),
    lambda: maximum_weight_matching(KARATE, "roma", "sim", max_memory=1000),
    lambda: roma(np.zeros((40, 40)), backend="sim", max_memory=1000),
    lambda: reference_augmentation.roma(np.zeros((40, 40)), "i,i+1", max_memory=1000),
    lambda: start_matchings.start_matching(40, "gpa", np.zeros((40, 40)), max_memory=1000),
    lambda: maximum_weight_matching(KARATE, "bsuitor", "cpu", b=40, max_memory=1000),
    lambda: gpu_b_suitor.b_suitor(KARATE, 40, backend="sim", max_memory=1000),
], ids=["rama", "roma-graph", "roma-gpu-dense", "roma-cpu-dense", "start-gpa", "bsuitor-table", "gpu-bsuitor-table"])
def test_every_dense_entry_point_has_a_memory_limit(call):
    with pytest.raises(InvalidArgument, match=r"more than the limit of .*max_memory"):
        call()


def test_the_complete_graph_generators_have_a_memory_limit():
    from gpusim.types.complete_graphs import exponential, geometric, uniform

    for generate in (uniform, exponential, geometric):
        with pytest.raises(InvalidArgument, match="200000 x 200000.*gpusim.types.generators"):
            generate(200_000, seed=0)
    assert uniform(4, seed=0, max_memory=10_000).shape == (4, 4)
