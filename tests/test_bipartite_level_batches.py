"""BFS levels and G-PR loops in batches (APFB, APsB, G-PR): the flags read back once per batch, a level (loop)
after the end returning at once on the device; the same levels, loops, labels and matching as one at a time."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bipartite import VARIANT_IDS, VARIANTS, assert_maximum, run

import gpusim.algorithms.bipartite as bipartite
from gpusim import Device
from gpusim.errors import InvalidArgument
from gpusim.testing.strategies import bipartite_graphs
from gpusim.types.generators import uniform_random
from gpusim.types.graphs import BipartiteGraph

COUNTS = ("phases", "bfs_levels", "loops", "global_relabels")
#: What the one-level-at-a-time host loops gave (commit 827df24; tests/data/README.md).
RECORDED = Path(__file__).resolve().parent / "data" / "bipartite_sequential_matchings.json"
RECORDED_CASES = [("gpr", {}), ("gpr", {"variant": "first"}), ("gpr", {"shrink_at": 1}),
                  ("gpr", {"relabel": ("fixed", 2), "shrink": False}), ("apfb", {}), ("apsb", {}),
                  ("apfb", {"bfs": "plain", "layout": "mt"}), ("apsb", {"bfs": "plain", "layout": "mt"})]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("name", "options"), RECORDED_CASES, ids=[f"{n}-{o}" for n, o in RECORDED_CASES])
def test_the_matching_the_unbatched_code_gave(seed, name, options):
    recorded = json.loads(RECORDED.read_text())[f"{seed}-{name}-{options}"]
    graph = uniform_random(150, 150, 420, seed=seed)
    result = getattr(bipartite, name)(graph, device=Device("sim", policy="sequential", trace=False), initial="empty",
                                      **options)
    assert result.row_match.tolist() == recorded[0]
    assert {k: result.stats.get(k) for k in COUNTS} == recorded[1]


def one_level_at_a_time_and_batched(variant, graph, policy="sequential", **extra):
    results = [run(variant, graph, Device("sim", policy=policy, trace=False, races="off"), levels_per_read=k, **extra)
               for k in (1, 16)]
    return results


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("initial", ["empty", "cheap-host"])
def test_the_same_matching_and_levels_as_one_level_at_a_time(variant, initial):
    graph = uniform_random(120, 120, 300, seed=2)
    single, batched = one_level_at_a_time_and_batched(variant, graph, initial=initial)
    assert_maximum(batched, graph)
    assert batched.row_match.tolist() == single.row_match.tolist()
    assert batched.col_match.tolist() == single.col_match.tolist()
    for key in COUNTS:
        assert batched.stats.get(key) == single.stats.get(key), key
    assert batched.stats["reads_back"] < single.stats["reads_back"]


@settings(max_examples=25, deadline=None)
@given(graph=bipartite_graphs(max_rows=10, max_cols=10), variant=st.sampled_from(VARIANTS),
       initial=st.sampled_from(["empty", "cheap-host"]))
def test_the_same_on_any_small_graph(graph, variant, initial):
    single, batched = one_level_at_a_time_and_batched(variant, graph, initial=initial)
    assert batched.row_match.tolist() == single.row_match.tolist()
    assert [batched.stats.get(k) for k in COUNTS] == [single.stats.get(k) for k in COUNTS]
    assert batched.stats["reads_back"] <= single.stats["reads_back"]


def test_a_batch_reads_back_once():
    # c0 - r0 - c1 - r1 - ... - c39 - r39, every r_i matched to c_(i+1) but r39: one augmenting path from c0,
    # 40 BFS levels in the first phase (the 40th finds r39 and inserts nothing), one level in the second
    n = 40
    graph = BipartiteGraph.from_edges(np.r_[np.arange(n), np.arange(n - 1)], np.r_[np.arange(n), np.arange(1, n)])
    start = (np.r_[np.arange(1, n), -1].astype(np.int32), np.r_[-1, np.arange(n - 1)].astype(np.int32))
    single = bipartite.apfb(graph, device=Device("sim", policy="sequential"), initial=start, levels_per_read=1)
    batched = bipartite.apfb(graph, device=Device("sim", policy="sequential"), initial=start)
    assert single.size == batched.size == n
    assert single.stats["phases"] == batched.stats["phases"] == 2
    assert single.stats["bfs_levels"] == batched.stats["bfs_levels"] == n + 1
    assert single.stats["reads_back"] == n + 1 + 2
    # batches of 1, 2, 4, 8, 16, 16 levels (47 launched, 40 run); the second phase starts from a batch as deep as
    # the first ran (16: one level runs, 15 return at once); then the matching
    assert batched.stats["reads_back"] == 6 + 1 + 2
    assert batched.stats["launches"]["gpubfs_wr"] == 47 + 16


@pytest.mark.parametrize("bad", [0, -1, 1025, 2.0, True])
def test_levels_per_read_is_checked(bad):
    graph = uniform_random(4, 4, 6, seed=0)
    for algorithm in (bipartite.apfb, bipartite.gpr):
        with pytest.raises((InvalidArgument, TypeError), match="levels_per_read"):
            algorithm(graph, backend="sim", levels_per_read=bad)


def test_levels_run_counts_like_the_loop():
    # the loop of Alg. 1, written out: level s runs if every earlier level inserted (and, APsB, found nothing)
    rng = np.random.default_rng(5)
    for _ in range(300):
        batch = int(rng.integers(1, 9))
        flags = rng.integers(0, 2, 2 * batch)
        for shortest in (False, True):
            ran, found, over = 0, False, False
            for s in range(batch):
                ran += 1
                found = found or bool(flags[2 * s + 1])
                if not flags[2 * s] or (shortest and flags[2 * s + 1]):
                    over = True
                    break
            assert bipartite.augmenting.levels_run(flags, batch, shortest, False) == (ran, found, over)
