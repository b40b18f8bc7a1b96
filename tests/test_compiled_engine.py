"""The compiled engine against the reference simulator: every compiled run replays there exactly.

The oracle is the reference simulator (greenlets, an independent implementation of the same rules):
each compiled run's replay token is replayed on it, and the two must agree on the outcome, the step
count, the schedule and the final memory.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim import Device, T, device, kernel
from gpusim.errors import InvalidArgument, Livelock, OutOfBounds, UninitialisedRead
from gpusim.explore import explore, get_scenario, replay
from gpusim.zoo import classic_kernels as zoo_kernels

# -- a kernel that uses every construct the lowering rewrites --------------------------------------------


@device
def first_at_least(values, n, bound):
    """The first index whose value is at least ``bound`` (a return inside a loop), else -1."""
    for k in range(n):
        if values[k] >= bound:
            return k
    return -1


@device
def bump(out, i, by):
    """A device function without a return value that writes memory."""
    out[i] += by


@kernel(signature="int32[:], int32[:], int32[:], int32")
def mixed(values, out, flags, n):
    cache = T.shared_array(8, T.i32)
    i = T.gtid()
    t = T.thread_id()
    b = T.block_size()
    if i < n and values[i] > 0:  # short-circuit: thread n must not read values[n]
        out[i] += values[(i + 1) % n]
    out[b + i] = first_at_least(values, n, i)
    cache[t] = (values[i] if i < n else out[0]) + 1
    T.syncthreads()
    out[2 * b + i] = cache[(t + 1) % b]
    if i == n:
        return
    while T.atomic_load(flags, 0) == 0 and i != 0:  # a spin on a flag thread 0 sets
        pass
    if i == 0:
        T.atomic_exch(flags, 0, 1)
    T.atomic_add(flags, 1, i)
    T.atomic_max(flags, 2, values[i % n])
    T.atomic_min(flags, 3, values[i % n])
    if T.atomic_cas(flags, 4, 0, i + 1) == 0 or T.atomic_load(flags, 4) == i + 1:
        bump(flags, 5, 1)
    T.threadfence()


def _run_mixed(dev: Device, threads: int = 6):
    n = threads - 1
    values = dev.array(np.array([3, 0, 5, 1, 4, 2, 7, 6][:n], np.int32))
    out = dev.zeros(3 * threads, np.int32)
    flags = dev.array(np.array([0, 0, -100, 100, 0, 0], np.int32))
    dev.launch(mixed, grid=1, block=threads, args=(values, out, flags, n))
    return dev.to_host(out), dev.to_host(flags)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_every_construct_replays_exactly_on_the_reference(seed):
    compiled = Device("sim", engine="compiled", trace=False, seed=seed)
    out, flags = _run_mixed(compiled)
    reference = Device("sim", schedule=compiled.token, trace=False)
    again_out, again_flags = _run_mixed(reference)
    assert np.array_equal(out, again_out) and np.array_equal(flags, again_flags)
    assert reference.runs[0].steps == compiled.runs[0].steps
    assert reference.runs[0].schedule == compiled.runs[0].schedule
    assert compiled.runs[0].policy.endswith("(compiled)")
    # What holds under every schedule, from the kernel's meaning (not from either engine):
    assert flags.tolist()[:4] == [1, 0 + 1 + 2 + 3 + 4, 5, 0] and flags[5] == 1
    assert out[:5].tolist() == [0, 0, 1, 4, 3]
    assert out[6:12].tolist() == [0, 0, 0, 0, 2, 2] and out[12:].tolist() == [1, 6, 2, 5, 1, 4]


@pytest.mark.parametrize("name", ["lost_update", "lost_update.fixed", "reduction_missing_syncthreads",
                                  "reduction_missing_syncthreads.fixed", "barrier_in_divergent_code"])
def test_zoo_scenarios_agree_with_the_reference(name):
    scenario = get_scenario(name)
    outcomes = set()
    for seed in range(150):
        outcome, dev = scenario.execute(engine="compiled", policy="random", seed=seed, trace=False)
        again, replayed = scenario.execute(schedule=dev.token, trace=False)
        assert (outcome and (outcome.kind, outcome.message)) == (again and (again.kind, again.message))
        assert [run.steps for run in dev.runs] == [run.steps for run in replayed.runs]
        outcomes.add(outcome.kind if outcome else None)
    assert outcomes == ({None} if name.endswith(".fixed") else
                        {"BarrierDivergence"} if name == "barrier_in_divergent_code" else {None, "invariant"})


# -- kernel bugs: found compiled, reported by the reference ---------------------------------------------------


@kernel(signature="int32[:], int32")
def read_past_the_end(values, n):
    i = T.gtid()
    values[i] = values[i + 1]


@kernel(signature="int32[:]")
def read_before_write(out):
    scratch = T.shared_array(4, T.i32)
    t = T.thread_id()
    if t > 0:
        scratch[t] = t
    out[t] = scratch[(t + 1) % 4]


@kernel(signature="int32[:]")
def wait_forever(flag):
    while T.atomic_load(flag, 0) == 0:
        pass


@pytest.mark.parametrize("launch, error", [
    (lambda dev: dev.launch(read_past_the_end, 1, 4, (dev.zeros(4, np.int32), 4)), OutOfBounds),
    (lambda dev: dev.launch(read_before_write, 1, 4, (dev.zeros(4, np.int32),)), UninitialisedRead),
    (lambda dev: dev.launch(wait_forever, 1, 2, (dev.zeros(1, np.int32),)), Livelock),
])
def test_a_broken_rule_is_reported_by_the_reference_with_a_replayable_token(launch, error):
    dev = Device("sim", engine="compiled", trace=False, seed=3, livelock_steps=500, spin_steps=16)
    with pytest.raises(error) as raised:
        launch(dev)
    assert raised.value.token == dev.token
    again = Device("sim", schedule=dev.token, livelock_steps=500, spin_steps=16)
    with pytest.raises(error):
        launch(again)


# -- what it refuses, and what auto does instead --------------------------------------------------------------


@pytest.mark.parametrize("options, words", [
    ({"trace": True}, "trace=False"),
    ({"trace": False, "memory": "weak"}, "sequentially consistent"),
])
def test_compiled_refuses_settings_it_cannot_honour(options, words):
    with pytest.raises(InvalidArgument, match=words):
        Device("sim", engine="compiled", **options)


def test_bad_engine_names_the_value():
    with pytest.raises(InvalidArgument, match="engine='fast'"):
        Device("sim", engine="fast")
    with pytest.raises(InvalidArgument, match="engine='fast'"):
        explore("lost_update", engine="fast")
    with pytest.raises(InvalidArgument, match="policy='systematic'"):
        explore("lost_update", policy="systematic", engine="compiled")


def test_explore_runs_pct_schedules_on_the_compiled_engine_with_the_references_answer():
    compiled = explore("lost_update", policy="pct", budget=50, engine="compiled")
    reference = explore("lost_update", policy="pct", budget=50)
    assert compiled.found and compiled.schedules == reference.schedules
    assert compiled.failure.replay_token == reference.failure.replay_token
    assert compiled.probability_bound == reference.probability_bound


@device
def through_scratch(values, i):
    """A shared array declared in a device function: the reference keys it by line, inlining cannot."""
    scratch = T.shared_array(4, T.i32)
    scratch[i % 4] = values[i]
    return scratch[i % 4]


@kernel(signature="int32[:], int32[:]")
def copy_through_scratch(values, out):
    i = T.gtid()
    out[i] = through_scratch(values, i)


def _copy(dev: Device):
    out = dev.zeros(4, np.int32)
    dev.launch(copy_through_scratch, 1, 4, (dev.array(np.array([5, 6, 7, 8], np.int32)), out))
    return dev.to_host(out).tolist()


def test_compiled_names_what_it_cannot_lower_and_auto_falls_back():
    with pytest.raises(InvalidArgument, match=r"test_compiled_engine.py:\d+: .*a shared array declared in a @device"):
        _copy(Device("sim", engine="compiled", trace=False))
    dev = Device("sim", engine="auto", trace=False, seed=4)
    assert _copy(dev) == [5, 6, 7, 8]
    assert not dev.runs[0].policy.endswith("(compiled)")


def test_more_than_64_threads_run_compiled():
    dev = Device("sim", engine="compiled", trace=False, seed=5)
    counter = dev.zeros(1, np.int32)
    dev.launch(zoo_kernels.count_atomic, 3, 64, (counter, 150))
    assert int(dev.to_host(counter)[0]) == 150 and dev.runs[0].policy.endswith("(compiled)")
    replayed = Device("sim", schedule=dev.token, trace=False)
    again = replayed.zeros(1, np.int32)
    replayed.launch(zoo_kernels.count_atomic, 3, 64, (again, 150))
    assert replayed.runs[0].schedule == dev.runs[0].schedule


# -- the explorer on the compiled engine -----------------------------------------------------------------------


def test_explore_on_the_compiled_engine_finds_shrinks_and_replays():
    found = explore("lost_update", budget=200, engine="compiled")
    assert found.found and found.failure.kind == "invariant" and found.failure.preemptions == 1
    assert replay(found.failure.replay_token).trace == found.failure.trace
    assert not explore("lost_update.fixed", budget=2000, engine="compiled", shrink=False).found


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_overlapping_arrays_are_refused_by_both_engines(engine):
    from gpusim.backends.sim import SimArray

    memory = np.zeros(8, np.int32)
    dev = Device("sim", engine=engine, trace=False)
    with pytest.raises(InvalidArgument, match="argument 'flags' overlaps argument 'values'"):
        dev.launch(mixed, 1, 2, (SimArray(memory[:4]), dev.zeros(6, np.int32), SimArray(memory[2:]), 1))
