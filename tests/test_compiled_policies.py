"""The compiled engine beyond 64 threads, under PCT, sequential and switch-list schedules, with warp collectives.

Oracles: the reference simulator (an independent implementation of the same rules: under the same
policy object it must make the same choices, step for step, and it must replay every compiled token
exactly), and, for the warp collectives, the CUDA semantics computed with NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.backends.sim import PCT, Preemptions, RoundRobin, Sequential
from gpusim.errors import CollectiveDivergence, InvalidArgument
from gpusim.explore.switches import Switches


@kernel(signature="int32[:], int32[:], int32, int32")
def rounds_with_barriers(a, b, n, rounds):
    """Each thread bumps its own element of ``a`` and, atomically, its right neighbour's of ``b``; a barrier
    after each round."""
    i = T.gtid()
    for _ in range(rounds):
        if i < n:
            a[i] = a[i] + 1
            T.atomic_add(b, (i + 1) % n, 1)
        T.syncthreads()


class CompiledSwitches(Switches):
    """The explorer's switch-list policy, offering its lists to the compiled engine."""

    def compiled_switches(self):
        return None if self.record else (self.preemptions, self.forced)


def test_a_switch_list_that_records_its_branches_stays_on_the_reference():
    with pytest.raises(InvalidArgument, match="that policy needs engine='reference'"):
        Device("sim", engine="compiled", trace=False, policy=CompiledSwitches([(3, 1)], record=True))
    dev = Device("sim", engine="compiled", trace=False, policy=CompiledSwitches([(3, 1)]))
    _launch(dev, 4, 4)
    assert dev.runs[0].policy.endswith("(compiled)") and dev.runs[0].preemptions == 1


def _launch(dev: Device, threads: int, block: int, rounds: int = 2):
    a, b = dev.zeros(threads, np.int32), dev.zeros(threads, np.int32)
    dev.launch(rounds_with_barriers, -(-threads // block), block, (a, b, threads, rounds))
    run = dev.runs[-1]
    return dev.to_host(a).tolist() + dev.to_host(b).tolist(), run.steps, run.preemptions, list(run.schedule)


def test_a_thousand_threads_run_compiled_and_replay_exactly_on_the_reference():
    for seed in (0,):
        compiled = Device("sim", engine="compiled", trace=False, seed=seed)
        memory, steps, preemptions, schedule = _launch(compiled, 1024, 256)
        assert compiled.runs[0].policy.endswith("(compiled)")
        assert memory == [2] * 2048  # two rounds: each element of a and of b bumped once a round
        assert steps == 1024 * 2 * 4 and preemptions > 500
        again = Device("sim", schedule=compiled.token, trace=False)
        assert _launch(again, 1024, 256) == (memory, steps, preemptions, schedule)


@pytest.mark.parametrize("make", [
    lambda seed: PCT(seed=seed, depth=3),
    lambda seed: PCT(seed=seed, depth=2, steps=40),
    lambda seed: Sequential(),
    lambda seed: CompiledSwitches([(seed % 30, seed % 7), (seed % 30 + 11, 3)], forced=[(40, 5)]),
], ids=["pct", "pct-depth-2", "sequential", "switches"])
def test_each_policy_makes_the_reference_choices(make):
    """Same policy, both engines: the same schedule, steps and memory; and the token replays the same."""
    for seed in range(6):
        for threads, block, resident in ((8, 4, 4), (96, 32, 64)):
            runs = []
            for engine in ("compiled", "reference"):
                dev = Device("sim", engine=engine, trace=False, policy=make(seed), resident_threads=resident,
                             spin_steps=16)
                runs.append(_launch(dev, threads, block))
                if engine == "compiled":
                    assert dev.runs[0].policy.endswith("(compiled)")
                    replayed = _launch(Device("sim", schedule=dev.token, trace=False, spin_steps=16), threads, block)
                    assert replayed == runs[0]
            assert runs[0] == runs[1], (seed, threads)


def test_pct_on_the_compiled_engine_reports_its_probability_bound():
    dev = Device("sim", engine="compiled", trace=False, policy=PCT(seed=1, depth=2, steps=100))
    _launch(dev, 8, 8)
    assert dev.runs[0].probability_bound == pytest.approx(1 / (8 * 100))


# -- warp collectives ---------------------------------------------------------------------------------------


@kernel(signature="int32[:], int64[:], float64[:]")
def every_collective(values, out, halves):
    i = T.gtid()
    lane = T.lane_id()
    v = values[i]
    out[7 * i] = T.shfl_down(v, 3)
    out[7 * i + 1] = T.shfl_up(v, 5)
    out[7 * i + 2] = T.shfl_xor(v, 6)
    out[7 * i + 3] = T.shfl_idx(v, 31 - lane)
    out[7 * i + 4] = T.ballot(v % 3 == 0)
    out[7 * i + 5] = T.any(v > 90) + 2 * T.all(v >= 0)
    T.syncwarp()
    halves[i] = T.shfl_xor(v * 0.5, 1)


def _collectives(dev: Device, values: np.ndarray):
    out, halves = dev.zeros(7 * len(values), np.int64), dev.zeros(len(values), np.float64)
    dev.launch(every_collective, 1, len(values), (dev.array(values), out, halves))
    return dev.to_host(out).reshape(-1, 7)[:, :6], dev.to_host(halves)


def _cuda_collectives(values: np.ndarray):
    """What CUDA's __shfl_*_sync and votes with a full mask give, warp by warp."""
    out, halves = np.zeros((len(values), 6), np.int64), np.zeros(len(values))
    for first in range(0, len(values), 32):
        v = values[first:first + 32].astype(np.int64)
        lanes = np.arange(32)
        rows = out[first:first + 32]
        rows[:, 0] = np.where(lanes + 3 < 32, v[np.minimum(lanes + 3, 31)], v)
        rows[:, 1] = np.where(lanes >= 5, v[np.maximum(lanes - 5, 0)], v)
        rows[:, 2] = v[lanes ^ 6]
        rows[:, 3] = v[31 - lanes]
        rows[:, 4] = sum(1 << int(lane) for lane in lanes if v[lane] % 3 == 0)
        rows[:, 5] = int((v > 90).any()) + 2 * int((v >= 0).all())
        halves[first:first + 32] = v[lanes ^ 1] * 0.5
    return out, halves


def test_warp_collectives_give_cuda_results_and_replay_on_the_reference():
    values = np.random.default_rng(5).integers(0, 100, 64).astype(np.int32)
    expected = _cuda_collectives(values)
    for policy in ("random", "pct", "sequential"):
        dev = Device("sim", engine="compiled", trace=False, policy=policy, seed=3)
        out, halves = _collectives(dev, values)
        assert np.array_equal(out, expected[0]) and np.array_equal(halves, expected[1])
        replayed = Device("sim", schedule=dev.token, trace=False)
        again = _collectives(replayed, values)
        assert np.array_equal(again[0], out) and replayed.runs[0].schedule == dev.runs[0].schedule


@kernel(signature="int32[:], float32[:], float64[:], int32[:], float32[:], float64[:]")
def every_reduction(xi, xf, xd, oi, of, od):
    i = T.gtid()
    oi[3 * i] = T.reduce_add(xi[i])
    oi[3 * i + 1] = T.reduce_max(xi[i])
    oi[3 * i + 2] = T.reduce_min(xi[i])
    of[3 * i] = T.reduce_add(xf[i])
    of[3 * i + 1] = T.reduce_max(xf[i])
    of[3 * i + 2] = T.reduce_min(xf[i])
    od[3 * i] = T.reduce_add(xd[i])
    od[3 * i + 1] = T.reduce_max(xd[i])
    od[3 * i + 2] = T.reduce_min(xd[i])


def test_warp_reductions_give_the_butterfly_and_replay_on_the_reference():
    """int32 sums that wrap, float32 values whose sums are exact, float64 sums that depend on the order of
    additions: the butterfly of shfl_xor 16 ... 1 computed with NumPy in each lane, on both engines."""
    rng = np.random.default_rng(11)
    inputs = [rng.integers(-2**31, 2**31, 64).astype(np.int32), (rng.integers(-999, 999, 64) / 4).astype(np.float32),
              rng.standard_normal(64) * 10.0 ** rng.integers(-9, 10, 64)]
    lane = np.arange(32)
    expected = []
    for x in inputs:
        columns = []
        for combine in (np.add, np.maximum, np.minimum):
            warps = x.astype(np.int64) if x.dtype == np.int32 else x
            warps = warps.reshape(-1, 32)
            for offset in (16, 8, 4, 2, 1):
                warps = combine(warps, warps[:, lane ^ offset])
            columns.append(warps.ravel().astype(x.dtype))
        expected.append(np.stack(columns, axis=1).ravel())

    def reduce_on(dev):
        outs = [dev.zeros(3 * 64, x.dtype) for x in inputs]
        dev.launch(every_reduction, 2, 32, (*[dev.array(x) for x in inputs], *outs))
        return [dev.to_host(o) for o in outs]

    for policy in ("random", "pct"):
        dev = Device("sim", engine="compiled", trace=False, policy=policy, seed=4)
        got = reduce_on(dev)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e, strict=True)
        replayed = Device("sim", schedule=dev.token, trace=False)
        assert all(np.array_equal(a, b) for a, b in zip(reduce_on(replayed), got, strict=True))
        assert replayed.runs[0].schedule == dev.runs[0].schedule


def test_a_collective_in_a_partial_warp_is_reported_by_the_reference():
    dev = Device("sim", engine="compiled", trace=False, seed=2)
    with pytest.raises(CollectiveDivergence, match="partial warp of 16 lanes") as raised:
        _collectives(dev, np.arange(48, dtype=np.int32))
    assert raised.value.token == dev.token


# -- what stays on the reference engine ----------------------------------------------------------------------


@pytest.mark.parametrize("options, words", [
    ({"trace": True}, "tracing needs engine='reference'"),
    ({"trace": False, "memory": "weak"}, "memory='weak' needs engine='reference'"),
    ({"trace": False, "warps": "lockstep"}, "warps='lockstep' needs engine='reference'"),
    ({"trace": False, "policy": "round_robin"}, r"not RoundRobin\(\): that policy needs engine='reference'"),
    ({"trace": False, "policy": Preemptions([(3, 1)])}, "that policy needs engine='reference'"),
])
def test_what_needs_the_reference_engine_is_named(options, words):
    with pytest.raises(InvalidArgument, match=words):
        Device("sim", engine="compiled", **options)
    dev = Device("sim", engine="auto", **options)  # auto runs these on the reference, without a word
    _launch(dev, 4, 4)
    assert not dev.runs[0].policy.endswith("(compiled)")


def test_round_robin_object_is_refused_too():
    with pytest.raises(InvalidArgument, match="RoundRobin"):
        Device("sim", engine="compiled", trace=False, policy=RoundRobin())
