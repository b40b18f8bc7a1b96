"""The cheap matching as a kernel (algorithms/bipartite/kernels_cheap.py): under any schedule a matching of the
input, maximal after its one launch, checked by an oracle written here (never gpusim.types.check); the
sequential greedy under the sequential policy; the default start of APFB, APsB and G-PR on every backend."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bipartite import VARIANT_IDS, VARIANTS, assert_maximum, run

from gpusim import Device
from gpusim.algorithms.bipartite.kernels_cheap import cheap_claim
from gpusim.backends.sim import RandomWalk
from gpusim.testing.strategies import bipartite_graphs, schedules
from gpusim.types.graphs import BipartiteGraph
from gpusim.zoo import ZOO


def claim(graph: BipartiteGraph, dev: Device) -> tuple[np.ndarray, np.ndarray]:
    nr, nc = graph.n_rows, graph.n_cols
    rm, cm = dev.full(max(nr, 1), -1, np.int32), dev.full(max(nc, 1), -1, np.int32)
    col_adj = graph.col_adj if graph.col_adj.size else np.zeros(1, np.int32)
    dev.launch(cheap_claim, 2, 32, (dev.array(graph.col_ptr), dev.array(col_adj), rm, cm, nc))
    return dev.to_host(rm)[:nr], dev.to_host(cm)[:nc]


def assert_maximal_matching(graph: BipartiteGraph, rm: np.ndarray, cm: np.ndarray) -> None:
    """Every pair an edge, both sides agree, and no edge joins two free vertices: from the edge list alone."""
    edges = {(int(r), int(c)) for c in range(graph.n_cols)
             for r in graph.col_adj[graph.col_ptr[c]:graph.col_ptr[c + 1]]}
    pairs = [(r, int(rm[r])) for r in range(graph.n_rows) if rm[r] != -1]
    assert all(c >= 0 for _, c in pairs), rm
    assert all((r, c) in edges for r, c in pairs)
    assert all(cm[c] == r for r, c in pairs)
    assert sum(cm != -1) == len(pairs) and all(rm[r] == c for c, r in enumerate(cm) if r != -1)
    assert not [(r, c) for r, c in edges if rm[r] == -1 and cm[c] == -1], "not maximal"


def sequential_greedy(graph: BipartiteGraph) -> list[int]:
    """Seed 000 §4's cheap matching, written out: columns in id order take their first free row."""
    rm = [-1] * graph.n_rows
    for c in range(graph.n_cols):
        for r in graph.col_adj[graph.col_ptr[c]:graph.col_ptr[c + 1]]:
            if rm[r] == -1:
                rm[r] = c
                break
    return rm


policies = st.one_of(schedules(max_preemptions=4, max_step=2000),
                     st.integers(0, 2**32 - 1).map(lambda seed: RandomWalk(seed=seed)))


@settings(max_examples=60, deadline=None)
@given(graph=bipartite_graphs(max_rows=12, max_cols=12), policy=policies)
def test_a_maximal_matching_under_any_schedule(graph, policy):
    rm, cm = claim(graph, Device("sim", policy=policy, trace=False, races="off"))
    assert_maximal_matching(graph, rm, cm)


@settings(max_examples=25, deadline=None)
@given(graph=bipartite_graphs(max_rows=12, max_cols=12))
def test_the_sequential_greedy_under_the_sequential_policy(graph):
    rm, _ = claim(graph, Device("sim", policy="sequential"))
    assert rm.tolist() == sequential_greedy(graph)


def test_it_can_differ_from_the_sequential_greedy():
    # column 0's only row is row 0, column 1's rows are 0 and 1: when column 1 claims row 0 first,
    # column 0 stays free; still maximal (row 0 is matched)
    graph = BipartiteGraph.from_edges([0, 0, 1], [0, 1, 1])
    seen = set()
    for seed in range(200):
        rm, cm = claim(graph, Device("sim", policy=RandomWalk(seed=seed), trace=False))
        assert_maximal_matching(graph, rm, cm)
        seen.add(tuple(rm.tolist()))
    assert (0, 1) in seen and (1, -1) in seen


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_the_default_start_is_the_kernel_and_the_result_is_maximum(variant):
    graph = BipartiteGraph.from_edges(np.arange(60) % 17, (np.arange(60) * 7) % 13, n_rows=17, n_cols=13)
    result = run(variant, graph, Device("sim", seed=3))
    assert result.stats["launches"]["cheap_claim"] == 1
    assert_maximum(result, graph)
    host = run(variant, graph, Device("sim", seed=3), initial="cheap-host")
    assert "cheap_claim" not in host.stats["launches"]
    assert_maximum(host, graph)


def test_the_zoo_twin_without_the_cas_is_registered():
    entry = ZOO["cheap_claim_no_cas"]
    assert "claim_row" in entry.source or "CAS" in entry.wrong
    assert entry.broken.attempt(policy="sequential", seed=0) is None  # one thread after another: no race
