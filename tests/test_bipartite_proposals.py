"""The proposals start (algorithms/bipartite/kernels_proposals.py): rounds of proposals to the lightest free row,
then the cheap pass.  Under any schedule a maximal matching of the input (checked by the cheap kernel's oracle,
never gpusim.types.check); under the sequential policy exactly the rounds written out here; APFB, APsB and G-PR
from it reach SciPy's maximum on the simulator and on every GPU backend."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bipartite import VARIANT_IDS, VARIANTS, assert_maximum, run
from test_bipartite_cheap_kernel import assert_maximal_matching, policies

from gpusim import Device
from gpusim.algorithms.bipartite.host import cheap_start
from gpusim.algorithms.bipartite.kernels_proposals import LOOK_AHEAD, PROPOSAL_ROUNDS
from gpusim.backends import gpu_status
from gpusim.runtime.launcher import Launcher
from gpusim.testing.strategies import bipartite_graphs
from gpusim.types import generators
from gpusim.types.graphs import BipartiteGraph


def proposals(graph: BipartiteGraph, dev: Device, from_rows: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The start on ``dev``, the rows' degrees counted from the columns' lists, or read from the row side's pointers
    (``from_rows``, as where the device holds them)."""
    col_adj = graph.col_adj if graph.col_adj.size else np.zeros(1, np.int32)
    row_ptr = dev.array(graph.row_ptr) if from_rows else None
    launch = Launcher(dev, False, "test")
    rm, cm = cheap_start(launch, graph, dev.array(graph.col_ptr), dev.array(col_adj), "proposals", row_ptr)
    degrees = "row_degrees" if from_rows else "count_row_degrees"
    assert launch.launches[degrees] == (1 if graph.n_rows and graph.n_cols else 0)
    return dev.to_host(rm)[:graph.n_rows], dev.to_host(cm)[:graph.n_cols]


def rounds_written_out(graph: BipartiteGraph) -> list[int]:
    """The rounds by hand: each free column names its free row of least degree among its first ``LOOK_AHEAD`` (the
    first in its list on a tie), each named row takes its lowest column; then columns in id order take their first
    free row."""
    degree = np.bincount(graph.col_adj, minlength=graph.n_rows)
    rm, cm = [-1] * graph.n_rows, [-1] * graph.n_cols
    lists = [graph.col_adj[graph.col_ptr[c]:graph.col_ptr[c + 1]].tolist() for c in range(graph.n_cols)]
    for _ in range(PROPOSAL_ROUNDS):
        offers: dict[int, int] = {}
        for c in range(graph.n_cols):
            free = [r for r in lists[c][:LOOK_AHEAD] if rm[r] == -1]
            if cm[c] == -1 and free:
                row = min(free, key=lambda r: degree[r])
                offers[row] = min(offers.get(row, c), c)
        for row, c in offers.items():
            rm[row], cm[c] = c, row
    for c in range(graph.n_cols):
        for r in lists[c]:
            if cm[c] == -1 and rm[r] == -1:
                rm[r], cm[c] = c, r
    return rm


@settings(max_examples=60, deadline=None)
@given(graph=bipartite_graphs(max_rows=12, max_cols=12), policy=policies, from_rows=st.booleans())
def test_a_maximal_matching_under_any_schedule(graph, policy, from_rows):
    rm, cm = proposals(graph, Device("sim", policy=policy, trace=False, races="raise"), from_rows)
    assert_maximal_matching(graph, rm, cm)


@settings(max_examples=40, deadline=None)
@given(graph=bipartite_graphs(max_rows=12, max_cols=12), from_rows=st.booleans())
def test_the_rounds_written_out_under_the_sequential_policy(graph, from_rows):
    rm, _ = proposals(graph, Device("sim", policy="sequential"), from_rows)
    assert rm.tolist() == rounds_written_out(graph)


def test_a_light_row_is_kept_for_the_column_that_has_no_other():
    # column 0 reaches rows 0 and 1, column 1 only row 0: the cheap pass gives row 0 to column 0 and leaves
    # column 1 free; proposals send column 0 to row 1 (degree 1) and column 1 to row 0
    graph = BipartiteGraph.from_edges([0, 1, 0], [0, 0, 1])
    rm, cm = proposals(graph, Device("sim", policy="sequential"))
    assert rm.tolist() == [1, 0] and cm.tolist() == [1, 0]


def test_a_hub_column_looks_at_its_first_rows_only(monkeypatch):
    # column 0 reaches rows 0..3; row 3 is the lightest (degree 1) but lies past a look-ahead of 2
    from gpusim.algorithms.bipartite import kernels_proposals

    graph = BipartiteGraph.from_edges([0, 1, 2, 3, 0, 1, 2], [0, 0, 0, 0, 1, 2, 3])
    monkeypatch.setattr(kernels_proposals, "LOOK_AHEAD", 2)
    monkeypatch.setattr(sys.modules[__name__], "LOOK_AHEAD", 2)
    rm, _ = proposals(graph, Device("sim", policy="sequential"))
    assert rm.tolist() == rounds_written_out(graph)
    assert rm[3] == -1 or rm[3] != 0  # column 0 did not take row 3


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_every_algorithm_from_the_proposals_reaches_the_maximum(variant):
    graph = generators.rmat(7, 6, seed=11)
    result = run(variant, graph, Device("sim", seed=5), initial="proposals")
    assert result.stats["launches"]["propose_to_lightest_row"] == PROPOSAL_ROUNDS
    assert_maximum(result, graph)


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["numba", "cupy"])
@pytest.mark.parametrize("name", ["apfb", "apsb", "gpr"])
def test_on_the_gpus_from_the_proposals(backend, name):
    ok, why = gpu_status(backend)
    if not ok:
        pytest.skip(why)
    graph = generators.power_law_bipartite(1 << 14, 1 << 14, 8 << 14, 2.1, seed=3)
    result = run((name, {}), graph, Device(backend), initial="proposals")
    assert_maximum(result, graph)


@pytest.mark.parametrize("name", ["apfb", "apsb", "gpr"])
def test_the_default_start_is_the_proposals_from_a_million_edges(name, monkeypatch):
    from gpusim.algorithms.bipartite import host

    assert host.PROPOSALS_FROM == 1_000_000
    graph = generators.rmat(6, 4, seed=2)
    small = run((name, {}), graph, Device("sim", seed=1))
    assert "propose_to_lightest_row" not in small.stats["launches"]
    monkeypatch.setattr(host, "PROPOSALS_FROM", graph.n_edges)  # as if the graph had a million edges
    large = run((name, {}), graph, Device("sim", seed=1))
    assert large.stats["launches"]["propose_to_lightest_row"] == PROPOSAL_ROUNDS
    assert_maximum(large, graph)
    explicit = run((name, {}), graph, Device("sim", seed=1), initial="cheap")
    assert "propose_to_lightest_row" not in explicit.stats["launches"]
