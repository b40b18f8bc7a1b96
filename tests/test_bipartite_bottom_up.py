"""Bottom-up and direction-optimising BFS levels for APFB and APsB (kernels_bfs_bottom_up.py): one level does
what Alg. 4 says from the rows' side, and the whole algorithms stay maximum (SciPy) under any schedule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bipartite import assert_maximum, simulated_policies
from test_bipartite_warp_bfs import star_forest

import gpusim.algorithms.bipartite as bipartite
from gpusim import Device
from gpusim.algorithms.bipartite.augmenting import BOTTOM_UP_SHARE
from gpusim.algorithms.bipartite.kernels_bfs_bottom_up import count_level, gpubfs_wr_bottom_up
from gpusim.backends.sim import RandomWalk
from gpusim.errors import InvalidArgument
from gpusim.testing.strategies import bipartite_graphs
from gpusim.types.generators import uniform_random
from gpusim.types.graphs import BipartiteGraph


def bottom_up_level(dev: Device) -> dict:
    """One bottom-up level (L0 = 2) on the star forest: free columns 0 and 1 in the frontier."""
    graph, rmatch0, cmatch0 = star_forest()
    nc = graph.n_cols
    bfs_array = dev.array(np.where(cmatch0 == -1, 2, 1).astype(np.int32))
    root = dev.array(np.where(cmatch0 == -1, np.arange(nc), -1).astype(np.int32))
    rmatch, predecessor, flags = dev.array(rmatch0), dev.full(graph.n_rows, -1), dev.zeros(2)
    args = (2, bfs_array, dev.array(graph.row_ptr), dev.array(graph.row_adj), graph.n_rows, rmatch, predecessor,
            root, flags, 2, 0, 0, 0)
    dev.launch(gpubfs_wr_bottom_up, 2, 32, args)
    return {name: dev.to_host(a).tolist() for name, a in
            (("bfs_array", bfs_array), ("root", root), ("rmatch", rmatch), ("predecessor", predecessor),
             ("flags", flags))}


def test_a_tree_that_found_its_path_stops_recruiting_rows_at_once():
    # Sequential schedule: row 0 (matched to column 2) joins column 0's tree, row 1 (free) ends that tree's
    # path (Alg. 4 line 19: bfs_array[0] = L0 - 2), and from then on column 0 is no longer in the frontier
    # for rows 2..44; row 47 ends column 1's path; rows 45, 46 (neither free nor matched) wait for nothing.
    level = bottom_up_level(Device("sim", policy="sequential"))
    assert level["bfs_array"][:3] == [0, 0, 3] and level["bfs_array"][3:] == [1] * 14
    assert level["root"][2] == 0
    assert [r for r, m in enumerate(level["rmatch"]) if m == -2] == [1, 47]
    assert level["predecessor"][:2] == [0, 0] and level["predecessor"][47] == 1
    assert all(p == -1 for r, p in enumerate(level["predecessor"]) if r not in (0, 1, 47))
    assert level["flags"] == [1, 1]


@pytest.mark.parametrize("seed", range(6))
def test_a_level_under_any_schedule_is_a_valid_step_of_alg_4(seed):
    graph, _, _ = star_forest()
    level = bottom_up_level(Device("sim", policy=RandomWalk(seed=seed)))
    ends = [r for r, m in enumerate(level["rmatch"]) if m == -2]
    assert 47 in ends and level["flags"][1] == 1   # column 1's only free row ends its path, whatever the order
    for r in ends:  # each path end's predecessor is a frontier column next to it, whose tree is now finished
        c = level["predecessor"][r]
        assert c in (0, 1) and graph.to_scipy()[r, c] and level["bfs_array"][c] == 0
    for c in range(2, graph.n_cols):  # a column reached joins column 0's tree through its matched row
        if level["bfs_array"][c] == 3:
            row = 3 * (c - 2)
            assert level["root"][c] == 0 and level["predecessor"][row] == 0
        else:
            assert level["bfs_array"][c] == 1


def test_count_level_counts_the_columns_of_a_level():
    dev = Device("sim", policy=RandomWalk(seed=3))
    levels = np.array([3, 1, 3, 3, 2, 3, 0, 3], np.int32)
    counts = dev.zeros(3)
    dev.launch(count_level, 2, 4, (3, dev.array(levels), levels.size, counts, 1))
    assert dev.to_host(counts).tolist() == [0, 5, 0]


@settings(max_examples=40, deadline=None)
@given(graph=bipartite_graphs(max_rows=10, max_cols=10), policy=simulated_policies,
       name=st.sampled_from(["apfb", "apsb"]), direction=st.sampled_from(["bottom-up", "auto"]),
       initial=st.sampled_from(["cheap", "empty"]), warp_degree=st.sampled_from([None, 2]))
def test_apfb_and_apsb_from_the_rows_are_maximum(graph, policy, name, direction, initial, warp_degree):
    dev = Device("sim", policy=policy, trace=False, races="off")
    result = getattr(bipartite, name)(graph, device=dev, direction=direction, initial=initial,
                                      warp_degree=warp_degree)
    assert_maximum(result, graph)
    assert result.stats["direction"] == direction
    if direction == "bottom-up" and graph.n_edges:
        assert "gpubfs_wr" not in result.stats["launches"] and "gpubfs_wr_warp" not in result.stats["launches"]


@pytest.mark.parametrize("name", ["apfb", "apsb"])
def test_auto_turns_bottom_up_when_the_frontier_is_large(name):
    # From an empty matching every column is free: after the first level (top-down) the frontier is a large
    # share of the columns, so some batch runs bottom-up; the matching is maximum all the same.
    graph = uniform_random(300, 300, 2400, seed=1)
    result = getattr(bipartite, name)(graph, backend="sim", initial="empty", direction="auto")
    assert_maximum(result, graph)
    launches = result.stats["launches"]
    assert launches["gpubfs_wr_bottom_up"] >= 1 and launches["gpubfs_wr"] >= result.stats["phases"]
    assert launches["count_level"] >= result.stats["phases"]
    assert 0 < BOTTOM_UP_SHARE < 1


@pytest.mark.parametrize(("options", "fragment"), [
    ({"direction": "sideways"}, "direction='sideways'"), ({"direction": "auto", "bfs": "plain"}, "bfs='wr'"),
    ({"direction": "bottom-up", "bfs": "plain"}, "direction='bottom-up' needs bfs='wr'")])
def test_bad_direction(options, fragment):
    graph = BipartiteGraph.from_edges([0, 1], [0, 1])
    with pytest.raises(InvalidArgument, match=fragment):
        bipartite.apfb(graph, backend="sim", **options)
