"""Parallel ROMA (seed 002, Alg. 6–8): a perfect matching whose weight never decreases, converged when told."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim import Device
from gpusim.algorithms.weighted import roma
from gpusim.backends.sim import RandomWalk
from gpusim.errors import InvalidArgument, InvariantViolation
from gpusim.testing.strategies import schedules
from gpusim.types.complete_graphs import exponential, geometric, uniform
from gpusim.zoo.roma_twins import atomic_flip_max_first, atomic_flip_own_vertex_first, atomic_flip_without_mates_check

GENERATORS = {"uniform": uniform, "exponential": exponential, "geometric": geometric}
policies = st.one_of(schedules(max_preemptions=4, max_step=5000),
                     st.integers(0, 2**32 - 1).map(lambda seed: RandomWalk(seed=seed)))


def positive_gain_cycles(w, mate):
    """Every swap of two matching edges that gains weight, by brute force (independent of gpusim)."""
    edges = [(u, int(mate[u])) for u in range(len(mate)) if u < mate[u]]
    found = []
    for (u, v), (x, y) in itertools.combinations(edges, 2):
        now = w[u, v] + w[x, y]
        if max(w[u, x] + w[v, y], w[u, y] + w[v, x]) > now + 1e-12:
            found.append(((u, v), (x, y)))
    return found


def assert_perfect_and_monotone(result, n):
    mate = result.mate
    assert sorted(mate.tolist()) == list(range(n))
    assert all(mate[mate[v]] == v and mate[v] != v for v in range(n))
    weights = result.stats["phase_weights"]
    assert all(later >= earlier - 1e-9 for earlier, later in zip(weights, weights[1:], strict=False))


@settings(max_examples=20)
@pytest.mark.parametrize("variant", ["block", "thread"])
@given(half=st.integers(1, 5), kind=st.sampled_from(sorted(GENERATORS)), seed=st.integers(0, 1000),
       start=st.sampled_from(["i,i+1", "i,i+n/2", "shuffled"]), policy=policies)
def test_converges_to_no_positive_gain_cycle_under_any_schedule(variant, half, kind, seed, start, policy):
    n = 2 * half
    w = GENERATORS[kind](n, seed)
    device = Device("sim", policy=policy, trace=False, races="off")
    result = roma(w, start, variant=variant, threshold=0.0, device=device, check_invariants=True)
    assert_perfect_and_monotone(result, n)
    assert positive_gain_cycles(w, result.mate) == []
    assert result.weight == pytest.approx(sum(w[v, result.mate[v]] for v in range(n)) / 2)


@pytest.mark.parametrize("variant", ["block", "thread"])
def test_on_every_backend(variant, backend):
    w = exponential(24, 3)
    options = {"policy": "random", "seed": 2} if backend == "sim" else {}
    result = roma(w, "i,i+1", variant=variant, threshold=0.0, device=Device(backend, **options))
    assert_perfect_and_monotone(result, 24)
    assert positive_gain_cycles(w, result.mate) == []


def test_threshold_and_phase_limit():
    w = uniform(12, 1)
    one = roma(w, "i,i+1", max_phases=1, backend="sim")
    assert one.stats["phases"] == 1 and len(one.stats["phase_weights"]) == 2
    coarse = roma(w, "i,i+1", threshold=10.0, backend="sim")
    assert coarse.stats["phase_flips"] == [0] and coarse.weight == coarse.stats["phase_weights"][0]


def test_odd_n_with_padding_leaves_one_vertex_unmatched():
    w = uniform(7, 4)
    result = roma(w, "i,i+1", pad=True, threshold=0.0, backend="sim")
    assert (result.mate == -1).sum() == 1
    matched = np.flatnonzero(result.mate >= 0)
    assert (result.mate[result.mate[matched]] == matched).all()


def explore(graph_size, variant, budget=300, kernels=None):
    for seed in range(budget):
        w = uniform(graph_size, seed % 7)
        try:
            roma(w, "i,i+1", variant=variant, threshold=0.0, check_invariants=True,
                 device=Device("sim", policy="random", seed=seed, trace=False), kernels=kernels)
        except InvariantViolation as bug:
            return bug
    return None


@pytest.mark.quality
@pytest.mark.parametrize("variant", ["block", "thread"])
def test_locking_your_own_vertex_first_can_stall_a_phase(variant):
    assert explore(4, variant) is None
    bug = explore(4, variant, kernels=atomic_flip_own_vertex_first)
    assert bug is not None and "flipped nothing though a 4-cycle" in str(bug)
    assert bug.token


@pytest.mark.quality
@pytest.mark.parametrize("variant", ["block", "thread"])
def test_locking_max_first_is_still_a_global_order(variant):
    # Lemma 4.1.1's argument works for any one global lock order: max-first never stalls either.
    assert explore(4, variant, budget=150, kernels=atomic_flip_max_first) is None


@pytest.mark.quality
@pytest.mark.parametrize("variant", ["block", "thread"])
def test_flipping_without_the_mates_check_breaks_the_matching(variant):
    assert explore(8, variant, budget=100) is None
    bug = explore(8, variant, kernels=atomic_flip_without_mates_check)
    assert bug is not None and "no longer perfect" in str(bug)


BAD = [
    ("odd n without pad", lambda: roma(uniform(5, 0), backend="sim"), "n odd"),
    ("not square", lambda: roma(np.ones((2, 3)), backend="sim"), "(2, 3)"),
    ("not symmetric", lambda: roma(np.array([[0, 1.0], [2.0, 0]]), backend="sim"), "symmetric"),
    ("negative weight", lambda: roma(np.array([[0, -1.0], [-1.0, 0]]), backend="sim"), "-1"),
    ("NaN weight", lambda: roma(np.array([[0, np.nan], [np.nan, 0]]), backend="sim"), "nan"),
    ("unknown start", lambda: roma(uniform(4, 0), "best", backend="sim"), "'best'"),
    ("unknown variant", lambda: roma(uniform(4, 0), variant="warp", backend="sim"), "variant='warp'"),
    ("negative threshold", lambda: roma(uniform(4, 0), threshold=-1, backend="sim"), "threshold=-1"),
]


@pytest.mark.parametrize("what, call, fragment", BAD, ids=[case[0] for case in BAD])
def test_bad_input(what, call, fragment):
    with pytest.raises(InvalidArgument) as caught:
        call()
    assert fragment in str(caught.value)
