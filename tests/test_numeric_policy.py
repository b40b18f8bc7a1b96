"""The numeric policy at the edges of float64: weights near 1e308, 1e-300, subnormals, ties and zeros.

Every weighted algorithm, b-Suitor and Louvain run on graphs whose weights are drawn at an extreme scale
(``gpusim.testing.strategies.extreme_weights``) and are checked against independent oracles: NetworkX's
exact ``max_weight_matching`` (on the weights divided by the scale, a power-of-two copy where possible)
with the weights compared as exact fractions, and NetworkX's modularity.  A graph whose matchings could
weigh past the largest double is refused before the work, and the refusal is checked exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusim.algorithms.louvain import LouvainGraph, louvain
from gpusim.algorithms.weighted import maximum_weight_matching
from gpusim.errors import InvalidArgument
from gpusim.testing.strategies import extreme_weights, weighted_graphs
from gpusim.types.graphs import WeightedGraph
from gpusim.types.numeric import LARGEST, weight_sum

FAST = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
HALF_APPROXIMATIONS = ("suitor", "ld", "greedy", "gpa", "pga", "roma", "rama")


@st.composite
def extreme_graphs(draw, max_vertices: int = 8):
    scale, weights = draw(extreme_weights(max_vertices))
    return scale, draw(weighted_graphs(max_vertices=max_vertices, weights=weights))


def exact_optimum(graph: WeightedGraph) -> Fraction:
    """NetworkX's maximum-weight matching on exact integers (each weight's fraction times a common power of
    two), its weight as an exact fraction: independent of every float sum in gpusim."""
    u, v, w = graph.edges()
    fractions = [Fraction(x) for x in w.tolist()]
    denominator = max((f.denominator for f in fractions), default=1)
    G = nx.Graph()
    G.add_weighted_edges_from((a, b, int(f * denominator)) for a, b, f in zip(u.tolist(), v.tolist(), fractions,
                                                                               strict=True) if f > 0)
    return sum((Fraction(G[a][b]["weight"], denominator) for a, b in nx.max_weight_matching(G)), Fraction(0))


def exact_weight(graph: WeightedGraph, mate: np.ndarray) -> Fraction:
    u, v, w = graph.edges()
    weight = dict(zip(zip(u.tolist(), v.tolist(), strict=True), w.tolist(), strict=True))
    return sum((Fraction(weight[(a, int(mate[a]))]) for a in range(graph.n) if mate[a] > a), Fraction(0))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=50),
       st.integers(0, 3), st.integers(1, 3000))
def test_the_compiled_sum_of_many_values_is_exactly_rounded(values, spread, copies):
    """From 65,536 values :func:`weight_sum` adds integers in a compiled pass (:mod:`gpusim.types.exact_sum`): the
    exact sum (``Fraction``), rounded once, whatever the exponents, the signs and the cancellations."""
    many = np.tile(np.ldexp(np.array(values), -300 * spread), max(copies, -(-65_536 // len(values))))  # subnormals
    counts = dict(zip(*np.unique(many, return_counts=True), strict=True))
    exact = sum((Fraction(float(x)) * int(c) for x, c in counts.items()), Fraction(0))
    try:
        expected = float(exact)  # rounded to nearest, ties to even
    except OverflowError:
        expected = math.inf if exact > 0 else -math.inf
    assert weight_sum(many) == expected


def test_weight_sum_never_raises_and_is_exact():
    assert weight_sum([1.5e308, 1.0, 1.5e308]) == math.inf
    assert weight_sum([1.5e308, -1.5e308, 1.0]) == 1.0
    assert weight_sum([5e-324] * 3) == 1.5e-323
    assert weight_sum([1e-300] * 10) == float(sum(Fraction(1e-300) for _ in range(10)))


@pytest.mark.parametrize("algorithm", HALF_APPROXIMATIONS + ("bsuitor",))
@FAST
@given(extreme_graphs())
def test_every_weighted_algorithm_at_extreme_scales(algorithm, drawn):
    scale, graph = drawn
    extra = {"pad": True} if algorithm in ("roma", "rama") and graph.n % 2 else {}
    result = maximum_weight_matching(graph, algorithm, "cpu", **extra)
    assert result.valid, result.problem
    mate = result.mate if algorithm != "bsuitor" else result.partners[:, 0] if result.partners.shape[1] else \
        np.full(graph.n, -1)
    weight = exact_weight(graph, mate)
    assert math.isfinite(result.weight) and abs(Fraction(result.weight) - weight) <= Fraction(weight) * 2**-50
    optimum = exact_optimum(graph)
    assert 2 * weight >= optimum * (1 - Fraction(1, 2**40)), (scale, float(weight), float(optimum))


@FAST
@given(extreme_graphs(), st.integers(1, 3))
def test_b_suitor_at_extreme_scales_equals_the_sequential_greedy_b_matching(drawn, b):
    from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching

    scale, graph = drawn
    result = maximum_weight_matching(graph, "bsuitor", "cpu", b=b)
    assert result.valid, result.problem
    reference = greedy_b_matching(graph, b)
    assert np.array_equal(result.partners, reference.partners)
    chosen = [(v, int(p)) for v in range(graph.n) for p in result.partners[v] if p > v]
    u, w_v, w = graph.edges()
    weight = dict(zip(zip(u.tolist(), w_v.tolist(), strict=True), w.tolist(), strict=True))
    exact = sum((Fraction(weight[pair]) for pair in chosen), Fraction(0))
    assert abs(Fraction(result.weight) - exact) <= exact * 2**-50


@FAST
@given(extreme_graphs(max_vertices=6), st.sampled_from(["sim"]))
def test_suitor_on_the_simulator_at_extreme_scales(drawn, backend):
    scale, graph = drawn
    result = maximum_weight_matching(graph, "suitor", backend)
    assert result.valid, result.problem
    assert 2 * exact_weight(graph, result.mate) >= exact_optimum(graph)


def test_a_matching_past_the_largest_double_is_refused_before_the_work():
    graph = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.5e308, 1.0, 1.5e308])
    for algorithm in ("suitor", "greedy", "roma", "bsuitor"):
        with pytest.raises(InvalidArgument, match=r"too large.*0-1 with weight 1\.5e\+308"):
            maximum_weight_matching(graph, algorithm, "cpu")
    # exactly at the edge: half of the largest on each of two disjoint edges fits
    ok = WeightedGraph.from_edges([0, 2], [1, 3], [LARGEST / 2, LARGEST / 2])
    assert maximum_weight_matching(ok, "suitor", "cpu").weight == LARGEST


@pytest.mark.parametrize("scale", [1e300, 1e-300, 1e-200, 2.0**-1060, 1e307])
@pytest.mark.parametrize("algorithm", ["louvain", "blondel"])
def test_louvain_modularity_does_not_depend_on_the_scale(scale, algorithm):
    G = nx.karate_club_graph()
    u, v = (np.array(x) for x in zip(*G.edges(), strict=True))
    w = np.array([G[a][b].get("weight", 1) for a, b in G.edges()], float)
    base = louvain(LouvainGraph.from_edges(u, v, w), algorithm=algorithm, backend="cpu")
    scaled = louvain(LouvainGraph.from_edges(u, v, w * scale), algorithm=algorithm, backend="cpu")
    assert scaled.valid and base.valid, scaled.problem
    expected = nx.community.modularity(G, scaled.communities(), weight="weight")  # the weights of G: unscaled
    assert scaled.modularity == pytest.approx(expected, rel=1e-9)
    assert scaled.modularity == pytest.approx(base.modularity, rel=1e-9)


@FAST
@given(extreme_graphs(max_vertices=7))
def test_louvain_at_extreme_scales_against_networkx(drawn):
    scale, graph = drawn
    u, v, w = graph.edges()
    lg = LouvainGraph.from_edges(u, v, w, n=graph.n)
    result = louvain(lg, backend="cpu")
    assert result.valid, result.problem
    G = nx.Graph()
    G.add_nodes_from(range(graph.n))
    G.add_weighted_edges_from(zip(u.tolist(), v.tolist(), (w / max(w.max(initial=0), 5e-324)).tolist(), strict=True))
    if G.size(weight="weight") > 0:
        assert result.modularity == pytest.approx(nx.community.modularity(G, result.communities()), abs=1e-9)


def test_the_cgroup_limit_is_read_for_v2_and_v1(tmp_path):
    from gpusim.types.memory import cgroup_room

    membership = tmp_path / "cgroup"
    membership.write_text("0::/job\n")
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "memory.max").write_text("1073741824\n")
    (tmp_path / "job" / "memory.current").write_text("73741824\n")
    assert cgroup_room(str(membership), str(tmp_path)) == 1_000_000_000
    (tmp_path / "job" / "memory.max").write_text("max\n")
    membership.write_text("4:memory:/old\n0::/job\n")
    (tmp_path / "memory" / "old").mkdir(parents=True)
    (tmp_path / "memory" / "old" / "memory.limit_in_bytes").write_text("2000\n")
    (tmp_path / "memory" / "old" / "memory.usage_in_bytes").write_text("500\n")
    assert cgroup_room(str(membership), str(tmp_path)) == 1500
    (tmp_path / "memory" / "old" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert cgroup_room(str(membership), str(tmp_path)) is None


@FAST
@given(st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=120),
    st.lists(st.integers(0, 5), min_size=n, max_size=n))), st.booleans())
def test_an_unweighted_graphs_modularity_is_counted_exactly_against_networkx(drawn, on_every_core):
    """A graph of unit weights takes :func:`~gpusim.algorithms.louvain.result.modularity`'s integer path (on one
    core, or on every core as past ``PARALLEL_COUNT`` entries); NetworkX's modularity is the oracle."""
    from gpusim.algorithms.louvain import result

    n, pairs, labels = drawn
    pairs = sorted({(min(a, b), max(a, b)) for a, b in pairs if a != b})
    u, v = (np.array([p[i] for p in pairs], np.int64) for i in (0, 1))
    graph = LouvainGraph.from_edges(u, v, n=n)
    assert graph.unit_weights or not pairs
    labels = np.unique(labels, return_inverse=True)[1]
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(pairs)
    old = result.PARALLEL_COUNT
    result.PARALLEL_COUNT = 0 if on_every_core else old
    try:
        q = result.modularity(graph, labels, resolution=0.7)
    finally:
        result.PARALLEL_COUNT = old
    expected = nx.community.modularity(G, [set(np.flatnonzero(labels == c)) for c in range(labels.max() + 1)],
                                       resolution=0.7) if pairs else 0.0
    assert q == pytest.approx(expected, abs=1e-12)
