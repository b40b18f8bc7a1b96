"""gpusim behind NetworkX's dispatch as NetworkX's own backends are: NetworkX's test files pass through it, with
the expected failures it declares (each with its reason); ``nx.config.backend_priority`` sends calls to it;
``louvain_partitions`` and ``max_level`` agree; a second call warns about nothing; what it does not implement,
or a directed graph, goes to NetworkX."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import networkx as nx
import pytest

from gpusim.interop import networkx_backend
from gpusim.interop.networkx_backend import _ENGINE_DEPENDENT, EXPECTED_FAILURES, BackendInterface

pytestmark = pytest.mark.skipif("gpusim" not in nx.utils.backends.backends,
                                reason="gpusim's networkx.backends entry point is not installed (pip install -e .)")

NETWORKX_TESTS = ("networkx.algorithms.community.tests.test_louvain",
                  "networkx.algorithms.bipartite.tests.test_matching")


def test_networkx_test_files_pass_through_the_backend(tmp_path):
    env = {**os.environ, "NETWORKX_TEST_BACKEND": "gpusim", "NETWORKX_FALLBACK_TO_NX": "True"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "-rxX", "--pyargs", *NETWORKX_TESTS], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|xfailed|xpassed|error)", summary)}
    assert counts.get("failed", 0) == counts.get("error", 0) == 0, summary
    assert counts["passed"] >= 25, summary
    # an engine-dependent one may pass (where auto runs the GPU method); every other declared failure fails
    assert counts.get("xpassed", 0) <= len(_ENGINE_DEPENDENT), summary
    assert counts.get("xfailed", 0) + counts.get("xpassed", 0) == len(EXPECTED_FAILURES) <= 5, summary
    for (_, name) in EXPECTED_FAILURES:  # each declared failure ran and gave its reason
        assert re.search(rf"X(FAIL|PASS) .*{name} - .*seed", done.stdout), name


def test_backend_priority_sends_calls_to_gpusim(monkeypatch):
    calls = []
    original = BackendInterface.louvain_communities

    def counted(*args, **kwargs):
        calls.append(kwargs.get("weight"))
        return original(*args, **kwargs)

    monkeypatch.setattr(BackendInterface, "louvain_communities", staticmethod(counted))
    saved = nx.config.backend_priority
    G = nx.karate_club_graph()
    try:
        nx.config.backend_priority = ["gpusim"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a second call on the same graph: no cache warning
            first = nx.community.louvain_communities(G, weight=None)
            second = nx.community.louvain_communities(G, weight=None)
        assert calls == [None, None] and first == second
        assert nx.pagerank(G)[0] > 0  # not implemented here: NetworkX's own
    finally:
        nx.config.backend_priority = saved
    assert nx.community.modularity(G, first, weight=None) >= 0.4188  # NetworkX's own, seed 2: 0.41880


def test_max_level_is_a_partition_of_louvain_partitions():
    G = nx.LFR_benchmark_graph(250, 3, 1.5, 0.009, average_degree=5, min_community=20, seed=10)
    levels = list(nx.community.louvain_partitions(G, backend="gpusim"))
    assert len(levels) > 1 and all(nx.community.is_partition(G, p) for p in levels)
    for k, expected in enumerate(levels, 1):
        assert nx.community.louvain_communities(G, max_level=k, backend="gpusim") == expected
    assert nx.community.louvain_communities(G, max_level=len(levels) + 3, backend="gpusim") == levels[-1]
    assert nx.community.louvain_communities(G, backend="gpusim") == levels[-1]
    quality = [nx.community.modularity(G, p) for p in levels]
    assert quality == sorted(quality) and nx.community.partition_quality(G, levels[-1])[0] >= 0.65
    with pytest.raises(ValueError, match="max_level"):
        nx.community.louvain_communities(G, max_level=0, backend="gpusim")


def test_what_gpusim_does_not_implement_goes_to_networkx():
    directed = nx.DiGraph([(0, 1), (1, 2)])
    assert isinstance(BackendInterface.can_run("louvain_communities", (directed,), {}), str)
    assert isinstance(BackendInterface.can_run("max_weight_matching", (nx.path_graph(3),), {}), str)
    assert BackendInterface.can_run("louvain_partitions", (nx.path_graph(3),), {}) is True
    info = networkx_backend.get_info()
    assert set(info["functions"]) == {"louvain_communities", "louvain_partitions", "hopcroft_karp_matching"}
