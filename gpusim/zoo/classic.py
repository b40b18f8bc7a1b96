"""The classic entries of the zoo: textbook GPU concurrency bugs, broken and fixed, on a handful of threads."""

from __future__ import annotations

import numpy as np

from gpusim.explore.scenario import sim_supports
from gpusim.runtime.device import Device

from . import classic_kernels as k
from .entry import add_entry

__all__: list[str] = []

_GUIDE = "CUDA C Programming Guide"


def _counter(kernel, threads: int):
    def run(dev: Device) -> str | None:
        counter = dev.zeros(1, np.int32)
        dev.launch(kernel, grid=1, block=threads, args=(counter, threads))
        total = int(dev.to_host(counter)[0])
        return None if total == threads else f"counter = {total} after {threads} increments: an update was lost"
    return run


add_entry(
    "lost_update", _counter(k.count_plain, 3), _counter(k.count_atomic, 3), threads=3,
    source="the classic read-modify-write race (CUDA C Programming Guide, §7.14 atomic functions)",
    wrong="two threads load the counter before either stores it; one increment overwrites the other",
    fix="atomic_add does the load and the store as one indivisible operation",
)


_VALUES = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)


def _reduction(kernel):
    def run(dev: Device) -> str | None:
        total = dev.zeros(1, np.int32)
        dev.launch(kernel, grid=1, block=8, args=(dev.array(_VALUES), total))
        got = int(dev.to_host(total)[0])
        return None if got == int(_VALUES.sum()) else f"block sum = {got}, expected {int(_VALUES.sum())}"
    return run


add_entry(
    "reduction_missing_syncthreads", _reduction(k.block_sum_missing_syncthreads), _reduction(k.block_sum), threads=8,
    source="Harris, Optimizing Parallel Reduction in CUDA (NVIDIA 2007), reduction #1; " + _GUIDE + " §7.6",
    wrong="a thread adds its partner's partial sum before the partner has finished the previous level",
    fix="a syncthreads at the end of every level, outside the if, so all threads reach it",
)


def _rotate(kernel):
    def run(dev: Device) -> str | None:
        values = dev.array(np.array([10, 20, 30, 0], np.int32))
        dev.launch(kernel, grid=1, block=4, args=(values, 3))
        got = dev.to_host(values).tolist()
        return None if got == [20, 30, 10, 0] else f"values = {got}, expected [20, 30, 10, 0]"
    return run


add_entry(
    "barrier_in_divergent_code", _rotate(k.rotate_divergent_barrier), _rotate(k.rotate), threads=4,
    source=_GUIDE + " §7.6 (__syncthreads in conditional code: undefined unless the condition is uniform)",
    wrong="threads that skip the if never reach its syncthreads; the others wait for them (a hang on a GPU)",
    fix="move the barrier out of the branch; guard only the memory accesses",
)


def _warp_sum(kernel):
    def run(dev: Device) -> str | None:
        values = dev.array(np.arange(1, 33, dtype=np.int32))
        total = dev.zeros(1, np.int32)
        dev.launch(kernel, grid=1, block=32, args=(values, total, 20))
        got = int(dev.to_host(total)[0])
        return None if got == 210 else f"warp sum = {got}, expected 210"
    return run


add_entry(
    "shuffle_after_lanes_exit", _warp_sum(k.warp_sum_after_exit), _warp_sum(k.warp_sum), threads=32,
    source=_GUIDE + " §7.22 (__shfl_down_sync with a full mask: every named lane must execute it)",
    wrong="lanes n..31 leave before the full-mask shuffle; the remaining lanes wait for lanes that are gone",
    fix="every lane takes part in the shuffles (the idle ones with 0); only the load is guarded",
)


def _locked_count(kernel, threads: int):
    def run(dev: Device) -> str | None:
        lock, counter = dev.zeros(1, np.int32), dev.zeros(1, np.int32)
        dev.launch(kernel, grid=1, block=threads, args=(lock, counter, threads))
        total = int(dev.to_host(counter)[0])
        return None if total == threads else f"counter = {total} after {threads} locked increments"
    return run


def _message(kernel):
    def run(dev: Device) -> str | None:
        data, flag, seen = dev.zeros(1, np.int32), dev.zeros(1, np.int32), dev.full(1, -1, np.int32)
        dev.launch(kernel, grid=1, block=2, args=(data, flag, seen))
        got = int(dev.to_host(seen)[0])
        return None if got == 42 else f"the consumer saw the flag set but read data = {got}, not 42"
    return run


if sim_supports("warps", "lockstep"):
    add_entry(
        "intra_warp_spin_lock", _locked_count(k.count_under_spin_lock, 2),
        _locked_count(k.count_under_warp_safe_lock, 2), threads=2,
        options={"warps": "lockstep", "livelock_steps": 2000, "spin_steps": 64},
        needs=("lockstep",),
        source="pre-Volta SIMT deadlock (CUDA C Programming Guide §4.1 independent thread scheduling; "
               "Sanders and Kandrot, CUDA by Example, appendix A.2)",
        wrong="in lockstep the warp follows the spinning lanes; the lane holding the lock never runs its unlock",
        fix="put the critical section inside the loop, under the successful CAS, so the winner finishes first",
    )

if sim_supports("memory", "weak"):
    add_entry(
        "lock_without_fence", _locked_count(k.count_under_lock_without_fence, 2),
        _locked_count(k.count_under_fenced_lock, 2), threads=2, options={"memory": "weak"}, needs=("weak",),
        source=_GUIDE + " §7.5 memory fence functions; Sanders and Kandrot, CUDA by Example, appendix A.2",
        wrong="the critical section's store becomes visible after the unlock; the next holder reads the old count",
        fix="threadfence after the CAS that takes the lock and before the atomic_exch that releases it",
    )
    add_entry(
        "spin_on_plain_load", _message(k.message_plain_spin), _message(k.message_atomic_spin), threads=2,
        options={"memory": "weak"}, needs=("weak",),
        source=_GUIDE + " §7.5 (the __threadfence example: a flag read without volatile or atomics)",
        wrong="the consumer polls the flag with plain loads and reads the data without a fence: it may read a "
              "stale value",
        fix="poll with atomic_load and fence before reading the data",
    )
