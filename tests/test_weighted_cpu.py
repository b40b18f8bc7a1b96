"""The sequential weighted-matching references: valid, Suitor == LD == Greedy, b-Suitor == greedy
b-matching, half-approximations against NetworkX, and RAMA/ROMA on complete graphs."""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from gpusim.algorithms.weighted.reference_augmentation import rama, roma
from gpusim.algorithms.weighted.reference_b_suitor import b_suitor, greedy_b_matching
from gpusim.algorithms.weighted.reference_exact import exact_maximum_weight
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.algorithms.weighted.reference_ld import locally_dominant
from gpusim.algorithms.weighted.reference_paths import gpa, path_growing
from gpusim.algorithms.weighted.reference_suitor import suitor
from gpusim.algorithms.weighted.start_matchings import START_KINDS, start_matching
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import weighted_graphs
from gpusim.types.complete_graphs import exponential, gap_to_optimum, geometric, matching_weight, uniform
from gpusim.types.graphs import WeightedGraph

DATA = Path(__file__).resolve().parent / "data" / "matrices"
HALF_APPROXIMATIONS = {"greedy": greedy, "suitor": suitor, "locally_dominant": locally_dominant,
                       "path_growing": path_growing, "gpa": gpa}
GENERATORS = {"uniform": uniform, "exponential": exponential, "geometric": geometric}


# ----------------------------------------------------------------------------------------------
# Independent checks


def edge_weights(graph: WeightedGraph) -> dict[tuple[int, int], float]:
    u, v, w = graph.edges()
    return {(a, b): x for a, b, x in zip(u.tolist(), v.tolist(), w.tolist(), strict=True)}


def assert_valid(graph: WeightedGraph, result) -> None:
    """A matching of ``graph``: int32, symmetric, every pair a positive-weight edge, weight and size right."""
    mate = result.mate
    assert mate.dtype == np.int32 and mate.shape == (graph.n,)
    assert np.all((mate >= -1) & (mate < graph.n))
    weights = edge_weights(graph)
    pairs = []
    for v, m in enumerate(mate.tolist()):
        if m >= 0:
            assert m != v and mate[m] == v, f"mate is not symmetric at {v}"
            if v < m:
                assert (v, m) in weights, f"({v}, {m}) is not an edge"
                assert weights[(v, m)] > 0, f"zero-weight edge ({v}, {m}) matched"
                pairs.append(weights[(v, m)])
    assert result.stats["size"] == len(pairs)
    assert result.weight == math.fsum(pairs)


def optimum(graph: WeightedGraph) -> float:
    """NetworkX's exact maximum weight, computed here without the module under test."""
    G = graph.to_networkx()
    return math.fsum(G[a][b]["weight"] for a, b in nx.max_weight_matching(G))


def assert_valid_b(graph: WeightedGraph, b, result) -> None:
    """A b-matching: rows sorted then -1 padded, symmetric, at most b[v] partners, positive edges."""
    partners = result.partners
    bb = np.full(graph.n, b) if np.isscalar(b) else np.asarray(b)
    deg = np.diff(graph.ptr)
    width = int(np.max(np.minimum(bb, deg))) if graph.n else 0
    assert partners.dtype == np.int32 and partners.shape == (graph.n, width)
    weights = edge_weights(graph)
    chosen = []
    for v in range(graph.n):
        row = partners[v].tolist()
        real = [x for x in row if x != -1]
        assert row == real + [-1] * (width - len(real)) and real == sorted(set(real))
        assert len(real) <= bb[v]
        for x in real:
            assert v in partners[x].tolist(), f"{v} lists {x} but not the other way"
            if v < x:
                assert weights.get((v, x), 0.0) > 0
                chosen.append(weights[(v, x)])
    assert result.stats["size"] == len(chosen) and result.weight == math.fsum(chosen)


def assert_perfect(mate: np.ndarray, n: int, padded: bool = False) -> None:
    assert mate.dtype == np.int32 and mate.shape == (n,)
    free = np.flatnonzero(mate == -1)
    assert free.size == (1 if padded else 0)
    matched = np.flatnonzero(mate >= 0)
    assert np.all(mate[matched] != matched) and np.array_equal(mate[mate[matched]], matched)


def positive_flips(w: np.ndarray, mate: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Brute force: every pair of matched edges whose 4-cycle flip gains, by plain comparison of sums."""
    edges = [(u, int(m)) for u, m in enumerate(mate.tolist()) if u < m]
    found = []
    for i, (a, b) in enumerate(edges):
        for c, d in edges[i + 1:]:
            now = w[a, b] + w[c, d]
            if w[a, c] + w[b, d] > now or w[a, d] + w[b, c] > now:
                found.append((a, b, c, d))
    return found


# ----------------------------------------------------------------------------------------------
# General graphs: Greedy, Suitor, LD, PGA', GPA


def check_half_approximations(graph: WeightedGraph, exact: bool = True) -> None:
    results = {name: f(graph) for name, f in HALF_APPROXIMATIONS.items()}
    for result in results.values():
        assert_valid(graph, result)
    reference = results["greedy"].mate
    for name in ("suitor", "locally_dominant"):
        assert np.array_equal(results[name].mate, reference), name
        assert results[name].weight == results["greedy"].weight
    u, v, w = graph.edges()
    assert not np.any((w > 0) & (reference[u] == -1) & (reference[v] == -1)), "greedy is not maximal"
    if exact:
        opt = optimum(graph)
        if graph.n <= 64:  # the module's own oracle agrees (once is enough on the big files)
            oracle = exact_maximum_weight(graph)
            assert oracle.weight == pytest.approx(opt, rel=1e-12, abs=1e-12)
        for name, result in results.items():
            assert 2 * result.weight >= opt * (1 - 1e-12), (name, result.weight, opt)


@given(weighted_graphs(max_vertices=12))
def test_half_approximations_with_ties(graph):
    check_half_approximations(graph)


@given(weighted_graphs(max_vertices=12, allow_ties=False))
def test_half_approximations_with_distinct_weights(graph):
    check_half_approximations(graph)


@given(weighted_graphs(max_vertices=12, weights=st.sampled_from([0.0, 0.0, 1.0, 2.0])))
def test_zero_weight_edges_are_never_matched(graph):
    check_half_approximations(graph)
    assert_valid_b(graph, 2, b_suitor(graph, 2))


def test_tie_rule_on_a_triangle_and_a_star():
    triangle = WeightedGraph.from_edges([0, 1, 0], [1, 2, 2], [1.0, 1.0, 1.0])
    for f in (greedy, suitor, locally_dominant):
        assert f(triangle).mate.tolist() == [-1, 2, 1]  # key (1, 2, 1) of {1, 2} is the largest
    star = WeightedGraph.from_edges([0, 0, 0], [1, 2, 3], [5.0, 5.0, 5.0])
    for f in (greedy, suitor, locally_dominant):
        assert f(star).mate.tolist() == [3, -1, -1, 0]  # the centre takes its largest neighbour


# ----------------------------------------------------------------------------------------------
# b-matching


@st.composite
def graphs_and_b(draw):
    graph = draw(weighted_graphs(max_vertices=12))
    if draw(st.booleans()):
        return graph, draw(st.integers(0, 4))
    return graph, np.array(draw(st.lists(st.integers(0, 3), min_size=graph.n, max_size=graph.n)), np.int64)


@given(graphs_and_b())
def test_b_suitor_equals_greedy_b_matching(case):
    graph, b = case
    greedy_result = greedy_b_matching(graph, b)
    suitor_result = b_suitor(graph, b)
    assert_valid_b(graph, b, greedy_result)
    assert_valid_b(graph, b, suitor_result)
    assert np.array_equal(greedy_result.partners, suitor_result.partners)
    assert greedy_result.weight == suitor_result.weight


@given(weighted_graphs(max_vertices=12))
def test_one_matching_is_the_greedy_matching(graph):
    partners = b_suitor(graph, 1).partners
    mate = partners[:, 0] if partners.shape[1] else np.full(graph.n, -1)
    assert np.array_equal(mate, greedy(graph).mate)


# ----------------------------------------------------------------------------------------------
# The bundled symmetric matrices


def _symmetric_files() -> list[Path]:
    return sorted(p for p in DATA.glob("*.mtx") if "symmetric" in p.open().readline())


@pytest.mark.parametrize("path", _symmetric_files(), ids=lambda p: p.stem)
def test_bundled_symmetric_matrices(path):
    graph = WeightedGraph.from_matrix_market(path)
    # NetworkX's pure-Python blossom takes about 3 s at 2700 edges; skip the exact check above 4000
    check_half_approximations(graph, exact=graph.n_edges <= 4000)
    for b in (2, np.arange(graph.n) % 4):
        a, c = greedy_b_matching(graph, b), b_suitor(graph, b)
        assert np.array_equal(a.partners, c.partners) and a.weight == c.weight
    assert_valid_b(graph, 2, b_suitor(graph, 2))


# ----------------------------------------------------------------------------------------------
# Complete graphs: generators, start matchings, RAMA and ROMA


# seeds: 0..SEED_MAX (2**32 - 1), the one seed limit of gpusim.types.arguments
@given(st.sampled_from(sorted(GENERATORS)), st.integers(0, 40), st.integers(0, 2**32 - 1))
def test_generators_are_seeded_symmetric_and_in_range(name, n, seed):
    w = GENERATORS[name](n, seed)
    assert w.dtype == np.float64 and w.shape == (n, n) and w.flags.c_contiguous
    assert np.array_equal(w, w.T) and np.all(np.diag(w) == 0) and np.all(np.isfinite(w)) and np.all(w >= 0)
    assert np.array_equal(w, GENERATORS[name](n, seed))
    if name == "uniform":
        assert np.all(w < 1)
    if name == "geometric":
        assert np.all(w < math.sqrt(2))
        # distances: the triangle inequality holds
        assert np.all(w[:, None, :] <= w[:, :, None] + w[None, :, :] + 1e-12)


def test_generator_distributions():
    w = exponential(300, seed=3)
    upper = w[np.triu_indices(300, 1)]
    assert abs(upper.mean() - 1 / 3.5) < 0.01
    assert abs(exponential(300, seed=3, lam=1.0)[np.triu_indices(300, 1)].mean() - 1.0) < 0.03
    assert abs(uniform(300, seed=3)[np.triu_indices(300, 1)].mean() - 0.5) < 0.01
    assert not np.array_equal(uniform(5, seed=1), uniform(5, seed=2))


@given(st.integers(0, 10).map(lambda k: 2 * k), st.sampled_from(START_KINDS), st.integers(0, 1000))
def test_start_matchings_are_perfect(n, kind, seed):
    w = uniform(n, seed)
    mate = start_matching(n, kind, w, seed=seed)
    assert_perfect(mate, n)
    if kind == "greedy":
        g = WeightedGraph.from_edges(*np.triu_indices(n, 1), w[np.triu_indices(n, 1)], n)
        assert np.array_equal(mate, greedy(g).mate)  # positive weights: greedy is already perfect


@st.composite
def complete_instances(draw):
    n = draw(st.integers(0, 12))
    pad = n % 2 == 1
    name = draw(st.sampled_from(sorted(GENERATORS) + ["integers"]))
    seed = draw(st.integers(0, 2**16))
    if name == "integers":  # small integer weights: many exact ties and zero-gain flips
        rng = np.random.default_rng(seed)
        w = np.triu(rng.integers(0, 4, (n, n)), 1).astype(float)
        w = w + w.T
    else:
        w = GENERATORS[name](n, seed)
    start = draw(st.sampled_from(START_KINDS + ("array",)))
    if start == "array":  # a random partial matching, completed by the algorithm
        perm = np.random.default_rng(seed).permutation(n)
        k = draw(st.integers(0, n // 2))
        mate = np.full(n, -1)
        mate[perm[: 2 * k: 2]] = perm[1: 2 * k: 2]
        mate[perm[1: 2 * k: 2]] = perm[: 2 * k: 2]
        start = mate
    return w, start, pad, seed


@given(complete_instances(), st.sampled_from(["rama", "roma", "roma_fixed"]), st.sampled_from([0.0, 1e-5]))
def test_augmentation_converges_to_a_perfect_local_optimum(case, algorithm, threshold):
    w, start, pad, seed = case
    n = w.shape[0]
    before = None if isinstance(start, str) else start.copy()
    if algorithm == "rama":
        result = rama(w, start, threshold=threshold, pad=pad, seed=seed)
    else:
        order = "fixed" if algorithm == "roma_fixed" else "random"
        result = roma(w, start, threshold=threshold, pad=pad, seed=seed, order=order)
    if before is not None:
        assert np.array_equal(start, before), "the start matching was modified"
    stats = result.stats
    assert_perfect(result.mate, n, padded=pad)
    assert stats["converged"] and stats["padded"] == pad
    phase_weights, swaps = stats["phase_weights"], stats["phase_swaps"]
    assert len(phase_weights) == len(swaps) + 1 == stats["phases"] + 1
    assert all(a <= b for a, b in zip(phase_weights, phase_weights[1:], strict=False)), phase_weights
    if algorithm != "rama":
        assert all(s > 0 for s in swaps[:-1]), swaps  # a quiet ROMA phase ends the run
    assert not swaps or swaps[-1] == 0
    mate = result.mate
    full = mate if not pad else np.where(mate == -1, n, mate)
    assert result.weight == phase_weights[-1] == matching_weight(w, mate)
    if threshold == 0.0:
        padded = np.pad(w, ((0, 1), (0, 1))) if pad else w
        if pad:
            full = np.append(full, int(np.flatnonzero(mate == -1)[0]))
        assert positive_flips(padded, full) == []
        if n:
            assert gap_to_optimum(w, mate) <= 0.5 + 1e-12  # 4-cycle local optima: a 1/2-approximation


@given(complete_instances(), st.integers(0, 3))
def test_max_phases_stops_early(case, max_phases):
    w, start, pad, seed = case
    result = roma(w, start, threshold=0.0, max_phases=max_phases, pad=pad, seed=seed)
    assert result.stats["phases"] <= max_phases
    assert result.stats["converged"] or result.stats["phases"] == max_phases
    if max_phases == 0 and w.shape[0]:
        assert result.stats["phase_weights"] == [result.weight]


def test_roma_on_a_thesis_sized_graph_improves_and_is_deterministic():
    w = geometric(256, seed=5)
    first = roma(w, "i,i+1", seed=1)
    again = roma(w, "i,i+1", seed=1)
    assert np.array_equal(first.mate, again.mate) and first.stats == again.stats
    assert first.weight > 1.3 * first.stats["phase_weights"][0]  # thesis Table 5.3: geometric gains least
    from_gpa = roma(w, "gpa", seed=1)
    assert from_gpa.stats["phase_weights"][0] > first.stats["phase_weights"][0]
    r = rama(uniform(64, seed=2), "i,i+n/2", threshold=0.0, seed=3)
    assert r.stats["converged"] and positive_flips(uniform(64, seed=2), r.mate) == []


def test_four_cycle_local_optimum_can_be_half_the_optimum():
    w = np.zeros((6, 6))
    for a, b, x in [(0, 1, 1), (2, 3, 1), (4, 5, 1), (1, 2, 2), (3, 4, 2), (5, 0, 2)]:
        w[a, b] = w[b, a] = x
    result = roma(w, [1, 0, 3, 2, 5, 4], threshold=0.0)
    assert result.weight == 3.0 and result.stats["phase_swaps"] == [0]
    assert gap_to_optimum(w, result.mate) == 0.5


@given(st.integers(0, 9), st.integers(0, 100))
def test_gap_to_optimum(n, seed):
    w = uniform(n, seed)
    m = n - n % 2
    mate = np.full(n, -1)
    if m:
        mate[:m] = start_matching(m, "i,i+1")
    gap = gap_to_optimum(w, mate)
    assert -1e-12 <= gap <= 1
    G = nx.complete_graph(n)
    for a, b in G.edges:
        G[a][b]["weight"] = w[a, b]
    opt = math.fsum(w[a, b] for a, b in nx.max_weight_matching(G))
    assert gap == pytest.approx((opt - matching_weight(w, mate)) / opt if opt else 0.0, abs=1e-12)


# ----------------------------------------------------------------------------------------------
# Argument validation, one table for every public function

G3 = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 2.0])
W4 = uniform(4, 0)
NOT_SYMMETRIC = W4.copy()
NOT_SYMMETRIC[0, 1] += 1
NEGATIVE = W4.copy()
NEGATIVE[0, 1] = NEGATIVE[1, 0] = -1
WITH_NAN = W4.copy()
WITH_NAN[2, 3] = WITH_NAN[3, 2] = np.nan
WITH_INF = W4.copy()
WITH_INF[2, 3] = WITH_INF[3, 2] = np.inf

BAD_CALLS = [
    # (call, exception, words the message must contain)
    (lambda: greedy("graph"), InvalidArgumentType, "graph must be"),
    (lambda: suitor(None), InvalidArgumentType, "WeightedGraph"),
    (lambda: locally_dominant(nx.Graph()), InvalidArgumentType, "WeightedGraph"),
    (lambda: path_growing(np.zeros((2, 2))), InvalidArgumentType, "WeightedGraph"),
    (lambda: gpa([]), InvalidArgumentType, "WeightedGraph"),
    (lambda: exact_maximum_weight(W4), InvalidArgumentType, "WeightedGraph"),
    (lambda: b_suitor(G3, -1), InvalidArgument, "b=-1"),
    (lambda: b_suitor(G3, True), InvalidArgumentType, "bool"),
    (lambda: b_suitor(G3, 1.5), InvalidArgumentType, "integers"),
    (lambda: greedy_b_matching(G3, [1, 1]), InvalidArgument, "2 entries"),
    (lambda: greedy_b_matching(G3, [1, -2, 1]), InvalidArgument, "b[1]=-2"),
    (lambda: greedy_b_matching(G3, [[1, 1, 1]]), InvalidArgument, "shape"),
    (lambda: greedy_b_matching(G3, [1.0, 1.0, 1.0]), InvalidArgumentType, "dtype float64"),
    (lambda: roma(NEGATIVE, "i,i+1"), InvalidArgument, "is negative"),
    (lambda: roma(WITH_NAN, "i,i+1"), InvalidArgument, "weights[2, 3]=nan is not finite"),
    (lambda: rama(WITH_INF, "i,i+1"), InvalidArgument, "not finite"),
    (lambda: roma(NOT_SYMMETRIC, "i,i+1"), InvalidArgument, "not symmetric"),
    (lambda: roma(np.zeros((2, 3)), "i,i+1"), InvalidArgument, "square"),
    (lambda: roma(np.zeros(4), "i,i+1"), InvalidArgument, "square"),
    (lambda: roma(np.zeros((2, 2), complex), "i,i+1"), InvalidArgumentType, "complex"),
    (lambda: roma(np.array([["a", "b"], ["c", "d"]]), "i,i+1"), InvalidArgumentType, "real numbers"),
    (lambda: rama(uniform(3, 0), "i,i+1"), InvalidArgument, "pad=True"),
    (lambda: roma(W4, "i,i+1", pad="yes"), InvalidArgumentType, "pad must be a bool"),
    (lambda: roma(W4, "bogus"), InvalidArgument, "mate='bogus'"),
    (lambda: roma(W4, [1, 0, 3]), InvalidArgument, "3 entries"),
    (lambda: roma(W4, [1, 0, 3, 1]), InvalidArgument, "not symmetric"),
    (lambda: roma(W4, [0, -1, -1, -1]), InvalidArgument, "itself"),
    (lambda: roma(W4, [1, 0, 4, -1]), InvalidArgument, "mate[2]=4"),
    (lambda: roma(W4, [1.0, 0.0, 3.0, 2.0]), InvalidArgumentType, "integer"),
    (lambda: roma(W4, "i,i+1", threshold=-1.0), InvalidArgument, "threshold=-1.0"),
    (lambda: roma(W4, "i,i+1", threshold=float("nan")), InvalidArgument, "threshold=nan"),
    (lambda: roma(W4, "i,i+1", threshold="0"), InvalidArgumentType, "threshold"),
    (lambda: roma(W4, "i,i+1", max_phases=-1), InvalidArgument, "max_phases=-1"),
    (lambda: roma(W4, "i,i+1", max_phases=2.0), InvalidArgumentType, "max_phases"),
    (lambda: rama(W4, "i,i+1", seed=-3), InvalidArgument, "seed=-3"),
    (lambda: roma(W4, "i,i+1", order="sorted"), InvalidArgument, "order='sorted'"),
    (lambda: start_matching(5, "i,i+1"), InvalidArgument, "n=5 is odd"),
    (lambda: start_matching(4, "random"), InvalidArgument, "kind='random'"),
    (lambda: start_matching(4, "greedy"), InvalidArgument, "needs the weights"),
    (lambda: start_matching(6, "gpa", W4), InvalidArgument, "but n=6"),
    (lambda: start_matching(-2, "i,i+1"), InvalidArgument, "n=-2"),
    (lambda: uniform(-1, 0), InvalidArgument, "n=-1"),
    (lambda: uniform(3.0, 0), InvalidArgumentType, "n must be an integer"),
    (lambda: geometric(3, None), InvalidArgumentType, "seed must be a non-negative integer"),
    (lambda: geometric(3, -1), InvalidArgument, "seed=-1"),
    (lambda: exponential(3, 0, lam=0.0), InvalidArgument, "lam=0.0"),
    (lambda: exponential(3, 0, lam=float("inf")), InvalidArgument, "lam=inf"),
    (lambda: exponential(3, 0, lam="3.5"), InvalidArgumentType, "lam must be a real number"),
    (lambda: gap_to_optimum(NOT_SYMMETRIC, [1, 0, 3, 2]), InvalidArgument, "not symmetric"),
    (lambda: gap_to_optimum(W4, [1, 0, 3]), InvalidArgument, "3 entries"),
    (lambda: gap_to_optimum(sp.csr_array(W4), [1, 0, 3, 2]), InvalidArgumentType, "sparse"),
    (lambda: matching_weight(W4, [2, 0, 3, 2]), InvalidArgument, "not symmetric"),
]


@pytest.mark.parametrize("call, exception, words", BAD_CALLS, ids=[f"bad{i}" for i in range(len(BAD_CALLS))])
def test_bad_arguments_are_refused_by_name(call, exception, words):
    with pytest.raises(exception) as info:
        call()
    assert words in str(info.value)
