"""The papers' kernels race only where they mean to: ``races="raise"`` under random schedules.

Each kernel lists its intended races (``@kernel(intended_races=...)``, with the paper's reason); the
happens-before detector checks every other array.  A race on an array not listed raises
:class:`~gpusim.errors.DataRace`, and the result must still be what the sequential reference or the
certificate says.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim import Device
from gpusim.algorithms.bipartite import maximum_bipartite_matching
from gpusim.algorithms.louvain import bucket_louvain, louvain
from gpusim.algorithms.stable import stable_marriage
from gpusim.algorithms.weighted import maximum_weight_matching, roma
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.explore.algorithm import draw_input
from gpusim.language.kernels import Kernel, registry
from gpusim.testing.strategies import bipartite_graphs, preference_instances, weighted_graphs
from gpusim.types.check import blocking_pairs, check_bipartite_matching
from gpusim.types.generators import uniform_random

seeds = st.integers(0, 2**31 - 1)


def detector(seed: int) -> Device:
    return Device("sim", races="raise", trace=False, seed=seed)


@settings(max_examples=12, deadline=None)
@pytest.mark.parametrize("algorithm, options", [("gpr", {}), ("gpr", {"variant": "first"}), ("apfb", {}),
                                                ("apsb", {}), ("apfb", {"bfs": "plain", "layout": "mt"}),
                                                ("apfb", {"direction": "auto"})])  # the frontier counted per level
@given(graph=bipartite_graphs(max_rows=10, max_cols=10), seed=seeds)
def test_bipartite_kernels(algorithm, options, graph, seed):
    result = maximum_bipartite_matching(graph, algorithm, device=detector(seed), **options)
    assert result.certified
    assert check_bipartite_matching(graph, result.row_match, result.col_match) == result.size


def test_the_frontier_counted_for_direction_auto_races_only_where_declared():
    """Every level's frontier is counted by many threads at once on a graph with many free columns."""
    graph = uniform_random(16, 16, 48, seed=3)
    for seed in range(3):
        result = maximum_bipartite_matching(graph, "apfb", device=detector(seed), direction="auto")
        assert result.certified


@settings(max_examples=12, deadline=None)
@pytest.mark.parametrize("algorithm, options", [("suitor", {}), ("suitor", {"variant": "hybrid"}),
                                                ("suitor", {"layout": "thread"}), ("ld", {})])
@given(graph=weighted_graphs(max_vertices=12), seed=seeds)
def test_suitor_and_ld_kernels(algorithm, options, graph, seed):
    result = maximum_weight_matching(graph, algorithm, device=detector(seed), **options)
    assert result.mate.tolist() == greedy(graph).mate.tolist()


@settings(max_examples=12, deadline=None)
@pytest.mark.parametrize("b", [1, 2])
@given(graph=weighted_graphs(max_vertices=10), seed=seeds)
def test_b_suitor_kernel(b, graph, seed):
    expected = [sorted(v for v in p if v >= 0) for p in greedy_b_matching(graph, b).partners.tolist()]
    for schedule in range(4):  # the counters of offers out and of the next queue race only in some schedules
        result = maximum_weight_matching(graph, "bsuitor", device=detector(seed + schedule), b=b)
        partners = [sorted(v for v in p if v >= 0) for p in result.partners.tolist()]
        assert partners == expected  # the sequential greedy b-matching, b-Suitor's result (symmetric, b each)


@settings(max_examples=8, deadline=None)
@pytest.mark.parametrize("memory", ["sc", "weak"])  # weak: a flip not yet visible when the locks open
@pytest.mark.parametrize("options", [{"variant": "thread"}, {"variant": "block"},
                                     {"variant": "block", "max_grid": 1}])  # a block takes several edges in turn
@given(seed=seeds, n=st.sampled_from([4, 6, 8]))
def test_roma_kernels(options, memory, seed, n):
    weights = np.random.default_rng(seed).random((n, n))
    weights = np.triu(weights, 1) + np.triu(weights, 1).T
    result = roma(weights, device=Device("sim", races="raise", trace=False, seed=seed, memory=memory), **options)
    mate, everyone = result.mate, np.arange(n)
    assert (mate[mate] == everyone).all() and (mate != everyone).all()  # still a perfect matching
    assert np.isclose(result.stats["phase_weights"][-1], result.weight)  # the weight the device summed
    pairs = [(u, int(mate[u])) for u in range(n) if u < mate[u]]
    gains = [max(weights[u, x] + weights[v, y], weights[u, y] + weights[v, x]) - weights[u, v] - weights[x, y]
             for i, (u, v) in enumerate(pairs) for x, y in pairs[i + 1:]]
    assert max(gains, default=0.0) <= 1e-5  # ROMA's promise (Hovland 2020, Lemma 4.1.1): no swap gains more


@settings(max_examples=12, deadline=None)
@pytest.mark.parametrize("algorithm", ["mw-gpu", "gs-rounds"])
@given(instance=preference_instances(max_n=7), seed=seeds)
def test_stable_marriage_kernels(algorithm, instance, seed):
    result = stable_marriage(instance, algorithm, device=detector(seed))
    assert blocking_pairs(instance, result.wife) == []


@pytest.mark.parametrize("seed", [0, 1])
def test_louvain_block_kernels_taking_every_vertex_and_chunk_in_one_block(seed):
    """With one block a launch, a block takes vertex after vertex and chunk after chunk (the lowered degree buckets
    put every vertex of degree above 1 on the block kernels): each barrier of ``move_block_vertex`` and ``block_best``
    separates one table's readers from the next table's writers, and the decisions are the bucket reference's."""
    graph = draw_input("louvain", seed)
    result = louvain(graph, device=detector(seed), degree_buckets="1,2,3,4,4,6", community_buckets="3,6,12",
                     max_grid=1)
    assert result.stats["launches"]["move_block_global"] >= 4 and result.stats["launches"]["move_block_shared"]
    assert result.labels.tolist() == bucket_louvain(graph, degree_buckets=(1, 2, 3, 4, 4, 6)).labels.tolist()


def test_every_intended_race_names_a_parameter_or_shared_array_and_says_why():
    import gpusim.algorithms.weighted  # noqa: F401  (register every kernel)

    annotated = [k for k in registry() if isinstance(k, Kernel) and k.intended_races
                 and k.qualname.startswith("gpusim.algorithms.") and not k.filename.startswith("<")]  # not mutants
    assert {k.name for k in annotated} >= {"gpubfs", "gpubfs_wr", "alternate", "global_relabel_level",
                                           "push_relabel_all", "push_active", "init_active", "gpu_suitor",
                                           "suitor_thread_per_vertex", "ld_match", "b_suitor_round",
                                           "roma_thread_phase", "roma_block_phase", "mcvitie_wilson_gpu",
                                           "gale_shapley_round"}
    for k in annotated:
        for array, why in k.intended_races.items():
            assert array in k.params or f"{array} = T.shared_array" in open(k.filename).read(), (k.name, array)
            assert len(why) > 20, (k.name, array)
