"""benchmarks/louvain.py's timing of gpusim: every call once untimed, then rounds that call each once in turn, and
each row's best round, with the modularity of a device-resident call recomputed from its labels."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import benchmark_scripts
import networkx as nx
import numpy as np
import pytest

from gpusim.algorithms.louvain import LouvainGraph
from gpusim.types.device_graphs import DeviceWeightedGraph

louvain_bench = benchmark_scripts.load("louvain")

#: Each call's seconds, round by round.
ROUNDS = {"buckets": [0.5, 0.3, 0.4], "paper": [0.2, 0.6, 0.1], "resident": [0.7, 0.7, 0.25]}


@pytest.fixture
def karate():
    graph = nx.karate_club_graph()
    clubs = np.array([graph.nodes[v]["club"] == "Officer" for v in graph], dtype=np.int32)
    return graph, LouvainGraph.from_networkx(graph), clubs


def test_each_round_calls_every_row_once_and_a_row_keeps_its_best_round(monkeypatch, karate):
    nx_graph, graph, clubs = karate
    calls: list[str] = []

    def fake_louvain(given, device=None, **options):
        name = "resident" if isinstance(given, DeviceWeightedGraph) else options.get("kernels", "buckets")
        calls.append(name)
        stats = {"seconds": {"optimise": 0.01}, "levels": 1, "sweeps": [1], "launches": {}, "refine_sweeps": 0}
        return SimpleNamespace(labels=clubs, stats=stats, modularity=0.5, n_communities=2, valid=True)

    def scripted_timed(call):
        result = call()
        return ROUNDS[calls[-1]][sum(c == calls[-1] for c in calls) - 2], result  # the untimed call is the first

    monkeypatch.setattr(louvain_bench, "louvain", fake_louvain)
    monkeypatch.setattr(louvain_bench, "timed", scripted_timed)
    options = argparse.Namespace(bin_thresholds=[louvain_bench.T_BIN], paper_rules=False, thread=False,
                                 resident=True, repeats=3)
    rows: list[dict] = []
    louvain_bench.gpusim_rows(rows, {"graph": "karate", "n": graph.n}, graph, ["sim"], options)

    assert calls == ["buckets", "paper", "resident"] * 4  # one untimed pass, then three rounds in the same order
    seconds = {row["program"]: row["seconds"] for row in rows}
    assert seconds == {"gpusim buckets": 0.3, "gpusim paper tables": 0.1, "gpusim resident": 0.25}
    resident = next(row for row in rows if row["program"] == "gpusim resident")
    expected = nx.community.modularity(nx_graph, [set(np.flatnonzero(clubs == c)) for c in (0, 1)])
    assert resident["modularity"] == pytest.approx(expected)  # from its labels, not the result's own figure
    assert all(row["backend"] == "sim" and row["valid"] for row in rows)
