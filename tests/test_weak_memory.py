"""The weak memory mode: litmus tests, spins on plain loads, and atomicFlip without its fence (seed 002).

Each litmus test runs a two-thread kernel under many seeds and asserts both halves of the promise:
every outcome the model allows is reached within a bounded number of runs, and no forbidden
outcome ever appears.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.algorithms.weighted import roma
from gpusim.errors import InvalidArgument, InvariantViolation, Livelock
from gpusim.zoo.roma_twins import atomic_flip_without_fence

RUNS = 400


def outcomes(litmus, runs=RUNS, policy="random", **options):
    """The set of ``(r0, r1)`` results of ``litmus`` over ``runs`` seeds in weak mode."""
    seen = set()
    for seed in range(runs):
        dev = Device("sim", policy=policy, seed=seed, memory="weak", trace=False, **options)
        x, y, out = dev.zeros(1), dev.zeros(1), dev.zeros(2)
        dev.launch(litmus, grid=1, block=2, args=(x, y, out))
        seen.add(tuple(int(v) for v in dev.to_host(out)))
    return seen


# -- message passing ------------------------------------------------------------------------------
@kernel(signature="int32[:], int32[:], int32[:]")
def message_passing(data, flag, out):
    if T.thread_id() == 0:
        data[0] = 1
        flag[0] = 1
    else:
        r0 = flag[0]
        r1 = data[0]
        out[0] = r0
        out[1] = r1


@kernel(signature="int32[:], int32[:], int32[:]")
def message_passing_fenced(data, flag, out):
    if T.thread_id() == 0:
        data[0] = 1
        T.threadfence()
        flag[0] = 1
    else:
        r0 = flag[0]
        T.threadfence()
        r1 = data[0]
        out[0] = r0
        out[1] = r1


def test_message_passing_without_fences_can_see_the_flag_but_not_the_data():
    assert outcomes(message_passing) == {(0, 0), (0, 1), (1, 1), (1, 0)}


def test_message_passing_with_fences_never_sees_the_flag_without_the_data():
    assert outcomes(message_passing_fenced) == {(0, 0), (0, 1), (1, 1)}


def test_sequential_consistency_never_shows_the_stale_message():
    seen = set()
    for seed in range(RUNS):
        dev = Device("sim", seed=seed, trace=False)
        x, y, out = dev.zeros(1), dev.zeros(1), dev.zeros(2)
        dev.launch(message_passing, grid=1, block=2, args=(x, y, out))
        seen.add(tuple(int(v) for v in dev.to_host(out)))
    assert seen == {(0, 0), (0, 1), (1, 1)}


# -- store buffering ------------------------------------------------------------------------------
@kernel(signature="int32[:], int32[:], int32[:]")
def store_buffering(x, y, out):
    if T.thread_id() == 0:
        x[0] = 1
        out[0] = y[0]
    else:
        y[0] = 1
        out[1] = x[0]


@kernel(signature="int32[:], int32[:], int32[:]")
def store_buffering_fenced(x, y, out):
    if T.thread_id() == 0:
        x[0] = 1
        T.threadfence()
        out[0] = y[0]
    else:
        y[0] = 1
        T.threadfence()
        out[1] = x[0]


def test_store_buffering_lets_both_threads_read_the_old_value():
    assert outcomes(store_buffering) == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_store_buffering_with_fences_never_reads_both_old_values():
    assert outcomes(store_buffering_fenced) == {(0, 1), (1, 0), (1, 1)}


# -- load buffering: the model performs loads in program order, so r0 = r1 = 1 is never produced ----
@kernel(signature="int32[:], int32[:], int32[:]")
def load_buffering(x, y, out):
    if T.thread_id() == 0:
        out[0] = x[0]
        y[0] = 1
    else:
        out[1] = y[0]
        x[0] = 1


def test_load_buffering_is_outside_the_model():
    assert outcomes(load_buffering) == {(0, 0), (0, 1), (1, 0)}


# -- coherence of reads (CoRR) ------------------------------------------------------------------------
@kernel(signature="int32[:], int32[:], int32[:]")
def read_read_coherence(x, unused, out):
    if T.thread_id() == 0:
        x[0] = 1
        x[0] = 2
    else:
        r0 = x[0]
        r1 = x[0]
        out[0] = r0
        out[1] = r1


def test_two_reads_of_one_location_never_go_back_in_time():
    allowed = {(a, b) for a, b in product(range(3), repeat=2) if a <= b}
    assert outcomes(read_read_coherence) == allowed


# -- a CAS spin lock around a plain read-modify-write -----------------------------------------------
@kernel(signature="int32[:], int32[:], int32")
def locked_increment(lock, counter, fenced):
    while T.atomic_cas(lock, 0, 0, 1) != 0:
        pass
    if fenced:
        T.threadfence()
    counter[0] = counter[0] + 1
    if fenced:
        T.threadfence()
    T.atomic_exch(lock, 0, 0)


def lock_counts(fenced: int, threads: int = 3, runs: int = 300) -> set[int]:
    counts = set()
    for seed in range(runs):
        dev = Device("sim", seed=seed, memory="weak", trace=False)
        lock, counter = dev.zeros(1), dev.zeros(1)
        dev.launch(locked_increment, grid=1, block=threads, args=(lock, counter, fenced))
        counts.add(int(dev.to_host(counter)[0]))
    return counts


def test_a_lock_without_fences_loses_updates_in_weak_memory():
    assert lock_counts(fenced=0) == {1, 2, 3}


def test_a_lock_with_fences_never_loses_an_update():
    assert lock_counts(fenced=1) == {3}


# -- spinning on a flag ---------------------------------------------------------------------------------
@kernel(signature="int32[:], int32", check=False)
def spin_on_plain_load(flag, how):
    """Thread 0 sets the flag with a plain store; thread 1 waits for it (how: 0 plain load, 1 atomic, 2 fence)."""
    if T.thread_id() == 0:
        flag[0] = 1
    elif how == 0:
        while flag[0] == 0:
            pass
    elif how == 1:
        while T.atomic_load(flag, 0) == 0:
            pass
    else:
        while flag[0] == 0:
            T.threadfence()


def spin(how: int, seeds: range, memory: str = "weak") -> list[int]:
    """The seeds under which the spin never ends."""
    stuck = []
    for seed in seeds:
        dev = Device("sim", seed=seed, memory=memory, trace=False, livelock_steps=2_000)
        try:
            dev.launch(spin_on_plain_load, grid=1, block=2, args=(dev.zeros(1), how))
        except Livelock as bug:
            assert "thread (block 0, thread 1)" in str(bug)
            stuck.append(seed)
    return stuck


def test_a_spin_on_a_plain_load_can_spin_forever_in_weak_memory():
    assert spin(0, range(20))


@pytest.mark.parametrize("how", [1, 2], ids=["atomic_load", "threadfence"])
def test_a_spin_with_an_atomic_load_or_a_fence_always_ends(how):
    assert spin(how, range(40)) == []


def test_a_spin_on_a_plain_load_ends_under_sequential_consistency():
    assert spin(0, range(20), memory="sc") == []


# -- seed 002: atomicFlip without __threadfence -----------------------------------------------------------
def explore_roma(memory: str, budget: int, kernels=None):
    for seed in range(budget):
        weights = np.random.default_rng(seed).random((8, 8))
        weights = weights + weights.T
        try:
            roma(weights, "i,i+1", variant="thread", threshold=0.0, check_invariants=True,
                 device=Device("sim", seed=seed, trace=False, memory=memory), kernels=kernels)
        except InvariantViolation as bug:
            return bug
    return None


def test_atomic_flip_without_its_fence_breaks_the_matching_in_weak_memory():
    assert explore_roma("weak", budget=30) is None  # the real atomicFlip, fence included
    assert explore_roma("sc", budget=10, kernels=atomic_flip_without_fence) is None  # SC cannot show it
    bug = explore_roma("weak", budget=60, kernels=atomic_flip_without_fence)
    assert bug is not None and "no longer perfect" in str(bug)
    assert bug.token


# -- replay and bad values ----------------------------------------------------------------------------------
def test_the_replay_token_reproduces_a_weak_run_bit_for_bit():
    for seed in range(RUNS):
        dev = Device("sim", seed=seed, memory="weak")
        x, y, out = dev.zeros(1), dev.zeros(1), dev.zeros(2)
        run = dev.launch(message_passing, grid=1, block=2, args=(x, y, out))
        if tuple(dev.to_host(out)) == (1, 0):
            break
    replay = Device("sim", schedule=dev.token)
    x2, y2, out2 = replay.zeros(1), replay.zeros(1), replay.zeros(2)
    again = replay.launch(message_passing, grid=1, block=2, args=(x2, y2, out2))
    assert tuple(replay.to_host(out2)) == (1, 0)
    assert again.trace == run.trace and again.memory == "weak"
    assert any(event.op == "publish" for event in run.trace)


@pytest.mark.parametrize("option, value", [("memory", "tso"), ("memory", None), ("warps", "simd"),
                                           ("races", "on"), ("races", True)])
def test_bad_mode_values_are_refused_naming_the_value(option, value):
    with pytest.raises(InvalidArgument, match=f"{option}={value!r}"):
        Device("sim", **{option: value})
