"""GPUBFS-WR with a warp per high-degree column (kernels_bfs_warp.py): on the simulator, a level reaches what the
thread version's level reaches, and APFB/APsB with it stay maximum (SciPy) under any schedule, both warp modes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bipartite import assert_maximum

import gpusim.algorithms.bipartite as bipartite
from gpusim import Device
from gpusim.algorithms.bipartite.augmenting import HUB_DEGREE, HUB_WARP_DEGREE
from gpusim.algorithms.bipartite.kernels_bfs_warp import gpubfs_wr_warp
from gpusim.backends.sim import RandomWalk
from gpusim.errors import InvalidArgument
from gpusim.testing.strategies import bipartite_graphs
from gpusim.types.graphs import BipartiteGraph


def star_forest() -> tuple[BipartiteGraph, np.ndarray, np.ndarray]:
    """Free columns 0 (degree 45) and 1 (degree 3) with disjoint rows; every third row of column 0 matched to
    its own column 2, 3, ...; one path end (a free row) per free column, so the level does not depend on the
    order of the visits."""
    rows, cols = list(range(45)), [0] * 45
    rows += [45, 46, 47]
    cols += [1, 1, 1]
    matched = list(range(0, 45, 3))
    rows += matched
    cols += list(range(2, 2 + len(matched)))
    graph = BipartiteGraph.from_edges(rows, cols)
    rmatch = np.full(graph.n_rows, -1, np.int32)
    cmatch = np.full(graph.n_cols, -1, np.int32)
    for k, r in enumerate(matched):
        rmatch[r], cmatch[2 + k] = 2 + k, r
    rmatch[45:47] = -3   # not free, not matched: rows 45, 46 are neither (only row 47 ends column 1's path)
    return graph, rmatch, cmatch


def one_level(kernel, dev: Device, extra: tuple) -> dict:
    graph, rmatch0, cmatch0 = star_forest()
    nc = graph.n_cols
    bfs_array = dev.array(np.where(cmatch0 == -1, 2, 1).astype(np.int32))
    root = dev.array(np.where(cmatch0 == -1, np.arange(nc), -1).astype(np.int32))
    rmatch, predecessor, flags = dev.array(rmatch0), dev.full(graph.n_rows, -1), dev.zeros(2)
    args = (2, bfs_array, dev.array(graph.col_ptr), dev.array(graph.col_adj), nc, rmatch, predecessor, root, flags,
            2, 0, 0, 0) + extra
    dev.launch(kernel, 2, 32, args)
    return {name: dev.to_host(a).tolist() for name, a in
            (("bfs_array", bfs_array), ("root", root), ("rmatch", rmatch), ("predecessor", predecessor),
             ("flags", flags))}


@pytest.mark.parametrize("warps", ["independent", "lockstep"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_level_reaches_what_the_thread_version_reaches(warps, seed):
    thread = one_level(bipartite.gpubfs_wr, Device("sim", policy="sequential"), ())
    for degree in (1, 4, 32):
        warp = one_level(gpubfs_wr_warp, Device("sim", policy=RandomWalk(seed=seed), warps=warps), (degree,))
        assert warp == thread
    # and the level is what Alg. 4 says, written out: every matched row of column 0 brings its column to level 3
    assert thread["bfs_array"][2:] == [3] * 15 and thread["root"][2:] == [0] * 15
    assert thread["flags"] == [1, 1]
    assert [r for r, m in enumerate(thread["rmatch"]) if m == -2] == [r for r in range(45) if r % 3] + [47]


def with_hub(graph: BipartiteGraph, hub: int) -> BipartiteGraph:
    """``graph`` with column ``hub % n_cols`` joined to every row instead of its own rows: a high-degree column."""
    if not graph.n_cols:
        return graph
    rows, cols = graph.edges()
    hub %= graph.n_cols
    keep = cols != hub
    return BipartiteGraph.from_edges(np.r_[rows[keep], np.arange(graph.n_rows)],
                                     np.r_[cols[keep], [hub] * graph.n_rows], n_rows=graph.n_rows, n_cols=graph.n_cols)


@settings(max_examples=30, deadline=None)
@given(graph=bipartite_graphs(max_rows=10, max_cols=10), hub=st.integers(0, 9), seed=st.integers(0, 2**32 - 1),
       name=st.sampled_from(["apfb", "apsb"]), warps=st.sampled_from(["independent", "lockstep"]),
       degree=st.sampled_from([1, 2, 3]))
def test_apfb_and_apsb_with_warps_are_maximum(graph, hub, seed, name, warps, degree):
    graph = with_hub(graph, hub)
    dev = Device("sim", policy=RandomWalk(seed=seed), warps=warps, trace=False)
    result = getattr(bipartite, name)(graph, device=dev, warp_degree=degree, initial="empty")
    assert_maximum(result, graph)
    if graph.n_rows and graph.n_cols:
        assert result.stats["launches"]["gpubfs_wr_warp"] >= 1 and "gpubfs_wr" not in result.stats["launches"]


@pytest.mark.parametrize(("options", "fragment"), [
    ({"warp_degree": 0}, "warp_degree"), ({"warp_degree": 2.5}, "warp_degree"),
    ({"warp_degree": 4, "bfs": "plain"}, "bfs='wr'"), ({"warp_degree": "hubs"}, "None or 'auto'")])
def test_bad_warp_degree(options, fragment):
    graph = BipartiteGraph.from_edges([0, 1], [0, 1])
    with pytest.raises((InvalidArgument, TypeError), match=fragment):
        bipartite.apfb(graph, backend="sim", **options)


@pytest.mark.parametrize("hub", [HUB_DEGREE - 1, HUB_DEGREE])
def test_auto_takes_the_warp_for_a_hub_only(hub, backend):
    # column 0 holds `hub` rows; 200 more columns of 3 rows each make the graph larger than any hub test's bound
    rows = list(range(hub)) + [hub + i for i in range(600)]
    cols = [0] * hub + [1 + i // 3 for i in range(600)]
    graph = BipartiteGraph.from_edges(rows, cols)
    options = {"policy": "random", "seed": 2, "trace": False} if backend == "sim" else {}
    result = bipartite.apfb(graph, device=Device(backend, **options), launches="levels")
    assert result.stats["warp_degree"] == (HUB_WARP_DEGREE if hub >= HUB_DEGREE else None)
    assert result.stats["launches"]["has_hub"] == 1
    assert_maximum(result, graph)


def test_auto_asks_nothing_of_a_graph_too_small_for_a_hub():
    graph = BipartiteGraph.from_edges(np.arange(HUB_DEGREE - 1), np.zeros(HUB_DEGREE - 1, int))
    result = bipartite.apsb(graph, backend="sim")
    assert result.stats["warp_degree"] is None and "has_hub" not in result.stats["launches"]
