"""The CPU engine: parallel rounds equal to the sequential references; every compiled function cached on disk.

Oracles: the sequential greedy matching and greedy b-matching (Suitor, LD and b-Suitor must equal them),
SciPy's maximum bipartite matching, sequential Gale-Shapley, the sequential bucket Louvain and
``networkx.community.modularity``.  The parallel paths run with ``parallel_from=0`` (small inputs otherwise
take the sequential path, which gives the same answer).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import networkx as nx
import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba.core.registry import CPUDispatcher
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_matching

import gpusim.algorithms
from gpusim.algorithms.louvain import reference as louvain_reference
from gpusim.algorithms.louvain.driver import gpu_louvain
from gpusim.algorithms.louvain.graph import LouvainGraph, karate
from gpusim.algorithms.stable import stable_marriage
from gpusim.algorithms.stable.reference import gale_shapley
from gpusim.algorithms.weighted import maximum_weight_matching
from gpusim.algorithms.weighted.parallel_b import parallel_b_matching
from gpusim.algorithms.weighted.parallel_ld import PARALLEL, PARALLEL_FROM, parallel_locally_dominant
from gpusim.algorithms.weighted.reference_b_suitor import greedy_b_matching
from gpusim.algorithms.weighted.reference_greedy import greedy
from gpusim.errors import InvalidArgument
from gpusim.runtime.dispatch import dispatch
from gpusim.runtime.threads import MIN_THREADS
from gpusim.testing.strategies import bipartite_graphs, preference_instances, weighted_graphs
from gpusim.types.graphs import WeightedGraph

FEW = settings(max_examples=20, deadline=None)
ROOT = Path(__file__).resolve().parents[1]


@FEW
@given(weighted_graphs(max_vertices=14, weights=st.sampled_from([0.0, 1.0, 1.0, 2.0, 3.0])))
def test_parallel_locally_dominant_is_the_greedy_matching(graph):
    found = parallel_locally_dominant(graph, parallel_from=0)
    assert found.mate.tolist() == greedy(graph).mate.tolist()
    assert found.stats["threads"] == numba.get_num_threads()


@FEW
@given(weighted_graphs(max_vertices=14), st.one_of(st.integers(0, 4), st.lists(st.integers(0, 3), min_size=14,
                                                                                   max_size=14)))
def test_parallel_b_matching_is_the_greedy_b_matching(graph, b):
    b = b if isinstance(b, int) else np.array(b[:graph.n], np.int64)
    found = parallel_b_matching(graph, b, parallel_from=0)
    assert np.array_equal(found.partners, greedy_b_matching(graph, b).partners)


def _random_weighted(n: int, m: int, seed: int) -> WeightedGraph:
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    keys = np.unique(np.minimum(u, v)[u != v] * n + np.maximum(u, v)[u != v])
    return WeightedGraph.from_edges(keys // n, keys % n, rng.integers(1, 6, keys.size).astype(float), n=n)


@pytest.mark.parametrize("algorithm", ["suitor", "ld", "bsuitor"])
def test_backend_cpu_runs_the_engine_and_equals_greedy(algorithm):
    graph = _random_weighted(4000, 3 * PARALLEL_FROM // 4, seed=1)    # above PARALLEL_FROM entries
    found = maximum_weight_matching(graph, algorithm, "cpu", **({"b": 2} if algorithm == "bsuitor" else {}))
    assert found.backend == "cpu" and found.valid
    if algorithm == "bsuitor":
        assert np.array_equal(found.partners, greedy_b_matching(graph, 2).partners)
        assert found.stats["algorithm"] == "parallel_b_matching" and "engine" not in found.stats
    else:
        assert found.mate.tolist() == greedy(graph).mate.tolist()
        assert found.stats["algorithm"] == "parallel_locally_dominant"
        if PARALLEL and numba.get_num_threads() >= MIN_THREADS:     # else the sequential Suitor, which says why
            assert found.stats["rounds"] >= 1 and "engine" not in found.stats
        else:
            assert ("threads" if PARALLEL else "sequential") in found.stats["engine"]


@FEW
@given(bipartite_graphs(max_rows=10, max_cols=10))
def test_bipartite_cpu_is_maximum(graph):
    found = dispatch("bipartite", graph, "apfb", "cpu", size=graph.n_edges)
    assert found.valid and found.size == int((scipy_matching(graph.to_scipy(), perm_type="column") >= 0).sum())


@FEW
@given(preference_instances(max_n=7))
def test_stable_cpu_is_man_optimal(instance):
    found = stable_marriage(instance, "gs-rounds", "cpu")
    assert found.valid and found.wife.tolist() == gale_shapley(instance).wife.tolist()


def _planted(n: int, m: int, seed: int) -> LouvainGraph:
    rng = np.random.default_rng(seed)
    u = rng.integers(0, n, m)
    v = np.where(rng.random(m) < 0.8, (u // 16) * 16 + rng.integers(0, 16, m), rng.integers(0, n, m)) % n
    keys = np.unique(np.minimum(u, v)[u != v] * n + np.maximum(u, v)[u != v])
    return LouvainGraph.from_edges(keys // n, keys % n, rng.integers(1, 4, keys.size).astype(float), n=n)


@pytest.mark.parametrize("graph", [karate(), _planted(300, 1500, 2), _planted(64, 400, 3)], ids=["karate", "300", "64"])
def test_parallel_louvain_makes_the_sequential_choices(graph, monkeypatch):
    monkeypatch.setattr(louvain_reference, "PARALLEL_FROM", 0)   # every bucket on the threads
    parallel = louvain_reference.bucket_louvain(graph, parallel=True)
    assert parallel.labels.tolist() == louvain_reference.bucket_louvain(graph).labels.tolist()   # integer weights
    G = graph.to_networkx() if hasattr(graph, "to_networkx") else None
    if G is not None:
        parts = [set(np.flatnonzero(parallel.labels == c).tolist()) for c in np.unique(parallel.labels)]
        assert nx.community.modularity(G, parts) == pytest.approx(parallel.modularity, abs=1e-9)


def test_louvain_cpu_backend_reports_modularity_networkx_recomputes():
    G = nx.karate_club_graph()
    found = gpu_louvain(LouvainGraph.from_networkx(G, weight=None), "cpu")
    parts = [set(np.flatnonzero(found.labels == c).tolist()) for c in np.unique(found.labels)]
    assert nx.community.modularity(G, parts, weight=None) == pytest.approx(found.modularity, abs=1e-9)
    assert found.modularity >= 0.41


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_asynchronous_engine_is_as_good_as_networkx_s_louvain(seed):
    graph = _planted(2000, 12000, seed)
    found = gpu_louvain(graph, "cpu")
    assert found.valid and found.stats["engine"].startswith("asynchronous")
    G = graph.to_networkx()
    parts = [set(np.flatnonzero(found.labels == c).tolist()) for c in np.unique(found.labels)]
    assert nx.community.modularity(G, parts) == pytest.approx(found.modularity, abs=1e-9)
    theirs = nx.community.modularity(G, nx.community.louvain_communities(G, seed=seed))
    assert found.modularity >= 0.99 * theirs


def test_the_asynchronous_engine_on_threads(monkeypatch):
    from gpusim.algorithms.louvain import asynchronous
    from gpusim.runtime import threads

    monkeypatch.setattr(asynchronous, "PARALLEL_FROM", 0)   # every level's sweeps on the threads
    monkeypatch.setattr(threads, "MIN_THREADS", 1)
    graph = _planted(3000, 20000, 4)
    one = asynchronous.asynchronous_louvain(graph)   # the sweeps on numba's threads (however many there are)
    assert one.valid and one.modularity >= 0.99 * gpu_louvain(graph, "cpu", cpu_method="buckets").modularity


def test_the_cpu_method_follows_the_options():
    graph = _planted(300, 1500, 2)
    assert gpu_louvain(graph, "cpu").stats["engine"].startswith("asynchronous")
    buckets = gpu_louvain(graph, "cpu", layout="thread")   # an option of the GPU method's buckets
    assert buckets.stats["engine"].startswith("the GPU method's")
    assert buckets.labels.tolist() == louvain_reference.bucket_louvain(graph, layout="thread").labels.tolist()
    with pytest.raises(InvalidArgument, match="layout='thread' is an option of the GPU method's buckets"):
        gpu_louvain(graph, "cpu", cpu_method="asynchronous", layout="thread")
    with pytest.raises(InvalidArgument, match="cpu_method='fast' is not one of"):
        gpu_louvain(graph, "sim", cpu_method="fast")


# ---------------------------------------------------------------------------------------------------------
# compiled once per machine


def _modules():
    found = []
    for package in (gpusim.algorithms, importlib.import_module("gpusim.types")):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            found.append(importlib.import_module(info.name))
    return found


def _dispatchers(module):
    return [(name, obj) for name, obj in vars(module).items()
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__]


def test_every_compiled_function_but_the_parallel_ones_is_cached_and_reads_only_its_own_module():
    """numba invalidates a cached function when *its* file changes, not when a callee's or a constant's file
    does: a cached function that called into another module could run stale code after an edit there."""
    problems = []
    for module in _modules():
        parallel = []
        for name, dispatcher in _dispatchers(module):
            cached = type(dispatcher._cache).__name__ != "NullCache"
            if "prange" in dispatcher.py_func.__code__.co_names:   # a parallel loop
                parallel.append(name)
                if cached:   # numba 0.68 linked a cached parallel function's loop to another's (numba-org/numba#10128)
                    problems.append(f"{module.__name__}.{name} is parallel and cached on disk")
            elif not cached:
                problems.append(f"{module.__name__}.{name} is not cached on disk")
            fn = dispatcher.py_func
            for global_name in fn.__code__.co_names:
                value = fn.__globals__.get(global_name)
                if value is None or isinstance(value, types.ModuleType):
                    continue
                home = getattr(getattr(value, "py_func", None), "__module__", None)
                if home is not None and home != module.__name__:
                    problems.append(f"{module.__name__}.{name} calls {global_name} of {home}")
                if isinstance(value, (int, float, np.ndarray)) and global_name not in vars(module).get(
                        "__annotations__", {}) and not _defined_here(module, global_name):
                    problems.append(f"{module.__name__}.{name} reads the constant {global_name} of another module")
        if len(parallel) > 1:   # two parallel functions of one module ran each other's loops (numba 0.68)
            problems.append(f"{module.__name__} has several parallel functions: {parallel}")
    assert not problems, problems


def _defined_here(module, name: str) -> bool:
    source = Path(module.__file__).read_text()
    return f"\n{name} =" in source or f"\n{name}: " in source


def test_numba_num_threads_is_respected():
    script = ("import numba; from gpusim.algorithms.weighted.parallel_ld import parallel_locally_dominant;"
              "from gpusim.types.graphs import WeightedGraph;"
              "g = WeightedGraph.from_edges([0, 1], [1, 2], [1.0, 2.0]);"
              "print(parallel_locally_dominant(g, parallel_from=0).stats['threads'], numba.get_num_threads())")
    done = subprocess.run([sys.executable, "-c", script], env={**os.environ, "NUMBA_NUM_THREADS": "1"},
                          capture_output=True, text=True, timeout=600)
    assert done.stdout.split() == ["1", "1"], done.stderr


@pytest.mark.slow
def test_two_processes_compiling_into_one_empty_cache_agree(tmp_path):
    """Two processes fill one empty numba cache at the same time, then a third loads what they wrote."""
    script = textwrap.dedent("""
        import numpy as np
        from gpusim.algorithms.weighted.parallel_ld import parallel_locally_dominant
        from gpusim.algorithms.weighted.parallel_b import parallel_b_matching
        from gpusim.types.graphs import WeightedGraph
        g = WeightedGraph.from_edges([0, 1, 2, 0], [1, 2, 3, 3], [1.0, 3.0, 1.0, 2.0])
        print(parallel_locally_dominant(g, parallel_from=0).mate.tolist(),
              parallel_b_matching(g, 2, parallel_from=0).partners.tolist())
    """)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [run.communicate(timeout=900)[0] for run in runs]
    third = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=900)
    assert [run.returncode for run in runs] == [0, 0] and third.returncode == 0
    assert outputs[0] == outputs[1] == third.stdout
    assert any(tmp_path.rglob("*.nbc"))


def test_every_thread_gives_the_same_answers(monkeypatch):
    """With MIN_THREADS lowered the rounds and moves run on all of numba's threads: the same answers."""
    from gpusim.runtime import threads

    monkeypatch.setattr(threads, "MIN_THREADS", 1)
    monkeypatch.setattr(louvain_reference, "PARALLEL_FROM", 0)
    graph = _random_weighted(500, 3000, seed=4)
    assert np.array_equal(parallel_b_matching(graph, 3, parallel_from=0).partners, greedy_b_matching(graph, 3).partners)
    planted = _planted(300, 1500, 5)
    with threads.engine_threads() as used:
        assert used == numba.get_num_threads()
        labels = louvain_reference.bucket_louvain(planted, parallel=True).labels
    assert labels.tolist() == louvain_reference.bucket_louvain(planted).labels.tolist()
