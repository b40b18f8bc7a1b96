"""The happens-before race detector: it finds the races a kernel has, and only those."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from gpusim import Device, T, kernel
from gpusim.backends.sim.races import RaceReport
from gpusim.errors import DataRace, KernelBug


@kernel(signature="int32[:], int32")
def racy_count(counter, n):
    i = T.gtid()
    if i < n:
        counter[0] = counter[0] + 1


@kernel(signature="int32[:], int32")
def atomic_count(counter, n):
    if T.gtid() < n:
        T.atomic_add(counter, 0, 1)


@kernel(signature="int32[:], int32", intended_races={"counter": "a lower bound is all we need"})
def intended_count(counter, n):
    if T.gtid() < n:
        counter[0] = counter[0] + 1


@kernel(signature="int32[:], int32[:]")
def locked_count(lock, counter):
    while T.atomic_cas(lock, 0, 0, 1) != 0:
        pass
    counter[0] = counter[0] + 1
    T.atomic_exch(lock, 0, 0)


@kernel(signature="int32[:], int32[:]", intended_races={"lock": "polled before the CAS, to spin cheaply"})
def locked_count_polling(lock, counter):
    """The lock array is exempt from checking; its atomics must still order the counter's accesses."""
    done = 0
    while done == 0:
        if lock[0] == 0 and T.atomic_cas(lock, 0, 0, 1) == 0:
            counter[0] = counter[0] + 1
            T.atomic_exch(lock, 0, 0)
            done = 1


@kernel(signature="int32[:], int32[:], int32")
def block_sum(values, out, synced):
    """A shared-memory tree reduction; without the syncthreads in its loop a thread reads a partial sum
    before the thread that writes it (or overwrites one another thread still has to read)."""
    partial = T.shared_array(64, T.i32)
    tid = T.thread_id()
    partial[tid] = values[T.gtid()]
    T.syncthreads()
    stride = 32
    while stride > 0:
        if tid < stride:
            partial[tid] = partial[tid] + partial[tid + stride]
        if synced:
            T.syncthreads()
        stride = stride // 2
    if tid == 0:
        out[T.block_id()] = partial[0]


@kernel(signature="int32[:], int32[:]")
def warp_exchange(values, out):
    """Lane i writes, syncwarp, lane i reads lane i+1's element: ordered by the warp barrier."""
    lane = T.lane_id()
    values[lane] = lane
    T.syncwarp()
    out[lane] = values[(lane + 1) % 32]


def races_of(kernel_, grid, block, arrays, scalars=(), seed=0, **options):
    dev = Device("sim", seed=seed, races="report", trace=False, **options)
    args = [dev.array(np.asarray(a, np.int32)) for a in arrays] + list(scalars)
    run = dev.launch(kernel_, grid=grid, block=block, args=tuple(args))
    return run.races, [dev.to_host(a) for a in args[: len(arrays)]]


def test_the_racy_counter_has_raw_and_waw_races_naming_both_accesses():
    races, _ = races_of(racy_count, 1, 8, [[0]], [8])
    kinds = {race.kind for race in races}
    assert kinds <= {"RAW", "WAR", "WAW"} and "WAW" in kinds
    race = races[0]
    assert (race.memory, race.array, race.index) == ("global", "counter", 0)
    assert race.first[0] != race.second[0]
    assert race.first[2].startswith("test_race_detector.py:") and race.second[2].startswith("test_race_detector.py:")
    text = str(race)
    assert "hazard on global counter[0]" in text and "thread (block 0, thread" in text


def test_reports_are_deduplicated_per_array_lines_and_kind():
    races, _ = races_of(racy_count, 2, 32, [[0]], [64])
    keys = [(r.array, r.first[2], r.second[2], r.kind) for r in races]
    assert len(keys) == len(set(keys)) and len(races) <= 3


@pytest.mark.parametrize("seed", range(5))
def test_atomics_and_a_cas_lock_are_race_free(seed):
    assert races_of(atomic_count, 2, 32, [[0]], [64], seed=seed)[0] == []
    races, (lock, counter) = races_of(locked_count, 1, 4, [[0], [0]], seed=seed)
    assert races == [] and counter[0] == 4


def test_intended_races_are_not_reported():
    assert races_of(intended_count, 1, 8, [[0]], [8])[0] == []


@pytest.mark.parametrize("seed", range(5))
def test_atomics_on_an_array_with_intended_races_still_synchronise(seed):
    # Found annotating McVitie-Wilson: exempting `held` from checking also dropped its CAS's ordering,
    # and the thread that displaced a man "raced" with the one that had published his next position.
    races, (lock, counter) = races_of(locked_count_polling, 1, 4, [[0], [0]], seed=seed)
    assert races == [] and counter[0] == 4


def test_a_reduction_missing_syncthreads_races_on_shared_memory():
    values = np.arange(128)
    found = []
    for seed in range(3):
        races, _ = races_of(block_sum, 2, 64, [values, [0, 0]], [0], seed=seed)
        found += races
    assert any(r.memory == "shared" and r.array == "partial" and r.kind == "RAW" for r in found)


def test_a_shared_array_keeps_its_name_when_a_later_doctest_block_launches_its_kernel():
    """Sphinx runs each block of a page as its own doctest, all named alike: by the time a later block launches
    a kernel, the earlier block's source cannot be read back, and the array was called ``array@N``."""
    blocks = ["""
>>> @kernel
... def last_writer(out):
...     buf = T.shared_array(4, T.i32)
...     buf[0] = T.thread_id()
...     out[T.thread_id()] = buf[0]
""", """
>>> dev = Device("sim", trace=True, races="report")
>>> run = dev.launch(last_writer, grid=1, block=4, args=(dev.zeros(4, np.int32),))
>>> sorted({event.array for event in run.trace} - {""})
['buf', 'out']
>>> sorted({(race.memory, race.array) for race in run.races})  # four threads write buf[0]
[('shared', 'buf')]
"""]
    names = {"Device": Device, "T": T, "kernel": kernel, "np": np}
    runner = doctest.DocTestRunner()
    for block in blocks:
        test = doctest.DocTestParser().get_doctest(block, names, "default", "page.rst", 0)
        runner.run(test, clear_globs=False)
        names = test.globs
    assert runner.summarize(verbose=False) == doctest.TestResults(0, 5)


@pytest.mark.parametrize("seed", range(3))
def test_the_reduction_with_its_syncthreads_is_race_free(seed):
    values = np.arange(128)
    races, (_, out) = races_of(block_sum, 2, 64, [values, [0, 0]], [1], seed=seed)
    assert races == [] and out.tolist() == [values[:64].sum(), values[64:].sum()]


def test_syncwarp_orders_the_lanes_of_a_warp():
    races, (_, out) = races_of(warp_exchange, 1, 32, [np.zeros(32), np.zeros(32)])
    assert races == [] and out.tolist() == [(i + 1) % 32 for i in range(32)]


def test_races_raise_stops_at_the_first_with_the_report_and_a_replay_token():
    dev = Device("sim", seed=1, races="raise")
    counter = dev.zeros(1)
    with pytest.raises(DataRace) as caught:
        dev.launch(racy_count, grid=1, block=8, args=(counter, 8))
    assert isinstance(caught.value, KernelBug) and isinstance(caught.value.report, RaceReport)
    assert "intended_races" in str(caught.value) and caught.value.token
    replay = Device("sim", schedule=caught.value.token)
    with pytest.raises(DataRace) as again:
        replay.launch(racy_count, grid=1, block=8, args=(replay.zeros(1), 8))
    assert again.value.report == caught.value.report


def test_the_detector_runs_beside_weak_memory_and_trusts_the_lock():
    races, (_, counter) = races_of(locked_count, 1, 4, [[0], [0]], memory="weak")
    assert races == []


@pytest.mark.parametrize("bad", [{"counter": 1}, ["counter"], {3: "why"}])
def test_bad_intended_races_are_refused(bad):
    from gpusim.errors import InvalidArgumentType

    with pytest.raises(InvalidArgumentType, match="intended_races"):
        kernel(intended_races=bad)(racy_count.fn)
