"""GPU Suitor and Locally-Dominant (seed 003, Paper I): exactly the greedy matching, on every backend and schedule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gpusim.algorithms.weighted as weighted
from gpusim import Device
from gpusim.algorithms.weighted.reference_exact import exact_maximum_weight
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.backends.sim import RandomWalk
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import bundled_matrices, schedules, weighted_graphs
from gpusim.types.graphs import WeightedGraph
from gpusim.zoo.weighted_twins import propose_without_cas, suitor_without_cas

VARIANTS = [
    ("suitor", {}),
    ("suitor", {"variant": "syncnolb", "vertices_per_warp": 3}),
    ("suitor", {"variant": "synclb", "balance_rounds": 3}),
    ("suitor", {"variant": "hybrid", "vertices_per_warp": 32, "balance_rounds": 1}),
    ("suitor", {"layout": "thread"}),
    ("suitor", {"vertices_per_warp": 1}),
    ("locally_dominant", {}),
]
IDS = ["suitor-nosync", "suitor-syncnolb", "suitor-synclb", "suitor-hybrid", "suitor-thread", "suitor-warp-1", "ld"]

policies = st.one_of(schedules(max_preemptions=4, max_step=3000),
                     st.integers(0, 2**32 - 1).map(lambda seed: RandomWalk(seed=seed)))


def run(variant, graph, device):
    name, options = variant
    return getattr(weighted, name)(graph, device=device, **options)


def assert_greedy(result, graph):
    expected = greedy(graph)
    assert result.mate.tolist() == expected.mate.tolist()
    assert result.weight == pytest.approx(expected.weight)
    matched = np.flatnonzero(result.mate >= 0)
    assert (result.mate[result.mate[matched]] == matched).all()  # symmetric, independently of gpusim


@settings(max_examples=25)
@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
@given(graph=weighted_graphs(max_vertices=12), policy=policies)
def test_equals_greedy_under_any_schedule(variant, graph, policy):
    assert_greedy(run(variant, graph, Device("sim", policy=policy, trace=False, races="off")), graph)


@settings(max_examples=5)
@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
@given(graph=bundled_matrices("weighted"))
def test_bundled_symmetric_matrices(variant, graph):
    assert_greedy(run(variant, graph, Device("sim", policy="pct", seed=2, trace=False, races="off")), graph)


@pytest.mark.parametrize("variant", VARIANTS, ids=IDS)
def test_on_every_backend(variant, backend):
    rng = np.random.default_rng(5)
    u, v = np.triu_indices(60, 1)
    keep = rng.random(u.size) < 0.15
    graph = WeightedGraph.from_edges(u[keep], v[keep], rng.integers(0, 6, keep.sum()).astype(float), n=60)
    options = {"policy": "random", "seed": 1} if backend == "sim" else {}
    assert_greedy(run(variant, graph, Device(backend, **options)), graph)


def test_at_least_half_the_optimum():
    rng = np.random.default_rng(9)
    u, v = np.triu_indices(14, 1)
    graph = WeightedGraph.from_edges(u, v, rng.random(u.size), n=14)
    optimum = exact_maximum_weight(graph).weight
    assert weighted.suitor(graph, backend="sim").weight >= optimum / 2


@pytest.mark.quality
def test_suitor_without_cas_loses_a_proposal():
    # Three vertices offer to vertex 0 at once: without the CAS one offer overwrites a better one.
    graph = WeightedGraph.from_edges([0, 0, 0], [1, 2, 3], [1.0, 2.0, 3.0])
    expected = greedy(graph).mate.tolist()

    def explore(kernels=None):
        for seed in range(200):
            result = weighted.suitor(graph, device=Device("sim", policy="random", seed=seed), layout="thread",
                                     kernels=kernels)
            if result.mate.tolist() != expected:
                return seed, result.mate.tolist()
        return None

    assert explore() is None
    found = explore(suitor_without_cas)
    assert found is not None, "the explorer should find a schedule where the result differs from Greedy"


BAD = [
    ("not a weighted graph", lambda: weighted.suitor("g", backend="sim"), InvalidArgumentType, "WeightedGraph"),
    ("unknown layout", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]), backend="sim",
                                               layout="block"), InvalidArgument, "layout='block'"),
    ("zero vertices per warp", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]), backend="sim",
                                                       vertices_per_warp=0), InvalidArgument, "vertices_per_warp"),
    ("33 vertices per warp", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]), backend="sim",
                                                     vertices_per_warp=33), InvalidArgument, "vertices_per_warp=33"),
    ("unknown variant", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]), backend="sim",
                                                variant="sync"), InvalidArgument, "variant='sync'"),
    ("block not whole warps", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]), backend="sim",
                                                      block=48), InvalidArgument, "block=48"),
    ("float balance rounds", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]), backend="sim",
                                                     balance_rounds=1.5), InvalidArgumentType, "balance_rounds"),
    ("unknown kernel step", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]), backend="sim",
                                                    kernels={"flip": propose_without_cas}), InvalidArgument, "'flip'"),
    ("kernel step not a device function", lambda: weighted.suitor(WeightedGraph.from_edges([0], [1], [1.0]),
                                                                  backend="sim", kernels={"propose": print}),
     InvalidArgumentType, "'propose'"),
    ("device not a Device", lambda: weighted.locally_dominant(WeightedGraph.from_edges([0], [1], [1.0]),
                                                              device="sim"), InvalidArgumentType, "device"),
    ("negative weight", lambda: WeightedGraph.from_edges([0], [1], [-1.0]), InvalidArgument, "-1"),
    ("NaN weight", lambda: WeightedGraph.from_edges([0], [1], [float("nan")]), InvalidArgument, "nan"),
    ("infinite weight", lambda: WeightedGraph.from_edges([0], [1], [float("inf")]), InvalidArgument, "inf"),
]


@pytest.mark.parametrize("what, call, exception, fragment", BAD, ids=[case[0] for case in BAD])
def test_bad_input(what, call, exception, fragment):
    with pytest.raises(exception) as caught:
        call()
    assert fragment in str(caught.value)
