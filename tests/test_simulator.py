"""The simulator's promises: races are real, schedules replay, detectors name the culprit."""

from __future__ import annotations

import numpy as np
import pytest
import sim_kernels as K
from hypothesis import given, settings
from hypothesis import strategies as st

from gpusim import Device
from gpusim.backends.sim import PCT, Preemptions, Sequential
from gpusim.errors import (
    BarrierDivergence,
    CollectiveDivergence,
    Deadlock,
    InvalidArgument,
    KernelBug,
    Livelock,
    OutOfBounds,
    ReplayMismatch,
    UninitialisedRead,
)
from gpusim.testing.strategies import schedules


def count_with(kernel, n=64, block=32, **options):
    dev = Device("sim", **options)
    counter = dev.zeros(1, np.int32)
    run = dev.launch(kernel, grid=(n + block - 1) // block, block=block, args=(counter, n))
    return int(dev.to_host(counter)[0]), run, dev


# -- the racy counter of DESIGN.md -------------------------------------------------------------
def test_racy_counter_loses_updates_under_most_random_schedules():
    results = [count_with(K.racy_count, policy="random", seed=seed)[0] for seed in range(20)]
    assert sum(r < 64 for r in results) >= 15, results
    assert all(1 <= r <= 64 for r in results)


def test_racy_counter_never_loses_updates_when_each_thread_runs_to_completion():
    assert count_with(K.racy_count, policy="sequential")[0] == 64


@pytest.mark.parametrize("policy", ["random", "round_robin", "pct", "sequential"])
def test_atomic_counter_never_loses_updates(policy):
    for seed in range(5):
        assert count_with(K.atomic_count, policy=policy, seed=seed)[0] == 64


def test_same_seed_gives_bit_identical_trace_and_result():
    first = count_with(K.racy_count, policy="random", seed=11)
    second = count_with(K.racy_count, policy="random", seed=11)
    assert first[0] == second[0]
    assert first[1].trace == second[1].trace
    assert first[1].schedule == second[1].schedule
    other = count_with(K.racy_count, policy="random", seed=12)
    assert other[1].schedule != first[1].schedule


def test_replay_token_reproduces_the_exact_trace():
    value, run, dev = count_with(K.racy_count, policy="random", seed=5)
    replayed, rerun, _ = count_with(K.racy_count, schedule=dev.token)
    assert replayed == value
    assert rerun.trace == run.trace
    assert [str(e) for e in rerun.trace] == [str(e) for e in run.trace]


def test_replay_token_checks_it_fits_the_launch():
    _, run, _ = count_with(K.racy_count, policy="random", seed=5)
    with pytest.raises(ReplayMismatch, match="atomic_count"):
        count_with(K.atomic_count, schedule=run.token)
    with pytest.raises(ReplayMismatch, match="block=64"):
        count_with(K.racy_count, block=64, schedule=run.token)


def test_trace_names_thread_operation_array_index_value_and_line():
    _, run, _ = count_with(K.racy_count, n=2, policy="sequential")
    first = run.trace[0]
    assert (first.block, first.thread, first.op, first.array, first.index, first.value) == \
        (0, 0, "load", "counter", 0, 0)
    assert first.location.startswith("sim_kernels.py:")
    assert [e.op for e in run.trace] == ["load", "store", "load", "store"]
    assert "counter[0]" in run.format_trace()


def test_one_preemption_is_enough_for_the_lost_update():
    # Thread 0 loads, thread 1 takes over at step 1 and runs to completion, thread 0 stores stale.
    value, run, _ = count_with(K.racy_count, n=2, policy=Preemptions([(1, 0)]))
    assert value == 1
    assert run.preemptions == 1


def test_hypothesis_shrinks_the_lost_update_to_one_preemption():
    shrunk = []

    @settings(max_examples=300, database=None)
    @given(schedule=schedules(max_preemptions=4, max_step=64, pct=False))
    def counter_is_exact(schedule):
        value = count_with(K.racy_count, n=4, block=4, policy=schedule)[0]
        shrunk.append(schedule)
        assert value == 4

    with pytest.raises(AssertionError):
        counter_is_exact()
    assert len(shrunk[-1].preemptions) == 1


# -- warp collectives ----------------------------------------------------------------------------
@st.composite
def csr_graphs(draw):
    n = draw(st.integers(0, 5))
    degrees = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n))
    ptr = np.zeros(n + 1, np.int32)
    ptr[1:] = np.cumsum(degrees)
    adj = np.array(draw(st.lists(st.integers(0, 1000), min_size=int(ptr[-1]), max_size=int(ptr[-1]))), np.int32)
    return ptr, adj


@settings(max_examples=40)
@given(graph=csr_graphs(), schedule=schedules(max_preemptions=4, max_step=2000))
def test_warp_shuffle_max_over_csr_neighbours_equals_numpy(graph, schedule):
    ptr, adj = graph
    n = len(ptr) - 1
    dev = Device("sim", policy=schedule)
    out = dev.full(max(n, 1), -7, np.int32)
    adj_device = dev.array(adj if adj.size else np.zeros(1, np.int32))
    dev.launch(K.neighbour_max, grid=max(1, n), block=32, args=(dev.array(ptr), adj_device, out, n))
    expected = [adj[ptr[v]:ptr[v + 1]].max() if ptr[v + 1] > ptr[v] else -1 for v in range(n)]
    assert dev.to_host(out)[:n].tolist() == expected


def test_votes_match_numpy():
    values = np.random.default_rng(3).integers(-3, 3, 64).astype(np.int32)
    values[32:] = 1  # the second warp: all positive
    dev = Device("sim", policy="random", seed=1)
    ballots, flags = dev.zeros(2, np.uint32), dev.zeros(4, np.int32)
    dev.launch(K.warp_votes, grid=1, block=64, args=(dev.array(values), ballots, flags))
    expected_ballots = [sum(1 << lane for lane in range(32) if values[w * 32 + lane] > 0) for w in range(2)]
    assert dev.to_host(ballots).tolist() == expected_ballots
    assert dev.to_host(flags).tolist() == [int((values[:32] > 0).any()), int((values[:32] > 0).all()), 1, 1]


def test_shared_memory_tree_reduction_with_barriers():
    for policy in ("random", "round_robin", "pct"):
        dev = Device("sim", policy=policy, seed=2)
        out = dev.zeros(3, np.int32)
        dev.launch(K.block_sum, grid=3, block=64, args=(out,))
        assert dev.to_host(out).tolist() == [sum(range(64))] * 3


# -- locks ---------------------------------------------------------------------------------------
@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), policy=st.sampled_from(["random", "pct"]))
def test_cas_spin_lock_protects_the_counter(seed, policy):
    dev = Device("sim", policy=policy, seed=seed)
    lock, counter = dev.zeros(1, np.int32), dev.zeros(1, np.int32)
    dev.launch(K.locked_count, grid=2, block=8, args=(lock, counter, 16))
    assert dev.to_host(counter)[0] == 16
    assert dev.to_host(lock)[0] == 0


def test_pct_reports_its_probability_bound():
    dev = Device("sim", policy=PCT(seed=1, depth=3, steps=100))
    counter = dev.zeros(1, np.int32)
    run = dev.launch(K.atomic_count, grid=1, block=16, args=(counter, 16))
    assert run.probability_bound == pytest.approx(1 / (16 * 100**2))


# -- detectors -----------------------------------------------------------------------------------
def test_syncthreads_in_a_branch_is_barrier_divergence():
    dev = Device("sim", policy=Sequential())
    with pytest.raises(BarrierDivergence, match=r"syncthreads at sim_kernels\.py:\d+") as caught:
        dev.launch(K.divergent_barrier, grid=1, block=4, args=(dev.zeros(4, np.int32),))
    assert "thread (block 0, thread" in str(caught.value)
    assert "replay: Device('sim', schedule='gs1-" in str(caught.value)


@pytest.mark.parametrize("policy", ["sequential", "random", "pct"])
def test_waiting_forever_on_a_flag_is_a_livelock_naming_the_thread(policy):
    dev = Device("sim", policy=policy, livelock_steps=5_000)
    with pytest.raises(Livelock) as caught:
        dev.launch(K.wait_for_flag, grid=1, block=4, args=(dev.zeros(1, np.int32), dev.zeros(4, np.int32)))
    message = str(caught.value)
    assert "thread (block 0, thread 0)" in message
    assert "sim_kernels.py:" in message
    assert "flag" in message


@pytest.mark.parametrize("offset, index", [(1, 4), (-1, -1)])
def test_out_of_bounds_and_negative_indices_name_array_index_and_line(offset, index):
    dev = Device("sim", policy="sequential")
    with pytest.raises(OutOfBounds) as caught:
        dev.launch(K.out_of_bounds, grid=1, block=4, args=(dev.zeros(4, np.int32), offset))
    message = str(caught.value)
    assert f"a[{index}]" in message
    assert "sim_kernels.py:" in message
    assert isinstance(caught.value, IndexError)


@pytest.mark.parametrize("policy", ["sequential", "random"])
def test_threads_blocked_on_each_other_are_a_deadlock_naming_them(policy):
    dev = Device("sim", policy=policy)
    with pytest.raises(Deadlock) as caught:
        dev.launch(K.barrier_against_shuffle, grid=1, block=32, args=(dev.zeros(1, np.int32),))
    message = str(caught.value)
    assert "thread (block 0, thread 0) waits at shfl_idx at sim_kernels.py:" in message
    assert "waits at syncthreads at sim_kernels.py:" in message


def test_uninitialised_shared_read():
    dev = Device("sim", policy="sequential")
    with pytest.raises(UninitialisedRead, match=r"scratch\[0\]"):
        dev.launch(K.read_before_write, grid=1, block=32, args=(dev.zeros(32, np.int32),))


def test_shuffle_after_some_lanes_exited_is_collective_divergence():
    dev = Device("sim", policy="random", seed=0)
    with pytest.raises(CollectiveDivergence, match="shfl_down"):
        dev.launch(K.early_exit_shuffle, grid=1, block=32, args=(dev.zeros(32, np.int32),))


def test_kernel_bug_carries_its_replay_token_and_replays():
    dev = Device("sim", policy="random", seed=3)
    with pytest.raises(KernelBug) as first:
        dev.launch(K.divergent_barrier, grid=1, block=4, args=(dev.zeros(4, np.int32),))
    replay = Device("sim", schedule=first.value.token)
    with pytest.raises(BarrierDivergence) as second:
        replay.launch(K.divergent_barrier, grid=1, block=4, args=(replay.zeros(4, np.int32),))
    assert second.value.trace == first.value.trace
    assert second.value.summary == first.value.summary


def test_blocks_beyond_the_resident_limit_wait_their_turn():
    value, run, _ = count_with(K.atomic_count, n=256, block=32, policy="random", resident_threads=64)
    assert value == 256


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), policy=st.sampled_from(["random", "pct", "round_robin"]))
def test_replay_round_trip_of_a_multi_launch_algorithm(seed, policy):
    # Many launches, threads that exit without a scheduling point, barriers: replay must follow exactly.
    from gpusim.algorithms.bipartite import apfb, gpr
    from gpusim.types.graphs import BipartiteGraph

    graph = BipartiteGraph.from_edges([0, 1, 1, 2, 3, 3], [0, 0, 1, 1, 2, 3], n_rows=5, n_cols=5)
    for algorithm in (apfb, gpr):
        original = Device("sim", policy=policy, seed=seed)
        first = algorithm(graph, device=original, initial="empty")
        replay = Device("sim", schedule=original.token)
        second = algorithm(graph, device=replay, initial="empty")
        assert second.row_match.tolist() == first.row_match.tolist()
        assert [run.trace for run in replay.runs] == [run.trace for run in original.runs]


def test_a_launch_larger_than_the_step_budget_is_refused_before_it_runs():
    # every thread takes at least one step: 128 threads can never finish within 100 steps
    dev = Device("sim", max_steps=100)
    counter = dev.zeros(1, np.int32)
    with pytest.raises(InvalidArgument, match=r"128 threads \(4 blocks of 32\).*max_steps=100"):
        dev.launch(K.racy_count, grid=4, block=32, args=(counter, np.int32(128)))
    assert dev.to_host(counter)[0] == 0 and dev.runs == []
