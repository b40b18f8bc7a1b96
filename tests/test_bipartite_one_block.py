"""APFB and APsB as one block (``launches="one-block"``, kernels_bfs_block.py): the host loop's steps run in one
launch, ``syncthreads`` in place of kernel boundaries; maximum under any schedule, on every backend, race-free but
for the races the paper intends, and chosen by ``launches="auto"`` only where it pays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching
from test_bipartite import SHAPES, assert_maximum, matrices, simulated_policies

import gpusim.algorithms.bipartite as bipartite
from gpusim import Device
from gpusim.algorithms.bipartite.augmenting import ONE_BLOCK_EDGES, _one_block
from gpusim.algorithms.bipartite.kernels_bfs import fix_rows
from gpusim.errors import InvalidArgument
from gpusim.runtime.resident_graphs import to_device
from gpusim.testing.strategies import bipartite_graphs
from gpusim.types.generators import uniform_random
from gpusim.types.graphs import BipartiteGraph

NAMES = ("apfb", "apsb")


def one_block(name, graph, device, **options):
    result = getattr(bipartite, name)(graph, device=device, launches="one-block", **options)
    assert result.stats["one_block"]
    return result


@settings(max_examples=30)
@pytest.mark.parametrize("name", NAMES)
@given(graph=bipartite_graphs(max_rows=9, max_cols=9), policy=simulated_policies,
       initial=st.sampled_from(["cheap", "empty"]), permute=st.integers(0, 3))
def test_maximum_and_certified_under_any_schedule(name, graph, policy, initial, permute):
    if permute:
        graph = graph.permuted(permute)
    result = one_block(name, graph, Device("sim", policy=policy, trace=False, races="off"), initial=initial)
    assert_maximum(result, graph)
    if graph.n_rows and graph.n_cols:
        assert result.stats["launches"]["augment_in_one_block"] == 1
        assert result.stats["reads_back"] == 3   # the counts, then the matching's two sides


@settings(max_examples=12, deadline=None)
@pytest.mark.parametrize("name", NAMES)
@given(graph=bipartite_graphs(max_rows=10, max_cols=10), seed=st.integers(0, 2**31 - 1))
def test_races_only_where_the_paper_intends(name, graph, seed):
    # the barrier between levels and the three flag slots leave no race on an array the kernel does not list
    result = one_block(name, graph, Device("sim", races="raise", trace=False, seed=seed), initial="empty")
    assert_maximum(result, graph)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", SHAPES)
def test_shapes(name, shape, backend):
    graph = SHAPES[shape]
    options = {"policy": "random", "seed": 1} if backend == "sim" else {}
    assert_maximum(one_block(name, graph, Device(backend, **options)), graph)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("path", [p for p in matrices() if p.stat().st_size < 400_000],
                         ids=lambda p: getattr(p, "stem", "none"))
def test_bundled_matrices_on_the_gpus(name, path, gpu_backend):
    graph = BipartiteGraph.from_matrix_market(path)
    assert_maximum(one_block(name, graph, Device(gpu_backend)), graph)


def test_a_long_path_takes_every_level_in_one_launch():
    # c0 - r0 - c1 - r1 - ... - c39 - r39, every r_i matched to c_(i+1) but r39: one augmenting path from c0,
    # 40 BFS levels in the first phase (the 40th finds r39 and inserts nothing), one level in the second
    n = 40
    graph = BipartiteGraph.from_edges(np.r_[np.arange(n), np.arange(n - 1)], np.r_[np.arange(n), np.arange(1, n)])
    start = (np.r_[np.arange(1, n), -1].astype(np.int32), np.r_[-1, np.arange(n - 1)].astype(np.int32))
    result = one_block("apfb", graph, Device("sim", policy="random", seed=4, trace=False), initial=start)
    assert result.size == n
    assert (result.stats["phases"], result.stats["bfs_levels"]) == (2, n + 1)


def test_auto_runs_one_block_on_a_gpu_for_small_graphs_only():
    small, large = uniform_random(50, 50, 200, seed=1), uniform_random(9000, 9000, ONE_BLOCK_EDGES + 1, seed=1)
    defaults = ("wr", "top-down", None, False, [])
    assert _one_block("auto", small, "cupy", *defaults) and _one_block("auto", small, "numba", *defaults)
    assert not _one_block("auto", large, "cupy", *defaults)
    assert not _one_block("auto", small, "sim", *defaults)      # the simulator keeps the loop the zoo knows
    assert not _one_block("auto", small, "cupy", "plain", "top-down", None, False, [])
    assert not _one_block("auto", small, "cupy", "wr", "top-down", None, False, ["alternate"])
    assert not _one_block("levels", small, "cupy", *defaults)
    assert _one_block("one-block", large, "sim", *defaults)
    result = bipartite.apfb(small, backend="sim")
    assert not result.stats["one_block"] and result.stats["launches"]["gpubfs_wr"] > 1


def test_auto_on_a_gpu(gpu_backend):
    graph = uniform_random(300, 300, 1200, seed=5)
    result = bipartite.apsb(graph, backend=gpu_backend)
    assert result.stats["one_block"] and result.stats["launches"]["augment_in_one_block"] == 1
    assert_maximum(result, graph)


@pytest.mark.parametrize(("options", "fragment"), [
    ({"bfs": "plain"}, "bfs='plain' needs launches='levels'"),
    ({"direction": "auto"}, "direction='auto' needs launches='levels'"),
    ({"warp_degree": 8}, "warp_degree=8 needs launches='levels'"),
    ({"check_invariants": True}, "check_invariants=True needs launches='levels'"),
    ({"kernels": {"alternate": fix_rows}}, "replacing ['alternate']"),
    ({"launches": "one_block"}, "launches='one_block' is not one of"),
])
def test_what_one_block_cannot_run_is_refused(options, fragment):
    graph = uniform_random(20, 20, 60, seed=1)
    options = {"launches": "one-block", **options}
    with pytest.raises(InvalidArgument, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        bipartite.apfb(graph, backend="sim", **options)


@settings(max_examples=15, deadline=None)
@pytest.mark.parametrize("name", NAMES)
@given(graph=bipartite_graphs(max_rows=9, max_cols=9), seed=st.integers(0, 2**31 - 1))
def test_size_counted_by_the_block_on_a_device_graph(name, graph, seed):
    # the block counts the matched rows itself: the device result's size is read with the counts, one read in all
    dev = Device("sim", seed=seed, trace=False)
    result = one_block(name, to_device(dev, graph), dev, output="device")
    scipy_match = maximum_bipartite_matching(graph.to_scipy(), perm_type="column") if graph.n_edges else []
    expected = int((np.asarray(scipy_match) >= 0).sum())
    assert result.size == expected == int((dev.to_host(result.row_match)[:graph.n_rows] >= 0).sum())
    assert result.valid
