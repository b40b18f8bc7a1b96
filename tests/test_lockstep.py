"""Lockstep warps: one path at a time per warp, reconvergence at the end of each statement, and the
pre-Volta intra-warp spin-lock deadlock that independent thread scheduling does not have."""

from __future__ import annotations

import numpy as np
import pytest
import sim_kernels as K

from gpusim import Device, T, kernel
from gpusim.errors import Livelock


@kernel(signature="int32[:], int32[:]")
def spin_lock(lock, counter):
    while T.atomic_cas(lock, 0, 0, 1) != 0:
        pass
    counter[0] = counter[0] + 1
    T.atomic_exch(lock, 0, 0)


SPIN_LINE = spin_lock.lineno + 2  # the while


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", ["random", "pct", "sequential"])
def test_a_warp_spinning_on_a_lock_one_lane_holds_livelocks_in_lockstep(policy, seed):
    dev = Device("sim", policy=policy, seed=seed, warps="lockstep", trace=False, livelock_steps=3_000)
    with pytest.raises(Livelock) as caught:
        dev.launch(spin_lock, grid=1, block=32, args=(dev.zeros(1), dev.zeros(1)))
    text = str(caught.value)
    assert "intra-warp livelock" in text and f"after the statement at test_lockstep.py:{SPIN_LINE}" in text
    waiting = text.split("lanes [", 1)[1].split("]", 1)[0]
    assert len(waiting.split(",")) == 1  # the one lane that holds the lock waits for the 31 spinning on it
    assert caught.value.token


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("policy", ["random", "pct", "sequential"])
def test_the_same_spin_lock_completes_with_independent_thread_scheduling(policy, seed):
    dev = Device("sim", policy=policy, seed=seed, trace=False)
    counter = dev.zeros(1)
    dev.launch(spin_lock, grid=1, block=32, args=(dev.zeros(1), counter))
    assert dev.to_host(counter)[0] == 32


def test_the_deadlock_is_found_through_a_device_helper_too():
    dev = Device("sim", seed=0, warps="lockstep", trace=False, livelock_steps=3_000)
    with pytest.raises(Livelock, match="intra-warp livelock"):
        dev.launch(K.locked_count, grid=1, block=32, args=(dev.zeros(1), dev.zeros(1), 32))


def test_one_lane_per_warp_taking_the_lock_is_fine_in_lockstep():
    dev = Device("sim", seed=0, warps="lockstep", trace=False)
    counter = dev.zeros(1)
    dev.launch(K.locked_count, grid=4, block=1, args=(dev.zeros(1), counter, 4))
    assert dev.to_host(counter)[0] == 4


@kernel(signature="int32[:], int32[:], int32[:]")
def two_sides(a, b, after):
    lane = T.lane_id()
    if lane < 16:
        a[lane] = 1
    else:
        b[lane] = 2
    after[lane] = 3


def store_order(warps: str, seed: int) -> list[str]:
    dev = Device("sim", seed=seed, warps=warps)
    run = dev.launch(two_sides, grid=1, block=32, args=(dev.zeros(32), dev.zeros(32), dev.zeros(32)))
    return [event.array for event in run.trace if event.op == "store"]


@pytest.mark.parametrize("seed", range(4))
def test_lockstep_runs_the_if_side_then_the_else_side_then_reconverges(seed):
    order = store_order("lockstep", seed)
    assert order == ["a"] * 16 + ["b"] * 16 + ["after"] * 32


def test_independent_lanes_interleave_both_sides():
    assert any(store_order("independent", seed) != ["a"] * 16 + ["b"] * 16 + ["after"] * 32 for seed in range(4))


@kernel(signature="int32[:], int32")
def loops_with_jumps(out, n):
    """for/while with continue, break and an early return inside divergent branches."""
    lane = T.lane_id()
    total = 0
    for k in range(lane % 5):
        if k == 1:
            continue
        total += k
    j = 0
    while j < 40:
        if j > lane:
            break
        j += 3
    if lane == 31:
        out[lane] = -1
        return
    out[lane] = total * 100 + j


@pytest.mark.parametrize("seed", range(3))
def test_break_continue_and_return_reconverge_and_compute_the_same_as_independent(seed):
    results = {}
    for warps in ("independent", "lockstep"):
        dev = Device("sim", seed=seed, warps=warps, trace=False)
        out = dev.zeros(32)
        dev.launch(loops_with_jumps, grid=1, block=32, args=(out, 32))
        results[warps] = dev.to_host(out).tolist()
    assert results["lockstep"] == results["independent"]
    assert results["lockstep"][31] == -1 and results["lockstep"][9] == (0 + 2 + 3) * 100 + 12


@pytest.mark.parametrize("seed", range(3))
def test_warp_shuffles_after_a_divergent_loop_still_work_in_lockstep(seed):
    rng = np.random.default_rng(seed)
    degrees = rng.integers(0, 70, 3)
    ptr = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int32)
    adj = rng.integers(0, 1000, max(1, ptr[-1])).astype(np.int32)
    dev = Device("sim", seed=seed, warps="lockstep", trace=False)
    out = dev.full(3, -7, np.int32)
    dev.launch(K.neighbour_max, grid=3, block=32, args=(dev.array(ptr), dev.array(adj), out, 3))
    expected = [adj[ptr[v]:ptr[v + 1]].max() if degrees[v] else -1 for v in range(3)]
    assert dev.to_host(out).tolist() == expected


def test_a_lockstep_run_replays_from_its_token():
    dev = Device("sim", seed=5, warps="lockstep")
    run = dev.launch(two_sides, grid=1, block=32, args=(dev.zeros(32), dev.zeros(32), dev.zeros(32)))
    replay = Device("sim", schedule=dev.token)
    again = replay.launch(two_sides, grid=1, block=32, args=(replay.zeros(32), replay.zeros(32), replay.zeros(32)))
    assert again.trace == run.trace and again.warps == "lockstep"
