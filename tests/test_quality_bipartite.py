"""The papers' races are real in the simulator: remove a repair and the explorer finds the bug.

Each broken twin (gpusim/zoo/bipartite_twins.py) replaces one step of a real kernel (``kernels=``); the same
budget of random schedules that finds the twin's bug finds nothing in the real kernel.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpusim.algorithms.bipartite as bipartite
from gpusim import Device
from gpusim.errors import InvariantViolation, KernelBug, Livelock
from gpusim.types.graphs import BipartiteGraph
from gpusim.zoo.bipartite_twins import alternate_without_predecessor_check, push_active_without_ia_guard

pytestmark = pytest.mark.quality
BUDGET = 200  # schedules

# Fig. 1 of seed 000: c0 reaches free r0 directly and free r2 through r1 (matched to c1).
FIGURE_1 = BipartiteGraph.from_edges([0, 1, 1, 2], [0, 0, 1, 1])
FIGURE_1_MATCHING = (np.array([-1, 1, -1], np.int32), np.array([-1, 1], np.int32))
# Two free columns wanting one row: the second push meets the first column, active in the same loop.
ONE_ROW_TWO_COLUMNS = BipartiteGraph.from_edges([0, 0], [0, 1])


def explore(algorithm, **options):
    """Run ``algorithm`` under random schedules; return the first kernel bug found, or None."""
    for seed in range(BUDGET):
        device = Device("sim", policy="random", seed=seed, trace=False, max_steps=50_000)
        try:
            algorithm(device=device, check_invariants=True, **options)
        except KernelBug as bug:
            return bug
    return None


def alternate_run(device, check_invariants, kernels=None):
    return bipartite.apfb(FIGURE_1, device=device, initial=FIGURE_1_MATCHING, bfs="plain", layout="mt",
                          check_invariants=check_invariants, kernels=kernels)


def push_run(device, check_invariants, kernels=None):
    return bipartite.gpr(ONE_ROW_TWO_COLUMNS, device=device, initial="empty", check_invariants=check_invariants,
                         kernels=kernels)


def test_alternate_without_predecessor_check_loops_forever():
    assert explore(alternate_run) is None
    bug = explore(alternate_run, kernels=alternate_without_predecessor_check)
    assert isinstance(bug, (Livelock, InvariantViolation))
    assert "the launch of gpusim.algorithms.bipartite.kernels_bfs.alternate " in str(bug)  # the twin is its variant
    assert bug.token


def test_push_without_ia_guard_lists_a_column_twice():
    assert explore(push_run) is None
    twin = push_active_without_ia_guard
    bug = explore(push_run, kernels=twin)
    assert isinstance(bug, InvariantViolation)
    # either column, by the graph's symmetry (which one depends on the schedules drawn, hence on the launches)
    assert "holds column(s) [0] twice" in str(bug) or "holds column(s) [1] twice" in str(bug)
    # the token replays the failing launches exactly
    replay = Device("sim", schedule=bug.token, max_steps=50_000)
    with pytest.raises(InvariantViolation):
        push_run(replay, True, twin)
