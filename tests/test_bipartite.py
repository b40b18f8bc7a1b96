"""Maximum bipartite matching (seeds 000, 001): valid, maximum (SciPy), certified (König), on every backend."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching

import gpusim.algorithms.bipartite as bipartite
from gpusim import Device
from gpusim.backends.sim import RandomWalk
from gpusim.errors import InvalidArgument, InvalidArgumentType
from gpusim.testing.strategies import bipartite_graphs, schedules
from gpusim.types.graphs import BipartiteGraph

#: The test matrices of tests/data (GPUSIM_MATRICES points elsewhere).
MATRICES = Path(os.environ.get("GPUSIM_MATRICES", Path(__file__).resolve().parent / "data" / "matrices"))

#: Every GPU variant the papers evaluate, as (entry point, options).
VARIANTS = [
    ("apfb", {}),
    ("apfb", {"bfs": "plain", "layout": "mt"}),
    ("apsb", {}),
    ("apsb", {"bfs": "plain", "layout": "mt"}),
    ("gpr", {}),
    ("gpr", {"variant": "first"}),
    ("gpr", {"relabel": ("fixed", 2), "shrink": False}),
    ("gpr", {"relabel": ("adaptive", 0.3)}),
    ("apfb", {"direction": "auto"}),
    ("apsb", {"direction": "bottom-up", "layout": "mt"}),
]
VARIANT_IDS = [name + "".join(f"-{v}" for v in options.values()) for name, options in VARIANTS]


def scipy_size(graph: BipartiteGraph) -> int:
    if graph.n_rows == 0 or graph.n_cols == 0:
        return 0
    return int((scipy_matching(graph.to_scipy(), perm_type="column") >= 0).sum())


def run(variant, graph, device, **extra):
    name, options = variant
    return getattr(bipartite, name)(graph, device=device, **options, **extra)


def assert_maximum(result, graph):
    assert result.size == scipy_size(graph)
    assert result.valid and result.certified
    # and once more, independently of gpusim.types.check
    rows = np.flatnonzero(result.row_match >= 0)
    assert (result.col_match[result.row_match[rows]] == rows).all()
    assert graph.to_scipy()[rows, result.row_match[rows]].all() if rows.size else True


simulated_policies = st.one_of(schedules(max_preemptions=4, max_step=3000),
                               st.integers(0, 2**32 - 1).map(lambda seed: RandomWalk(seed=seed)))


@settings(max_examples=30)
@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
@given(graph=bipartite_graphs(max_rows=9, max_cols=9), policy=simulated_policies,
       initial=st.sampled_from(["cheap", "proposals", "empty"]), permute=st.integers(0, 3))
def test_maximum_and_certified_under_any_schedule(variant, graph, policy, initial, permute):
    if permute:
        graph = graph.permuted(permute)
    result = run(variant, graph, Device("sim", policy=policy, trace=False, races="off"), initial=initial)
    assert_maximum(result, graph)


@pytest.mark.gpu
@pytest.mark.parametrize("gpu", ["numba", "cupy"])
@settings(max_examples=40)
@given(graph=bipartite_graphs(max_rows=40, max_cols=40), variant=st.sampled_from(VARIANTS),
       initial=st.sampled_from(["cheap", "proposals", "empty"]), permute=st.integers(0, 3))
def test_maximum_and_certified_on_the_gpus(gpu, graph, variant, initial, permute):
    from gpusim.backends import gpu_status

    available, why = gpu_status(gpu)
    if not available:
        pytest.skip(f"{gpu} unavailable: {why}")
    if permute:
        graph = graph.permuted(permute)
    assert_maximum(run(variant, graph, Device(gpu), initial=initial), graph)


SHAPES = {
    "empty": BipartiteGraph.from_edges([], [], n_rows=0, n_cols=0),
    "no rows": BipartiteGraph.from_edges([], [], n_rows=0, n_cols=5),
    "no columns": BipartiteGraph.from_edges([], [], n_rows=5, n_cols=0),
    "edgeless": BipartiteGraph.from_edges([], [], n_rows=4, n_cols=4),
    "singular": BipartiteGraph.from_edges([0, 1, 2, 2], [0, 0, 0, 1], n_rows=3, n_cols=3),
    "tall": BipartiteGraph.from_edges(np.arange(40) % 40, np.arange(40) % 3, n_rows=40, n_cols=3),
    "wide": BipartiteGraph.from_edges(np.arange(40) % 3, np.arange(40), n_rows=3, n_cols=40),
    "complete": BipartiteGraph.from_edges(np.repeat(np.arange(6), 6), np.tile(np.arange(6), 6)),
}


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_shapes(variant, shape, backend):
    graph = SHAPES[shape]
    options = {"policy": "random", "seed": 1} if backend == "sim" else {}
    assert_maximum(run(variant, graph, Device(backend, **options)), graph)


def matrices():
    return sorted(MATRICES.glob("*.mtx"), key=lambda p: p.stat().st_size)


#: The simulator runs the matrices up to this many edges (the largest take minutes there).
SIM_EDGE_LIMIT = 2_000


@pytest.mark.parametrize("variant", [VARIANTS[0], VARIANTS[2], VARIANTS[4]], ids=["apfb", "apsb", "gpr"])
@pytest.mark.parametrize("path", matrices(), ids=lambda p: getattr(p, "stem", "none"))
def test_bundled_matrices(variant, path, backend):
    graph = BipartiteGraph.from_matrix_market(path)
    if backend == "sim" and graph.n_edges > SIM_EDGE_LIMIT:
        pytest.skip(f"{graph.n_edges} edges: too many for the simulator in CI (checked on cpu and the GPUs)")
    options = {"policy": "pct", "seed": 3, "trace": False} if backend == "sim" else {}
    assert_maximum(run(variant, graph, Device(backend, **options)), graph)


def test_statistics_are_reported():
    graph = SHAPES["singular"]
    apfb = bipartite.apfb(graph, backend="sim", initial="empty", levels_per_read=1)
    assert apfb.stats["phases"] >= 1 and apfb.stats["bfs_levels"] >= 1
    assert apfb.stats["launches"]["gpubfs_wr"] == apfb.stats["bfs_levels"]
    assert apfb.stats["reads_back"] == apfb.stats["bfs_levels"] + 2  # a flag read per level, then the matching
    assert set(apfb.stats["seconds"]) == {"bfs", "alternate"}
    # batches of levels: a level after the end returns at once, so launches may exceed the levels run
    batched = bipartite.apfb(graph, backend="sim", initial="empty")
    assert batched.stats["launches"]["gpubfs_wr"] >= batched.stats["bfs_levels"] == apfb.stats["bfs_levels"]
    gpr = bipartite.gpr(graph, backend="sim", initial="empty")
    assert gpr.stats["global_relabels"] >= 1 and gpr.stats["loops"] >= 1
    assert gpr.stats["launches"]["push_active"] >= 1


def test_shrink_compacts_long_active_lists():
    # 600 free columns, each with its own row: one loop matches them all after one compaction.
    graph = BipartiteGraph.from_edges(np.arange(600), np.arange(600))
    result = bipartite.gpr(graph, backend="sim", initial="empty", device=Device("sim", policy="sequential"))
    assert result.size == 600
    assert result.stats["launches"]["compact_active"] == 1


BAD = [
    ("not a graph", lambda: bipartite.apfb("graph", backend="sim"), InvalidArgumentType, "BipartiteGraph"),
    ("unknown bfs", lambda: bipartite.apfb(SHAPES["singular"], backend="sim", bfs="dfs"), InvalidArgument, "bfs='dfs'"),
    ("unknown layout", lambda: bipartite.apsb(SHAPES["singular"], backend="sim", layout="xy"), InvalidArgument,
     "layout='xy'"),
    ("unknown variant", lambda: bipartite.gpr(SHAPES["singular"], backend="sim", variant="x"), InvalidArgument,
     "variant='x'"),
    ("bad relabel", lambda: bipartite.gpr(SHAPES["singular"], backend="sim", relabel=("often", 1)), InvalidArgument,
     "relabel"),
    ("negative k", lambda: bipartite.gpr(SHAPES["singular"], backend="sim", relabel=("fixed", -1)), InvalidArgument,
     "k > 0"),
    ("shrink not bool", lambda: bipartite.gpr(SHAPES["singular"], backend="sim", shrink="yes"), InvalidArgumentType,
     "shrink"),
    ("bad initial", lambda: bipartite.apfb(SHAPES["singular"], backend="sim", initial="greedy"), InvalidArgument,
     "initial"),
    ("inconsistent initial", lambda: bipartite.apfb(SHAPES["singular"], backend="sim", initial=(
        np.array([0, -1, -1]), np.array([-1, -1, -1]))), InvalidArgument, "row 0 is matched to column 0"),
    ("device not a Device", lambda: bipartite.gpr(SHAPES["singular"], device="sim"), InvalidArgumentType, "device"),
]


@pytest.mark.parametrize("what, call, exception, fragment", BAD, ids=[case[0] for case in BAD])
def test_bad_input(what, call, exception, fragment):
    with pytest.raises(exception) as caught:
        call()
    assert fragment in str(caught.value)
