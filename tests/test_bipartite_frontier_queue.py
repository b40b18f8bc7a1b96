"""The listed frontier (kernels_bfs_queue.py): each level lists the next one's columns once, APFB and APsB stay maximum
(SciPy) under any schedule with every tier (a thread, the warp, the grid for a hub), and the GPUs list by default."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bipartite import assert_maximum
from test_bipartite_warp_bfs import with_hub

import gpusim.algorithms.bipartite as bipartite
from gpusim import Device
from gpusim.algorithms.bipartite.kernels_bfs_queue import gpubfs_wr_queue, init_bfs_queue
from gpusim.backends import gpu_status
from gpusim.backends.sim import RandomWalk
from gpusim.errors import InvalidArgument
from gpusim.testing.strategies import bipartite_graphs
from gpusim.types import generators
from gpusim.types.graphs import BipartiteGraph


def test_the_first_level_lists_every_free_column_with_rows_once():
    cmatch = np.array([-1, 4, -1, -1, 0, 7, -1], np.int32)
    col_ptr = np.array([0, 1, 2, 2, 4, 5, 6, 8], np.int32)  # column 2 has no rows
    dev = Device("sim", policy=RandomWalk(seed=3))
    bfs_array, root, queue, frontier = dev.zeros(7), dev.zeros(7), dev.full(7, -1), dev.zeros(9)
    dev.launch(init_bfs_queue, 2, 32, (bfs_array, dev.array(cmatch), root, dev.array(col_ptr), 7, 2, queue, frontier))
    count = int(dev.to_host(frontier)[3])
    assert sorted(dev.to_host(queue)[:count].tolist()) == [0, 3, 6]
    assert dev.to_host(bfs_array).tolist() == [2, 1, 2, 2, 1, 1, 2]


@pytest.mark.parametrize(("grid", "block"), [(2, 32), (1, 64), (1, 96)])
def test_warps_list_their_free_columns_in_slots_of_their_own(grid, block):
    # 100 columns over 64 or 96 threads, in blocks of one to three warps: every warp lists free columns, each warp's
    # slots reserved by one atomic add
    rng = np.random.default_rng(5)
    cmatch = np.where(rng.random(100) < 0.6, -1, 0).astype(np.int32)
    col_ptr = np.arange(101, dtype=np.int32)
    for seed in range(3):
        dev = Device("sim", policy=RandomWalk(seed=seed), races="raise")
        queue, frontier = dev.full(100, -1), dev.zeros(9)
        dev.launch(init_bfs_queue, grid, block, (dev.zeros(100), dev.array(cmatch), dev.zeros(100),
                                                 dev.array(col_ptr), 100, 2, queue, frontier))
        count = int(dev.to_host(frontier)[3])
        assert sorted(dev.to_host(queue)[:count].tolist()) == np.flatnonzero(cmatch < 0).tolist()


def test_a_level_lists_each_column_it_reaches_once_and_records_where_the_next_starts():
    # free columns 0 (rows 0..5) and 5 (rows 2, 3) are listed at level 2; rows 0..3 are matched to columns 1, 2, 4, 3,
    # which join level 3, columns 4 and 3 reached from both free columns and listed once; rows 4, 5 end 0's path
    graph = BipartiteGraph.from_edges([0, 1, 2, 3, 4, 5, 0, 1, 3, 1, 2, 2, 3], [0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 4, 5, 5])
    rmatch = np.array([1, 2, 4, 3, -1, -1], np.int32)
    for seed in range(6):
        dev = Device("sim", policy=RandomWalk(seed=seed), races="raise")
        bfs_array = dev.array(np.array([2, 1, 1, 1, 1, 2], np.int32))
        root = dev.array(np.array([0, -1, -1, -1, -1, 5], np.int32))
        queue = dev.array(np.array([0, 5, -1, -1, -1, -1], np.int32))
        frontier = dev.array(np.array([0, 0, 0, 2, 0, 0, 0, 0, 0], np.int32))
        flags, predecessor = dev.zeros(2), dev.full(6, -1)
        args = (2, bfs_array, dev.array(graph.col_ptr), dev.array(graph.col_adj), dev.array(rmatch), predecessor,
                root, flags, 2, 0, 0, 0, queue, frontier, dev.zeros(1), 1 << 15)
        dev.launch(gpubfs_wr_queue, 2, 32, args)
        state = dev.to_host(frontier).tolist()
        assert (state[1], state[4]) == (2, 4) and sorted(dev.to_host(queue)[2:].tolist()) == [1, 2, 3, 4]
        assert dev.to_host(bfs_array).tolist() == [0, 3, 3, 3, 3, 2]  # a free row ended column 0's path: L0 - 2
        roots = dev.to_host(root).tolist()
        assert roots[1:3] == [0, 0] and set(roots[3:5]) <= {0, 5} and dev.to_host(flags).tolist() == [1, 1]


@settings(max_examples=30, deadline=None)
@given(graph=bipartite_graphs(max_rows=10, max_cols=10), hub=st.integers(0, 9), seed=st.integers(0, 2**32 - 1),
       name=st.sampled_from(["apfb", "apsb"]), warps=st.sampled_from(["independent", "lockstep"]),
       degree=st.sampled_from([None, 1, 2, 3]), initial=st.sampled_from(["empty", "cheap"]))
def test_apfb_and_apsb_over_the_list_are_maximum_under_any_schedule(graph, hub, seed, name, warps, degree, initial):
    graph = with_hub(graph, hub)  # a hub for the grid when the warp degree is small
    dev = Device("sim", policy=RandomWalk(seed=seed), warps=warps, trace=False, races="raise")
    result = getattr(bipartite, name)(graph, device=dev, frontier="queue", warp_degree=degree, initial=initial)
    assert_maximum(result, graph)
    assert result.stats["frontier"] == "queue"
    if result.stats["phases"] and degree is not None:
        assert result.stats["launches"]["expand_hubs"] == result.stats["launches"]["gpubfs_wr_queue"]


def test_the_simulator_sweeps_unless_asked_and_a_replaced_sweep_kernel_keeps_the_sweep():
    graph = BipartiteGraph.from_edges([0, 1, 1, 2], [0, 0, 1, 2])
    assert bipartite.apfb(graph, backend="sim").stats["frontier"] == "sweep"
    assert bipartite.apfb(graph, backend="sim", frontier="queue").stats["frontier"] == "queue"
    twin = {"gpubfs_wr": bipartite.gpubfs_wr}
    assert bipartite.apfb(graph, backend="sim", kernels=twin).stats["frontier"] == "sweep"


@pytest.mark.parametrize(("options", "fragment"), [
    ({"frontier": "list"}, "frontier"), ({"frontier": "queue", "direction": "bottom-up"}, "direction='bottom-up'"),
    ({"frontier": "queue", "bfs": "plain"}, "bfs='plain'"),
    ({"frontier": "queue", "launches": "one-block"}, "frontier='queue' needs launches='levels'")])
def test_bad_frontier_options_are_one_line_errors(options, fragment):
    graph = BipartiteGraph.from_edges([0, 1], [0, 1])
    with pytest.raises(InvalidArgument, match=fragment) as refused:
        bipartite.apfb(graph, backend="sim", **options)
    assert "\n" not in str(refused.value)


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["numba", "cupy"])
@pytest.mark.parametrize("name", ["apfb", "apsb"])
def test_the_gpus_list_by_default_and_stay_maximum(backend, name):
    ok, why = gpu_status(backend)
    if not ok:
        pytest.skip(why)
    graphs = [generators.power_law_bipartite(1 << 14, 1 << 14, 8 << 14, 2.1, seed=3),  # hubs: the grid scans them
              generators.uniform_random(1 << 14, 1 << 14, 5 << 14, seed=4)]
    for graph in graphs:
        for initial in ("empty", "proposals"):
            result = getattr(bipartite, name)(graph, device=Device(backend), initial=initial)
            assert result.stats["frontier"] == "queue"
            assert_maximum(result, graph)
