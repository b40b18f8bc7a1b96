"""Test helpers: a stand-in GPU device and a small random weighted graph, for the tests of what a call keeps
between calls (plans, work arrays) and of where its device work runs."""

from __future__ import annotations

import numpy as np

from gpusim import Device
from gpusim.types.graphs import WeightedGraph


def stand_in_gpu() -> Device:
    """The simulator under a GPU backend's name: the drivers keep their plans and work arrays for it, and take its
    launch shapes (one block of 1024 threads for a small bipartite graph), while every kernel still runs, checked,
    on the simulator."""
    dev = Device("sim", trace=False)
    dev.backend = "cupy"
    return dev


def random_weighted_graph(n: int, m: int, seed: int) -> WeightedGraph:
    """About ``m`` random edges on ``n`` vertices, integer weights 1-5 (ties, broken by the ids as the greedy
    matching does)."""
    rng = np.random.default_rng(seed)
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    pairs = sorted({(min(a, b), max(a, b)) for a, b in zip(u.tolist(), v.tolist(), strict=True) if a != b})
    weights = rng.integers(1, 6, len(pairs)).astype(float)
    return WeightedGraph.from_edges([a for a, _ in pairs], [b for _, b in pairs], weights, n=n)
