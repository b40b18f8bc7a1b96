"""Every result's certificate: evidence of its guarantee that anyone can check against the input alone."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpusim.algorithms.stable import stable_marriage
from gpusim.algorithms.weighted import WeightedMatching, maximum_weight_matching
from gpusim.testing.strategies import preference_instances, weighted_graphs
from gpusim.types.check import undominated_edges
from gpusim.types.graphs import WeightedGraph


def _nx_maximum_weight(graph: WeightedGraph) -> float:
    u, v, w = graph.edges()
    g = nx.Graph()
    g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist(), strict=True))
    return sum(g[a][b]["weight"] for a, b in nx.max_weight_matching(g))


@given(weighted_graphs(max_vertices=12), st.sampled_from(["suitor", "ld", "greedy", "bsuitor"]))
def test_locally_dominant_algorithms_are_certified_and_the_certificate_is_true(graph, algorithm):
    result = maximum_weight_matching(graph, algorithm, backend="cpu")
    assert result.valid and result.certificate() == [] and result.certified
    assert result.weight >= 0.5 * _nx_maximum_weight(graph) - 1e-9   # what the certificate proves


def test_a_matching_that_leaves_a_heavy_edge_undominated_is_not_certified():
    g = WeightedGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 3.0, 1.0])
    light = WeightedMatching(np.array([1, 0, 3, 2]), 2.0, "hand", "cpu", {}, g)
    assert light.valid and light.certificate() == [(1, 2)] and not light.certified


def test_a_b_matching_vertex_with_a_free_slot_dominates_nothing():
    g = WeightedGraph.from_edges([0, 0, 1], [1, 2, 2], [1.0, 1.0, 5.0])
    partners = np.array([[1, 2], [0, -1], [0, -1]])   # 1-2 (weight 5) free at both ends: slots left
    result = WeightedMatching(np.full(3, -1), 2.0, "hand", "cpu", {}, g, partners, 2)
    assert result.valid and result.certificate() == [(1, 2)]
    assert undominated_edges(g, partners=np.array([[1, 2], [0, 2], [0, 1]]), b=2) == []


def test_an_edge_at_a_vertex_with_b_zero_needs_no_domination():
    # 1 takes no partner (b = 0): the heavy edge (0, 1) is in no b-matching, so the greedy one, {0, 2}, is certified
    g = WeightedGraph.from_edges([0, 0], [1, 2], [5.0, 1.0])
    assert undominated_edges(g, partners=np.array([[2], [-1], [0]]), b=np.array([1, 0, 1])) == []
    assert undominated_edges(g, partners=np.array([[2], [-1], [0]]), b=1) == [(0, 1)]


def test_the_dense_certificate_of_a_complete_graph():
    w = np.array([[0, 1, 5, 0], [1, 0, 0, 5], [5, 0, 0, 1], [0, 5, 1, 0]], float)
    assert undominated_edges(w, mate=np.array([1, 0, 3, 2])) == [(0, 2), (1, 3)]
    assert undominated_edges(w, mate=np.array([2, 3, 0, 1])) == []


@given(preference_instances(max_n=6))
def test_the_stable_certificate_is_the_blocking_pairs(instance):
    result = stable_marriage(instance, "gs", backend="cpu")
    assert result.certificate() == [] and result.certified
    married = np.flatnonzero(result.wife >= 0)
    if married.size >= 2:   # swap two wives: either the swap is still stable or the certificate says why not
        wife = result.wife.copy()
        a, b = married[:2]
        wife[a], wife[b] = wife[b], wife[a]
        swapped = type(result)(instance, wife, "hand", "cpu")
        if swapped.valid:
            assert swapped.certified == (swapped.certificate() == [])


@pytest.mark.parametrize("algorithm", ["suitor", "ld"])
def test_the_simulator_results_are_certified(algorithm):
    g = WeightedGraph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [2.0, 3.0, 1.0, 4.0])
    assert maximum_weight_matching(g, algorithm, backend="sim").certified


def test_blocking_pairs_of_an_instance_whose_pair_keys_pass_2_to_the_31():
    from gpusim.algorithms.stable import gale_shapley
    from gpusim.types.check import blocking_pairs
    from gpusim.types.preference_generators import easy_instance

    inst = easy_instance(50_000, seed=1)   # ids stored as int32: woman * n + man reaches 2.5e9
    wife = gale_shapley(inst).wife
    assert blocking_pairs(inst, wife) == []
    single = wife.copy()
    single[np.flatnonzero(wife >= 0)[0]] = -1   # a man left single blocks with his wife, who has room now
    assert len(blocking_pairs(inst, single)) >= 1
